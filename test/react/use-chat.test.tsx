// @vitest-environment happy-dom
import { act, cleanup, render, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { useChat, type UseChatOptions, type UseChatResult } from '../../src/react/index.ts'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** Lets every pending microtask and the stream pipeline behind it run. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))
const now = (flush: () => void) => flush()

/** An adapter whose events the test pushes one batch at a time. */
function controlled() {
  const queue: Event[] = []
  let wake: (() => void) | undefined
  const adapter: Adapter = {
    provider: 'test',
    model: 'frames',
    async *stream() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
        const event = queue.shift()!
        yield event
        if (event.type === 'done') return
      }
    },
  }
  return {
    adapter,
    push(...events: Event[]) {
      queue.push(...events)
      wake?.()
    },
  }
}

function renderChat(options: UseChatOptions) {
  let renders = 0
  const hook = renderHook(
    (props: UseChatOptions) => {
      renders++
      return useChat(props)
    },
    { initialProps: options },
  )
  return { ...hook, renders: () => renders }
}

/** Starts a send inside act; `done` settles when the send ends (wrapped, so it is not awaited here). */
async function start(run: () => Promise<void>): Promise<{ done: Promise<void> }> {
  let done!: Promise<void>
  await act(async () => {
    done = run()
    await tick()
  })
  return { done }
}

describe('useChat', () => {
  it('renders a 10,000-token answer about once per frame, not once per token', async () => {
    const frames: (() => void)[] = []
    let scheduled = 0
    const scheduler = (flush: () => void) => {
      scheduled++
      frames.push(flush)
    }
    const upstream = controlled()
    const { result, renders } = renderChat({ adapter: upstream.adapter, scheduler })
    const sending = await start(() => result.current.send('Write a lot'))
    expect(result.current.status).toBe('submitted')
    const before = renders()
    const user = result.current.messages[0]

    const FRAMES = 100
    for (let frame = 0; frame < FRAMES; frame++) {
      await act(async () => {
        upstream.push(
          ...Array.from({ length: 100 }, () => ({ type: 'text', text: 'tok ' }) as const),
        )
        await tick()
        for (const flush of frames.splice(0)) flush()
      })
      // Each frame shows everything that arrived before it, in the same streaming message.
      const last = result.current.messages.at(-1)
      expect(last?.status).toBe('streaming')
      expect(last?.text.length).toBe((frame + 1) * 100 * 4)
      expect(result.current.messages[0]).toBe(user)
    }
    const streamingRenders = renders() - before
    expect(scheduled).toBeLessThanOrEqual(FRAMES + 1)
    // One render per flushed frame (the first frame also carries the switch to 'streaming').
    expect(streamingRenders).toBeGreaterThanOrEqual(FRAMES)
    expect(streamingRenders).toBeLessThanOrEqual(FRAMES + 2)

    const text = 'tok '.repeat(10_000)
    await act(async () => {
      upstream.push({
        type: 'done',
        turn: {
          role: 'assistant',
          text,
          usage: { inputTokens: 1, outputTokens: 10_000 },
          stopReason: 'stop',
        },
      })
      await sending.done
    })
    expect(renders() - before).toBeLessThanOrEqual(FRAMES + 4)
    expect(result.current.status).toBe('ready')
    expect(result.current.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'done'],
      ['assistant', 'done'],
    ])
    expect(result.current.messages[1]?.text).toBe(text)
    expect(result.current.messages[0]).toBe(user)
  })

  it('defaults to one update per animation frame', async () => {
    const callbacks: FrameRequestCallback[] = []
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      callbacks.push(callback)
      return callbacks.length
    })
    const { result } = renderChat({
      adapter: mock({ chunkSize: 1, script: [{ text: 'abcdef', stallAfterEvents: 4 }] }),
    })
    await start(() => result.current.send('go'))
    // The first delta switches to 'streaming' at once; the next three wait for a frame.
    expect(result.current.messages.at(-1)?.text).toBe('a')
    expect(callbacks).toHaveLength(1)
    await act(async () => callbacks.splice(0).forEach((callback) => callback(0)))
    expect(result.current.messages.at(-1)?.text).toBe('abcd')
    await act(async () => result.current.stop())
  })

  it('falls back to a 16 ms timer where there is no requestAnimationFrame', async () => {
    vi.stubGlobal('requestAnimationFrame', undefined)
    const timers = vi.spyOn(globalThis, 'setTimeout')
    const { result } = renderChat({
      adapter: mock({ chunkSize: 1, script: [{ text: 'abc', stallAfterEvents: 2 }] }),
    })
    await start(() => result.current.send('go'))
    expect(timers.mock.calls.some(([, ms]) => ms === 16)).toBe(true)
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 40))
    })
    expect(result.current.messages.at(-1)?.text).toBe('ab')
    await act(async () => result.current.stop())
    timers.mockRestore()
  })

  it('stop() keeps the partial answer as a plain-text turn with no items', async () => {
    const upstream = mock({
      chunkSize: 2,
      script: [{ thinking: 'hmm', text: 'abcdefgh', stallAfterEvents: 4 }],
    })
    const finished = vi.fn()
    const { result } = renderChat({ adapter: upstream, scheduler: now, onFinish: finished })
    const sending = await start(() => result.current.send('go'))
    expect(result.current.status).toBe('streaming')
    expect(result.current.messages.at(-1)).toMatchObject({
      text: 'abcd',
      thinking: 'hmm',
      status: 'streaming',
    })
    await act(async () => {
      result.current.stop()
      await sending.done
    })
    expect(result.current.status).toBe('ready')
    expect(result.current.messages.at(-1)).toMatchObject({ text: 'abcd', status: 'stopped' })
    const last = result.current.conversation.turns.at(-1)
    expect(last).toMatchObject({
      role: 'assistant',
      text: 'abcd',
      thinking: 'hmm',
      stopReason: 'aborted',
    })
    expect(last).not.toHaveProperty('items')
    expect(finished).toHaveBeenCalledWith(last)
    expect(upstream.calls[0]?.signal.aborted).toBe(true)
  })

  it('sets status and error on failure and keeps the partial answer out of the conversation', async () => {
    const onError = vi.fn()
    const start0: Conversation = { turns: [] }
    const { result } = renderChat({
      adapter: mock({
        chunkSize: 1,
        script: [{ text: 'abcdef', fail: { kind: 'overloaded', afterEvents: 3 } }],
      }),
      scheduler: now,
      initialConversation: start0,
      onError,
    })
    await act(async () => {
      await result.current.send('q')
    })
    expect(result.current.status).toBe('error')
    expect(result.current.error).toMatchObject({ kind: 'overloaded', retryable: true })
    expect(onError).toHaveBeenCalledWith(result.current.error)
    expect(result.current.conversation).toBe(start0)
    // The question stays on screen (to retry), the partial answer does not.
    expect(result.current.messages.map((m) => [m.role, m.text])).toEqual([['user', 'q']])
  })

  it('retries a failed send with regenerate()', async () => {
    const { result } = renderChat({
      adapter: mock({ script: [{ text: 'x', fail: { kind: 'server' } }, { text: 'worked' }] }),
      scheduler: now,
    })
    await act(async () => {
      await result.current.send('q')
    })
    expect(result.current.status).toBe('error')
    await act(async () => {
      await result.current.regenerate()
    })
    expect(result.current.status).toBe('ready')
    expect(result.current.error).toBeUndefined()
    expect(result.current.messages.map((m) => m.text)).toEqual(['q', 'worked'])
  })

  it('regenerate() replaces the last answer', async () => {
    const upstream = mock({ script: [{ text: 'first' }, { text: 'second' }] })
    const { result } = renderChat({ adapter: upstream, scheduler: now })
    await act(async () => {
      await result.current.send('q')
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['q', 'first'])
    await act(async () => {
      await result.current.regenerate()
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['q', 'second'])
    expect(result.current.conversation.turns).toHaveLength(2)
    expect(upstream.calls[1]?.request).toEqual([{ role: 'user', content: 'q' }])
  })

  it('answers tool calls with onToolCall and continues the loop by itself', async () => {
    const upstream = mock({
      script: [
        {
          thinking: 'look it up',
          toolCalls: [{ id: 't1', name: 'weather', input: { city: 'Oslo' } }],
        },
        { text: 'Sunny.' },
      ],
    })
    const onToolCall = vi.fn(async () => ({ sky: 'clear' }))
    const tools = [{ name: 'weather', parameters: { type: 'object' } }]
    const { result } = renderChat({ adapter: upstream, scheduler: now, tools, onToolCall })
    await act(async () => {
      await result.current.send('Weather?')
    })
    expect(onToolCall).toHaveBeenCalledTimes(1)
    expect(result.current.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(result.current.messages).toHaveLength(3)
    expect(result.current.messages[1]?.toolCalls[0]).toMatchObject({
      name: 'weather',
      result: { output: { sky: 'clear' } },
    })
    expect(result.current.messages[2]?.text).toBe('Sunny.')
    expect(upstream.calls[0]?.options.tools).toEqual(tools)
  })

  it('starts from initialConversation and restores with setConversation, items included', async () => {
    const upstream = mock({ script: [{ text: 'one' }, { text: 'two' }] })
    const first = renderChat({ adapter: upstream, scheduler: now })
    await act(async () => {
      await first.result.current.send('a')
    })
    // As stored in localStorage: plain JSON.
    const saved = JSON.stringify(first.result.current.conversation)
    first.unmount()

    const { result } = renderChat({
      adapter: upstream,
      scheduler: now,
      initialConversation: JSON.parse(saved) as Conversation,
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['a', 'one'])
    await act(async () => {
      await result.current.send('b')
    })
    // The restored turn went back to the same model from its items, verbatim.
    expect(upstream.calls[1]?.request[1]).toEqual({
      role: 'assistant',
      replayed: (JSON.parse(saved) as { turns: { items: { data: unknown } }[] }).turns[1]?.items
        .data,
    })

    const other: Conversation = { system: 's', turns: [{ role: 'user', content: 'restored' }] }
    act(() => result.current.setConversation(other))
    expect(result.current.conversation).toBe(other)
    expect(result.current.messages.map((m) => m.text)).toEqual(['restored'])
  })

  it('uses the options of the latest render for the next send', async () => {
    const a = mock({ model: 'a', script: [{ text: 'from a' }] })
    const b = mock({ model: 'b', script: [{ thinking: 'hm', text: 'from b' }] })
    const { result, rerender } = renderChat({ adapter: a, scheduler: now })
    await act(async () => {
      await result.current.send('1')
    })
    const send = result.current.send
    rerender({ adapter: b, scheduler: now, thinking: 'high' })
    expect(result.current.send).toBe(send)
    await act(async () => {
      await result.current.send('2')
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['1', 'from a', '2', 'from b'])
    expect(b.calls[0]?.options.thinking).toBe('high')
    expect(a.calls).toHaveLength(1)
  })

  it('ignores a send while one runs', async () => {
    const upstream = mock({ chunkSize: 1, script: [{ text: 'abc', stallAfterEvents: 1 }] })
    const { result } = renderChat({ adapter: upstream, scheduler: now })
    await start(() => result.current.send('first'))
    await act(async () => {
      await result.current.send('second')
    })
    expect(result.current.messages.map((m) => m.text)).toEqual(['first', 'a'])
    expect(upstream.calls).toHaveLength(1)
    expect(upstream.calls[0]?.signal.aborted).toBe(false)
  })

  it('renders messages in a component with stable keys', async () => {
    const upstream = mock({ script: [{ thinking: 'hm', text: 'Hello' }] })
    let api: UseChatResult | undefined
    function View() {
      api = useChat({ adapter: upstream, scheduler: now })
      return (
        <ul>
          {api.messages.map((m) => (
            <li key={m.id} data-role={m.role}>
              {m.thinking !== '' && <i>{m.thinking}</i>}
              {m.text}
            </li>
          ))}
        </ul>
      )
    }
    const view = render(<View />)
    await act(async () => {
      await api?.send('Hi')
    })
    const items = view.container.querySelectorAll('li')
    expect([...items].map((li) => [li.dataset['role'], li.textContent])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'hmHello'],
    ])
  })
})
