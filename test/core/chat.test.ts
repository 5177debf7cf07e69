import { describe, expect, it } from 'vitest'
import { Chat, type ChatSnapshot } from '../../src/core/chat.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { mock } from '../../src/providers/mock/index.ts'

async function drain(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

describe('Chat', () => {
  it('appends the user turn and the done turn when the stream succeeds', async () => {
    const chat = new Chat({ adapter: mock({ script: [{ thinking: 'hm', text: 'Hello!' }] }) })
    const events = await drain(chat.send('Hi'))
    expect(events.at(-1)?.type).toBe('done')
    expect(chat.conversation.turns).toHaveLength(2)
    expect(chat.conversation.turns[0]).toEqual({ role: 'user', content: 'Hi' })
    expect(chat.conversation.turns[1]).toMatchObject({
      role: 'assistant',
      text: 'Hello!',
      thinking: 'hm',
    })
    expect(chat.status).toBe('ready')
  })

  it('leaves the conversation unchanged when the stream fails after 3 events', async () => {
    const start: Conversation = { system: 's', turns: [{ role: 'user', content: 'a' }] }
    const adapter = mock({
      chunkSize: 1,
      script: [{ text: 'abcdef', fail: { kind: 'server', afterEvents: 3 } }],
    })
    const chat = new Chat({ adapter, conversation: start })
    const errors: unknown[] = []
    chat.update({ onError: (e) => errors.push(e) })
    const seen: Event[] = []
    await expect(
      (async () => {
        for await (const e of chat.send('b')) seen.push(e)
      })(),
    ).rejects.toMatchObject({ kind: 'server' })
    expect(seen).toHaveLength(3)
    expect(chat.conversation).toBe(start)
    expect(chat.status).toBe('error')
    expect(chat.error?.kind).toBe('server')
    expect(errors).toHaveLength(1)
    // The failed message stays on screen, and regenerate() sends it again.
    expect(chat.getSnapshot().messages.map((m) => m.text)).toEqual(['a', 'b'])
    chat.update({ adapter: mock({ script: [{ text: 'ok' }] }) })
    await drain(chat.regenerate())
    expect(chat.conversation.turns.map((t) => (t.role === 'assistant' ? t.text : t.role))).toEqual([
      'user',
      'user',
      'ok',
    ])
  })

  it('keeps a stopped answer as plain text with no items, and ends the send quietly', async () => {
    const adapter = mock({
      chunkSize: 2,
      script: [{ thinking: 'think', text: 'abcdefgh', stallAfterEvents: 3 }],
    })
    const chat = new Chat({ adapter })
    const finished: unknown[] = []
    chat.update({ onFinish: (turn) => finished.push(turn) })
    const events: Event[] = []
    for await (const event of chat.send('go')) {
      events.push(event)
      if (events.length === 3) setTimeout(() => chat.stop(), 5)
    }
    expect(events.map((e) => e.type)).toEqual(['thinking', 'thinking', 'thinking'])
    await expect.poll(() => adapter.calls[0]?.signal.aborted).toBe(true)
    expect(chat.status).toBe('ready')
    // Stopped while thinking: the question stays, answered by a stopped turn that says nothing.
    expect(chat.conversation.turns).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        text: '',
        thinking: 'think',
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'aborted',
      },
    ])
    expect(chat.getSnapshot().messages.at(-1)).toMatchObject({ status: 'stopped', text: '' })

    // With text arrived, the text stays as an aborted turn without items.
    const adapter2 = mock({ chunkSize: 2, script: [{ text: 'abcdefgh', stallAfterEvents: 2 }] })
    chat.update({ adapter: adapter2 })
    for await (const event of chat.send('again'))
      if (event.type === 'text' && event.text === 'cd') setTimeout(() => chat.stop(), 5)
    // The empty stopped answer is left out upstream, so the two questions go as one user turn.
    expect(adapter2.calls[0]?.request).toEqual([{ role: 'user', content: 'go\n\nagain' }])
    const last = chat.conversation.turns.at(-1)
    expect(last).toEqual({
      role: 'assistant',
      text: 'abcd',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'aborted',
    })
    expect(finished.at(-1)).toBe(last)
  })

  it('treats leaving the loop early as a stop', async () => {
    const adapter = mock({ chunkSize: 1, script: [{ text: 'abcdef' }] })
    const chat = new Chat({ adapter })
    for await (const event of chat.send('x')) if (event.type === 'text') break
    expect(chat.status).toBe('ready')
    expect(chat.busy).toBe(false)
    expect(chat.conversation.turns.at(-1)).toMatchObject({
      role: 'assistant',
      text: 'a',
      stopReason: 'aborted',
    })
    expect(adapter.calls[0]?.signal.aborted).toBe(true)
  })

  it('regenerate() replaces the last answer only once the new one is complete', async () => {
    const chat = new Chat({ adapter: mock({ script: [{ text: 'first' }, { text: 'second' }] }) })
    await drain(chat.send('q'))
    const before = chat.conversation
    const stream = chat.regenerate()
    const first = await stream.next()
    expect(first.value).toMatchObject({ type: 'text' })
    expect(chat.conversation).toBe(before)
    for await (const _ of stream);
    expect(chat.conversation.turns.map((t) => (t.role === 'assistant' ? t.text : t.role))).toEqual([
      'user',
      'second',
    ])
  })

  it('keeps the previous answer, items and all, when a regenerate is stopped before it completes', async () => {
    const adapter = mock({
      chunkSize: 2,
      script: [{ text: 'first answer' }, { text: 'second answer', stallAfterEvents: 2 }],
    })
    const chat = new Chat({ adapter })
    await drain(chat.send('q'))
    const before = chat.conversation
    for await (const event of chat.regenerate())
      if (event.type === 'text') setTimeout(() => chat.stop(), 5)
    expect(chat.status).toBe('ready')
    expect(chat.conversation).toBe(before)
    expect(chat.conversation.turns.at(-1)).toMatchObject({ text: 'first answer', items: {} })
  })

  it('refuses a second send while one runs', async () => {
    const chat = new Chat({ adapter: mock({ script: [{ text: 'abc', stallAfterEvents: 1 }] }) })
    const running = chat.send('a')
    await running.next()
    await expect(chat.send('b').next()).rejects.toMatchObject({
      kind: 'invalid-request',
      message: /busy/,
    })
    chat.stop()
    await running.next()
  })

  it('answers tool calls with onToolCall and calls the model again with the results', async () => {
    const adapter = mock({
      script: [
        {
          thinking: 'need weather',
          toolCalls: [
            { id: 't1', name: 'weather', input: { city: 'Oslo' } },
            { id: 't2', name: 'fail', input: {} },
          ],
        },
        { text: 'It is sunny.' },
      ],
    })
    const chat = new Chat({
      adapter,
      onToolCall: (call) => {
        if (call.name === 'fail') throw new Error('tool broke')
        return { sky: 'sunny' }
      },
    })
    await drain(chat.send('Weather?'))
    const roles = chat.conversation.turns.map((t) => t.role)
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(chat.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        { callId: 't1', name: 'weather', output: { sky: 'sunny' } },
        { callId: 't2', name: 'fail', output: 'tool broke', isError: true },
      ],
    })
    // The second call saw the first turn replayed from its items, then the results.
    expect(adapter.calls[1]?.request.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
    expect(adapter.calls[1]?.request[1]).toHaveProperty('replayed')
    const messages = chat.getSnapshot().messages
    expect(messages).toHaveLength(3)
    expect(messages[1]?.toolCalls[0]?.result?.output).toEqual({ sky: 'sunny' })
  })

  it('stops the tool loop at maxSteps', async () => {
    const adapter = mock({ script: [{ toolCalls: [{ name: 'again', input: {} }] }] })
    const chat = new Chat({ adapter, onToolCall: () => 'ok', maxSteps: 3 })
    await drain(chat.send('loop'))
    expect(adapter.calls).toHaveLength(3)
    // The last turn's calls are answered as not run, so the conversation can be sent again.
    expect(chat.conversation.turns.at(-1)).toEqual({
      role: 'tool',
      results: [
        {
          callId: 'call_2_0',
          name: 'again',
          output: 'Not run: the limit of 3 model calls was reached before this call.',
          isError: true,
        },
      ],
    })
  })

  it('answers every call as stopped when stopped while tools run, so the conversation stays valid', async () => {
    let release = () => {}
    const adapter = mock({ script: [{ toolCalls: [{ id: 'a', name: 'slow', input: {} }] }] })
    const chat = new Chat({
      adapter,
      onToolCall: (_call, { signal }) =>
        new Promise((resolve, reject) => {
          release = () => resolve('late')
          signal?.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    })
    const run = drain(chat.send('go'))
    await expect.poll(() => chat.conversation.turns.length).toBe(2)
    chat.stop()
    release()
    await run
    expect(chat.conversation.turns.at(-1)).toEqual({
      role: 'tool',
      results: [
        { callId: 'a', name: 'slow', output: 'Stopped before the tool finished.', isError: true },
      ],
    })
    expect(adapter.calls).toHaveLength(1)
  })

  it('notifies subscribers with immutable snapshots and batches deltas through the scheduler', async () => {
    const queued: (() => void)[] = []
    const chat = new Chat({
      adapter: mock({ chunkSize: 1, script: [{ text: 'abcdefghij' }] }),
      scheduler: (flush) => queued.push(flush),
    })
    const snapshots: ChatSnapshot[] = []
    const unsubscribe = chat.subscribe(() => snapshots.push(chat.getSnapshot()))
    const stream = chat.send('x')
    for await (const event of stream) {
      if (event.type === 'text' && event.text === 'e') queued.splice(0).forEach((f) => f())
    }
    unsubscribe()
    // submitted, streaming (first delta), one batched flush, the done turn, ready.
    const statuses = snapshots.map((s) => s.status)
    expect(statuses[0]).toBe('submitted')
    expect(statuses.at(-1)).toBe('ready')
    expect(snapshots.length).toBeLessThan(8)
    const mid = snapshots.find(
      (s) => s.messages.at(-1)?.status === 'streaming' && s.messages.at(-1)?.text === 'abcde',
    )
    expect(mid).toBeDefined()
    expect(snapshots.at(-1)?.messages.at(-1)).toMatchObject({ text: 'abcdefghij', status: 'done' })
    // The streaming message keeps its id when it becomes the finished turn.
    expect(snapshots.at(-1)?.messages.at(-1)?.id).toBe(mid?.messages.at(-1)?.id)
    // Earlier messages are the same objects from one snapshot to the next.
    expect(snapshots.at(-1)?.messages[0]).toBe(snapshots.at(-2)?.messages[0])
    expect(chat.getSnapshot()).toBe(chat.getSnapshot())
  })

  it('setConversation() replaces the conversation and stops a running send', async () => {
    const adapter = mock({ script: [{ text: 'abc', stallAfterEvents: 1 }] })
    const chat = new Chat({ adapter })
    const run = chat.send('a')
    await run.next()
    const restored: Conversation = { turns: [{ role: 'user', content: 'restored' }] }
    chat.setConversation(restored)
    await run.next()
    expect(chat.conversation).toBe(restored)
    expect(chat.getSnapshot().messages.map((m) => m.text)).toEqual(['restored'])
  })

  it('aborting the call options signal stops the send like stop()', async () => {
    const controller = new AbortController()
    const chat = new Chat({
      adapter: mock({ chunkSize: 1, script: [{ text: 'abc', stallAfterEvents: 1 }] }),
    })
    const events: Event[] = []
    for await (const event of chat.send('q', { signal: controller.signal })) {
      events.push(event)
      controller.abort()
    }
    expect(events).toHaveLength(1)
    expect(chat.conversation.turns.at(-1)).toMatchObject({ text: 'a', stopReason: 'aborted' })
  })

  it('is busy only while a send runs, and clears a failure when the next send starts', async () => {
    const adapter = mock({ script: [{ fail: { kind: 'server' } }, { text: 'ok' }] })
    const chat = new Chat({ adapter })
    expect(chat.busy).toBe(false)
    await expect(drain(chat.send('a'))).rejects.toMatchObject({ kind: 'server' })
    expect([chat.status, chat.busy, chat.error?.kind]).toEqual(['error', false, 'server'])
    const stream = chat.send('b')
    await stream.next()
    expect([chat.status, chat.busy, chat.error]).toEqual(['streaming', true, undefined])
    await drain(stream)
    expect([chat.status, chat.busy]).toEqual(['ready', false])
    expect(chat.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
  })

  it('reports the turn that asked for the tools to onFinish when stopped while they run', async () => {
    const adapter = mock({
      script: [{ text: 'let me look', toolCalls: [{ name: 'slow', input: {} }] }],
    })
    const finished: unknown[] = []
    const chat = new Chat({
      adapter,
      onFinish: (turn) => finished.push(turn),
      onToolCall: (_call, { signal }) =>
        new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('x')))),
    })
    const run = drain(chat.send('go'))
    await expect.poll(() => chat.conversation.turns.length).toBe(2)
    chat.stop()
    await run
    expect(chat.status).toBe('ready')
    expect(finished).toEqual([chat.conversation.turns[1]])
    expect(chat.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
  })
})
