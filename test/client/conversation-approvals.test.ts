import { describe, expect, it } from 'vitest'
import { relayConversation } from '../../src/client/index.ts'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import type { ToolCall } from '../../src/core/events.ts'
import type { WireApproval, WirePending } from '../../src/core/wire.ts'
import { eventually } from '../helpers/eventually.ts'

// The relay's tool loop as a browser sees it (DESIGN §13): what it waits on, from `GET` and from the
// stream, approvals decided here or in another tab, results beside their calls, and an answer a
// restart cut.

const ID = 'c-0123456789abcdef0123'
const APPROVAL_ID = 'A'.repeat(43)
const QUESTION: Turn = { role: 'user', content: 'save_note: buy milk' }
const NOTE: ToolCall = { id: 'call-1', name: 'save_note', input: { text: 'buy milk' } }
const LOOKUP: ToolCall = { id: 'call-2', name: 'lookup', input: { q: 'milk' } }
const turnOf = (text: string, toolCalls?: ToolCall[]): AssistantTurn => ({
  role: 'assistant',
  text,
  usage: { inputTokens: 3, outputTokens: 3 },
  stopReason: toolCalls === undefined ? 'stop' : 'tool-calls',
  ...(toolCalls === undefined ? {} : { toolCalls }),
})
const ASKS = turnOf('', [NOTE])
const APPROVAL: WireApproval = {
  approvalId: APPROVAL_ID,
  callId: NOTE.id,
  name: 'save_note',
  input: NOTE.input,
  expiresAt: '2026-12-07T19:00:00.000Z',
}
const SAVED = { callId: NOTE.id, name: 'save_note', output: 'saved: buy milk', isError: false }

const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

type Post = { path: string; body: unknown }

/** A result the relay stores for a call that waited when the loop was stopped. */
const stoppedResult = (call: ToolCall) => ({
  callId: call.id,
  name: call.name,
  output: 'Not run: the loop was stopped before this call was answered.',
  isError: true,
})

/**
 * A relay holding `turns` (events up to id 4) and what its loop waits on; every stream it hands
 * out is written by the test, a frame at a time. A POST to `/approvals/...` answers `decision`'s
 * status, a message `message`'s; `posts` lists them with their bodies.
 */
function loopRelay(
  turns: Turn[],
  pending: WirePending | undefined,
  { decision = 202, message }: { decision?: number; message?: () => Response } = {},
) {
  let write!: ReadableStreamDefaultController<string>
  const stream = new ReadableStream<string>({ start: (controller) => void (write = controller) })
  const posts: Post[] = []
  const streams: string[] = []
  const stops: string[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input))
    const path = url.pathname
    if (path === `/v1/conversations/${ID}`) {
      return Response.json({
        id: ID,
        conversation: { turns },
        streaming: false,
        lastEventId: 4,
        pending,
      })
    }
    if (path === `/v1/conversations/${ID}/stream`) {
      streams.push(url.search)
      return new Response(stream.pipeThrough(new TextEncoderStream()), {
        headers: { 'content-type': 'text/event-stream' },
      })
    }
    posts.push({ path, body: JSON.parse(String(init?.body)) })
    if (path.endsWith('/stop')) {
      stops.push(url.search)
      return new Response(null, { status: 204 })
    }
    if (path.includes('/approvals/') && decision !== 202) {
      const said = { 404: 'no such approval', 409: 'this approval was decided already (approved)' }
      const text =
        said[decision as 404 | 409] ?? 'this approval expired at 2026-12-06T00:00:00.000Z'
      return Response.json(
        { error: { kind: 'invalid-request', message: text } },
        { status: decision },
      )
    }
    if (path.includes('/approvals/'))
      return Response.json({ approvalId: APPROVAL_ID }, { status: 202 })
    if (message !== undefined) return message()
    return new Response(stream.pipeThrough(new TextEncoderStream()), {
      headers: { 'content-type': 'text/event-stream' },
    })
  }
  return { fetch, posts, streams, stops, write: (text: string) => write.enqueue(text) }
}

const storeOn = (fetch: typeof globalThis.fetch, follow = false) =>
  relayConversation({
    url: 'http://relay.test',
    model: 'mock/echo',
    id: ID,
    follow,
    followOver: 'sse',
    fetch,
    scheduler: (flush) => flush(),
  })

describe('a conversation store whose relay runs a tool loop', () => {
  it('lists the approval GET names, approves it, and reads the loop going on', async () => {
    const relay = loopRelay([QUESTION, ASKS], { approvals: [APPROVAL], calls: [] })
    const store = storeOn(relay.fetch)
    await store.load()
    expect(store.getSnapshot().pending).toEqual({ approvals: [APPROVAL], calls: [] })
    await store.approve(APPROVAL_ID)
    expect(relay.posts).toEqual([
      { path: `/v1/conversations/${ID}/approvals/${APPROVAL_ID}`, body: { approve: true } },
    ])
    // Not following: it reads the stream from the last event it saw.
    await eventually(() => relay.streams.length === 1, 'the store reads the loop')
    expect(relay.streams).toEqual(['?follow=false&lastEventId=4'])
    relay.write(frame(5, 'tool-result', SAVED))
    await eventually(
      () => store.getSnapshot().pending?.approvals.length === 0,
      'the approval waits no more',
    )
    // The result shows beside its call before the tool turn that holds it is stored.
    expect(store.getSnapshot().messages.at(-1)?.toolCalls).toEqual([{ ...NOTE, result: SAVED }])
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, ASKS])
    const tools: Turn = { role: 'tool', results: [SAVED] }
    relay.write(frame(6, 'turn', { turn: tools }))
    relay.write(frame(7, 'text', { text: 'Saved.' }))
    relay.write(frame(8, 'done', { turn: turnOf('Saved.') }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 4, 'the answer')
    expect(store.getSnapshot().conversation.turns).toEqual([
      QUESTION,
      ASKS,
      tools,
      turnOf('Saved.'),
    ])
    expect(store.getSnapshot().messages.map((m) => m.text)).toEqual([
      'save_note: buy milk',
      '',
      'Saved.',
    ])
    expect(store.getSnapshot().messages[1]?.toolCalls).toEqual([{ ...NOTE, result: SAVED }])
    expect(store.getSnapshot().status).toBe('ready')
    store.dispose()
  })

  it('denies with a reason', async () => {
    const relay = loopRelay([QUESTION, ASKS], { approvals: [APPROVAL], calls: [] })
    const store = storeOn(relay.fetch)
    await store.load()
    await store.deny(APPROVAL_ID, 'not now')
    expect(relay.posts.map((post) => post.body)).toEqual([{ approve: false, reason: 'not now' }])
    store.dispose()
  })

  it('learns from the stream of an approval asked for and of one another tab decided', async () => {
    const relay = loopRelay([], undefined)
    const store = storeOn(relay.fetch, true)
    await store.load()
    relay.write(frame(5, 'turn', { turn: QUESTION }))
    relay.write(frame(6, 'tool-approval', APPROVAL))
    relay.write(frame(7, 'done', { turn: ASKS }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 2, 'the step')
    expect(store.getSnapshot().pending).toEqual({ approvals: [APPROVAL], calls: [] })
    // Decided in another tab: its result reaches this one, whose card goes.
    const denied = { ...SAVED, output: 'Not run: the user denied this call.', isError: true }
    relay.write(frame(8, 'tool-result', denied))
    await eventually(
      () => store.getSnapshot().pending?.approvals.length === 0,
      'the approval is gone',
    )
    expect(store.getSnapshot().messages.at(-1)?.toolCalls[0]?.result).toEqual(denied)
    expect(relay.posts).toEqual([])
    store.dispose()
  })

  for (const [status, said] of [
    [404, 'no such approval'],
    [409, 'this approval was decided already (approved)'],
    [410, 'this approval expired at 2026-12-06T00:00:00.000Z'],
  ] as const) {
    it(`says what a ${status} means, and lists the approval no more`, async () => {
      const relay = loopRelay(
        [QUESTION, ASKS],
        { approvals: [APPROVAL], calls: [] },
        {
          decision: status,
        },
      )
      const store = storeOn(relay.fetch)
      await store.load()
      await store.approve(APPROVAL_ID)
      const { status: state, error, pending } = store.getSnapshot()
      expect(state).toBe('error')
      expect(error?.message).toBe(said)
      expect(error?.status).toBe(status)
      expect(pending?.approvals).toEqual([])
      expect(relay.streams).toEqual([])
      store.dispose()
    })
  }

  it('names server tools for a message, and answers only its own calls while an approval waits', async () => {
    const step = turnOf('', [NOTE, LOOKUP])
    const bodies: unknown[] = []
    const answer = [
      frame(1, 'turn', { turn: QUESTION }),
      frame(2, 'tool-call', { call: NOTE }),
      frame(3, 'tool-call', { call: LOOKUP }),
      frame(4, 'tool-approval', APPROVAL),
      frame(5, 'done', { turn: step }),
    ].join('')
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/v1/conversations'))
        return Response.json({ id: ID }, { status: 201 })
      bodies.push(JSON.parse(String(init?.body)))
      // The first message's answer; then its tool turn, stored while the approval waits.
      if (bodies.length === 1) {
        return new Response(answer, { headers: { 'content-type': 'text/event-stream' } })
      }
      return Response.json({ pending: { approvals: [APPROVAL], calls: [] } }, { status: 202 })
    }
    const asked: string[] = []
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      fetch,
      scheduler: (flush) => flush(),
      onToolCall: (call) => {
        asked.push(call.name)
        return 'found'
      },
    })
    await store.send('save_note: buy milk', { serverTools: ['save_note'], maxSteps: 3 })
    expect(bodies[0]).toMatchObject({ serverTools: ['save_note'], maxSteps: 3 })
    // save_note is the relay's, waiting for a person: only lookup is this client's to answer.
    expect(asked).toEqual(['lookup'])
    const found = { callId: LOOKUP.id, name: 'lookup', output: 'found' }
    expect(bodies[1]).toMatchObject({ turn: { role: 'tool', results: [found] } })
    const { status, pending, messages } = store.getSnapshot()
    expect(status).toBe('ready')
    expect(pending).toEqual({ approvals: [APPROVAL], calls: [] })
    expect(messages.at(-1)?.toolCalls).toEqual([
      { ...NOTE, result: undefined },
      { ...LOOKUP, result: expect.objectContaining(found) },
    ])
    store.dispose()
  })

  it('lists the calls a step leaves to this client, from GET and from the stream', async () => {
    const relay = loopRelay([QUESTION, turnOf('', [LOOKUP])], { approvals: [], calls: [LOOKUP] })
    const store = storeOn(relay.fetch, true)
    await store.load()
    expect(store.getSnapshot().pending).toEqual({ approvals: [], calls: [LOOKUP] })
    // Another tab answers it: its tool turn, then the next answer.
    relay.write(
      frame(5, 'turn', {
        turn: { role: 'tool', results: [{ callId: LOOKUP.id, name: 'lookup', output: 'found' }] },
      }),
    )
    await eventually(() => store.getSnapshot().pending?.calls.length === 0, 'the call is answered')
    relay.write(frame(6, 'done', { turn: turnOf('', [{ ...LOOKUP, id: 'call-3' }]) }))
    await eventually(() => store.getSnapshot().pending?.calls.length === 1, 'the next call waits')
    expect(store.getSnapshot().pending?.calls).toEqual([{ ...LOOKUP, id: 'call-3' }])
    store.dispose()
  })

  it('takes what waits from a reset, and that nothing waits from one that lists nothing', async () => {
    // Loaded when nothing waited; then resumed from before what the relay's log keeps, while
    // another tab's step waits on an approval and on this client's call.
    const relay = loopRelay([QUESTION, turnOf('Earlier.')], undefined)
    const store = storeOn(relay.fetch, true)
    await store.load()
    const step = turnOf('', [NOTE, LOOKUP])
    const asked: Turn = { role: 'user', content: 'Both, please' }
    const waits: WirePending = { approvals: [APPROVAL], calls: [LOOKUP] }
    const turns = [QUESTION, turnOf('Earlier.'), asked, step]
    relay.write(
      frame(20, 'reset', { conversation: { turns }, streaming: false, queue: [], pending: waits }),
    )
    await eventually(() => store.getSnapshot().conversation.turns.length === 4, 'the reset')
    expect(store.getSnapshot().pending).toEqual(waits)
    expect(store.getSnapshot().status).toBe('ready')
    // A result of the step, then the step answered and ended elsewhere: the next reset lists
    // nothing, and nothing of the step waits or shows beside its calls but its tool turn.
    relay.write(frame(21, 'tool-result', SAVED))
    await eventually(() => store.getSnapshot().pending?.approvals.length === 0, 'the result')
    const found = { callId: LOOKUP.id, name: 'lookup', output: 'found' }
    const answered: Turn = { role: 'tool', results: [SAVED, found] }
    const later = [...turns, answered, turnOf('Both done.')]
    relay.write(frame(30, 'reset', { conversation: { turns: later }, streaming: false, queue: [] }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 6, 'the next reset')
    const { pending, messages } = store.getSnapshot()
    expect(pending).toEqual({ approvals: [], calls: [] })
    expect(messages.map((m) => m.text)).toEqual([
      'save_note: buy milk',
      'Earlier.',
      'Both, please',
      '',
      'Both done.',
    ])
    expect(messages[3]?.toolCalls).toEqual([
      { ...NOTE, result: SAVED },
      { ...LOOKUP, result: found },
    ])
    expect(messages[4]?.toolCalls).toEqual([])
    store.dispose()
  })

  /** A following store on a relay whose answer to QUESTION has streamed 'Half an' (events 5, 6). */
  async function halfAnswered() {
    const relay = loopRelay([], undefined)
    const store = storeOn(relay.fetch, true)
    await store.load()
    relay.write(frame(5, 'turn', { turn: QUESTION }))
    relay.write(frame(6, 'text', { text: 'Half an' }))
    await eventually(() => store.getSnapshot().messages.at(-1)?.text === 'Half an', 'it streams')
    return { relay, store }
  }

  it('marks an answer a restart cut, and drops what it showed of one asked again', async () => {
    const { relay, store } = await halfAnswered()
    relay.write(frame(7, 'interrupted', { retried: true }))
    relay.write(frame(8, 'text', { text: 'A whole' }))
    await eventually(() => store.getSnapshot().messages.at(-1)?.text === 'A whole', 'again')
    expect(store.getSnapshot().interrupted).toBe('retried')
    relay.write(frame(9, 'done', { turn: turnOf('A whole answer.') }))
    await eventually(() => store.getSnapshot().status === 'ready', 'it ends')
    expect(store.getSnapshot().interrupted).toBe('retried')
    // The next answer is whole.
    relay.write(frame(10, 'turn', { turn: { role: 'user', content: 'And?' } }))
    await eventually(() => store.getSnapshot().status === 'submitted', 'the next starts')
    expect(store.getSnapshot().interrupted).toBeUndefined()
    store.dispose()
  })

  it('marks an answer a restart cut as kept when what arrived of it stays', async () => {
    const { relay, store } = await halfAnswered()
    expect(store.getSnapshot().interrupted).toBeUndefined()
    relay.write(frame(7, 'interrupted', { retried: false }))
    const kept: AssistantTurn = { ...turnOf('Half an'), stopReason: 'aborted' }
    relay.write(frame(8, 'done', { turn: kept }))
    await eventually(() => store.getSnapshot().status === 'ready', 'it ends')
    const { interrupted, messages, conversation } = store.getSnapshot()
    expect(interrupted).toBe('kept')
    expect(conversation.turns).toEqual([QUESTION, kept])
    expect(messages.at(-1)).toMatchObject({ text: 'Half an', status: 'stopped' })
    store.dispose()
  })

  it('stops a loop that waits on an approval: the relay answers it, and the store shows that', async () => {
    const relay = loopRelay([QUESTION, ASKS], { approvals: [APPROVAL], calls: [] })
    const store = storeOn(relay.fetch)
    await store.load()
    expect(store.getSnapshot().status).toBe('ready')
    // No stream is open while the loop waits: the stop goes to the relay all the same.
    store.stop()
    await eventually(() => relay.stops.length === 1, 'the stop is sent')
    expect(relay.posts.map((post) => post.path)).toEqual([`/v1/conversations/${ID}/stop`])
    expect(relay.stops).toEqual(['?lastEventId=4'])
    // Not following: it reads what the stop stored, from the last event it saw.
    await eventually(() => relay.streams.length === 1, 'the store reads what the stop stored')
    expect(relay.streams).toEqual(['?follow=false&lastEventId=4'])
    const answered: Turn = { role: 'tool', results: [stoppedResult(NOTE)] }
    relay.write(frame(5, 'tool-result', stoppedResult(NOTE)))
    relay.write(frame(6, 'reset', { conversation: { turns: [QUESTION, ASKS, answered] } }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 3, 'the tool turn')
    const { conversation, pending, status, messages } = store.getSnapshot()
    expect(conversation.turns).toEqual([QUESTION, ASKS, answered])
    expect(pending).toEqual({ approvals: [], calls: [] })
    expect(status).toBe('ready')
    expect(messages.at(-1)?.toolCalls).toEqual([{ ...NOTE, result: stoppedResult(NOTE) }])
    store.dispose()
  })

  it('stops a loop that waits on its own tool, and sends no results for it once it returns', async () => {
    const bodies: unknown[] = []
    const stops: string[] = []
    const asks = turnOf('', [LOOKUP])
    const answered: Turn = { role: 'tool', results: [stoppedResult(LOOKUP)] }
    const sse = (text: string) =>
      new Response(text, { headers: { 'content-type': 'text/event-stream' } })
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input))
      if (url.pathname === '/v1/conversations') return Response.json({ id: ID }, { status: 201 })
      if (url.pathname.endsWith('/stop')) {
        stops.push(url.search)
        return new Response(null, { status: 204 })
      }
      // What the stop stored, read from the last event the store saw.
      if (url.pathname.endsWith('/stream')) {
        expect(url.search).toBe('?follow=false&lastEventId=3')
        return sse(
          frame(4, 'tool-result', stoppedResult(LOOKUP)) +
            frame(5, 'reset', { conversation: { turns: [QUESTION, asks, answered] } }),
        )
      }
      bodies.push(JSON.parse(String(init?.body)))
      return sse(
        frame(1, 'turn', { turn: QUESTION }) +
          frame(2, 'tool-call', { call: LOOKUP }) +
          frame(3, 'done', { turn: asks }),
      )
    }
    let finish!: (output: string) => void
    const running = new Promise<string>((resolve) => void (finish = resolve))
    let called = false
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      fetch,
      scheduler: (flush) => flush(),
      onToolCall: () => {
        called = true
        return running
      },
    })
    const sent = store.send('save_note: buy milk')
    await eventually(() => called, 'the tool runs')
    expect(store.getSnapshot().pending?.calls).toEqual([LOOKUP])
    store.stop()
    await eventually(
      () => store.getSnapshot().conversation.turns.length === 3,
      'the stored tool turn is read',
    )
    expect(stops).toEqual(['?lastEventId=3'])
    // The tool returns after the stop: its result is sent nowhere.
    finish('found')
    await sent
    expect(bodies).toHaveLength(1)
    const { conversation, pending, status, error } = store.getSnapshot()
    expect(conversation.turns).toEqual([QUESTION, asks, answered])
    expect(pending).toEqual({ approvals: [], calls: [] })
    expect(status).toBe('ready')
    expect(error).toBeUndefined()
    store.dispose()
  })

  it('sends no stop while nothing runs and nothing waits', async () => {
    const relay = loopRelay([QUESTION, turnOf('Done.')], undefined)
    const store = storeOn(relay.fetch)
    await store.load()
    store.stop()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(relay.posts).toEqual([])
    store.dispose()
  })
})
