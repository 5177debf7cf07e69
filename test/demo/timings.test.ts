// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ChatStore } from '../../src/client/index.ts'
import type { ChatSnapshot } from '../../src/core/chat.ts'
import type { AssistantTurn } from '../../src/index.ts'
import type { AnswerStats } from '../../demo/src/storage.ts'
import { relayThinkingMs, timeStore, timingFetch, type LiveTiming } from '../../demo/src/timings.ts'

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
})

const ID = 'c-0123456789abcdef0123'
const QUESTION = { role: 'user', content: 'Hi' } as const
const ANSWER: AssistantTurn = {
  role: 'assistant',
  text: 'Hello',
  thinking: 'Hm.',
  usage: { inputTokens: 1, outputTokens: 2 },
  stopReason: 'stop',
}
const utf8 = new TextEncoder()

/** A store whose snapshots the test sets, telling its listener of each. */
function scriptedStore() {
  let snapshot: ChatSnapshot = {
    conversation: { turns: [QUESTION] },
    messages: [],
    status: 'submitted',
    error: undefined,
  }
  let listener = () => {}
  const store: ChatStore = {
    subscribe: (next) => {
      listener = next
      return () => {}
    },
    getSnapshot: () => snapshot,
    send: async () => {},
    stop: () => {},
    regenerate: async () => {},
  }
  const show = (next: Partial<ChatSnapshot>) => {
    snapshot = { ...snapshot, ...next }
    listener()
  }
  return { store, show }
}

/** The page's clock, moved by the test. */
function clock() {
  let now = 0
  vi.spyOn(performance, 'now').mockImplementation(() => now)
  return (at: number) => void (now = at)
}

describe('the demo times a durable answer on one clock', () => {
  it("never shows a negative model time when the answer's first event comes on the follow stream before the message's response", async () => {
    const at = clock()
    // The follow stream, open before the send, and the message's response, which comes late.
    let follow!: ReadableStreamDefaultController<Uint8Array>
    let answerMessage!: (response: Response) => void
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL) => {
        const path = new URL(String(input), location.href).pathname
        if (path.endsWith('/stream')) {
          const body = new ReadableStream<Uint8Array>({ start: (c) => void (follow = c) })
          return Promise.resolve(new Response(body))
        }
        return new Promise<Response>((resolve) => (answerMessage = resolve))
      }),
    )
    const live: LiveTiming = { current: undefined }
    const byTurn = new WeakMap<AssistantTurn, AnswerStats>()
    const fetchTimed = timingFetch(live)
    const { store, show } = scriptedStore()
    timeStore(store, live, byTurn)

    const stream = await fetchTimed(`/v1/conversations/${ID}/stream?follow=true`)
    const reader = stream.body!.getReader()
    at(100)
    live.current = { startedAt: 100 }
    const message = fetchTimed(`/v1/conversations/${ID}/messages`, { method: 'POST' })

    // The relay starts the model call (its `turn` event), then the first thinking arrives: both
    // on the follow stream, read by the store as they come.
    at(140)
    follow.enqueue(
      utf8.encode(`id: 4\nevent: turn\ndata: ${JSON.stringify({ turn: QUESTION })}\n\n`),
    )
    await reader.read()
    at(700)
    follow.enqueue(utf8.encode('id: 5\nevent: thinking\ndata: {"text":"Hm."}\n\n'))
    await reader.read()
    show({
      status: 'streaming',
      messages: [
        {
          id: 'm1',
          role: 'assistant',
          text: '',
          thinking: 'Hm.',
          toolCalls: [],
          status: 'streaming',
        },
      ],
    })
    // Only now does the message's own response arrive (a busy relay, a slow connection).
    at(760)
    answerMessage(new Response('', { headers: { 'server-timing': 'relay;dur=12.5' } }))
    await message
    at(900)
    show({
      status: 'ready',
      conversation: { turns: [QUESTION, ANSWER] },
      messages: [
        {
          id: 'm1',
          role: 'assistant',
          text: 'Hello',
          thinking: 'Hm.',
          toolCalls: [],
          status: 'done',
          turn: ANSWER,
        },
      ],
    })

    const stats = byTurn.get(ANSWER)
    expect(stats).toMatchObject({ ttftMs: 600, relayMs: 12.5 })
    // From the turn event to the first event, both on this page's clock, in the order they came.
    expect(stats?.modelMs).toBe(560)
  })

  it("notes the relay's time of an edit, and not that of a message queued meanwhile", async () => {
    const timings = { edit: 'relay;dur=7', messages: 'relay;dur=99' }
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        const route = new URL(String(input), location.href).pathname.split('/').at(-1)!
        const headers = { 'server-timing': timings[route as keyof typeof timings] }
        return route === 'messages'
          ? Response.json({ queued: 1 }, { status: 202, headers })
          : new Response('', { headers })
      }),
    )
    const live: LiveTiming = { current: { startedAt: 0 } }
    const fetchTimed = timingFetch(live)
    await fetchTimed(`/v1/conversations/${ID}/edit`, { method: 'POST' })
    expect(live.current?.relayMs).toBe(7)
    await fetchTimed(`/v1/conversations/${ID}/messages`, { method: 'POST' })
    expect(live.current?.relayMs).toBe(7)
  })

  it("reads how long an answer thought from the relay's turn, and nothing malformed", () => {
    expect(relayThinkingMs({ ...ANSWER, thinkingMs: 1200 })).toBe(1200)
    expect(relayThinkingMs(ANSWER)).toBeUndefined()
    expect(relayThinkingMs({ ...ANSWER, thinkingMs: -5 })).toBeUndefined()
  })
})
