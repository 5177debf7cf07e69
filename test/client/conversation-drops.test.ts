import { describe, expect, it } from 'vitest'
import { relayConversation } from '../../src/client/index.ts'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import { reconnectFrame } from '../../src/relay/conversations/fan-out.ts'
import { eventually } from '../helpers/eventually.ts'

// An answer's stream ends at its `done` or `error`. One that ends otherwise was dropped, whether
// the relay said so (`reconnect`: a reader too far behind, a delete) or not (a runtime that
// restarted mid-answer closes the stream cleanly): the store resumes from the last event it saw.

const ID = 'c-0123456789abcdef0123'
const QUESTION = { role: 'user', content: 'Write a lot' } as const
const ANSWER: AssistantTurn = {
  role: 'assistant',
  text: 'one two three',
  usage: { inputTokens: 3, outputTokens: 3 },
  stopReason: 'stop',
}

const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** The answer's events, by id: the accepted turn, three deltas, then `done`. */
const EVENTS = [
  frame(1, 'turn', { turn: QUESTION }),
  frame(2, 'text', { text: 'one' }),
  frame(3, 'text', { text: ' two' }),
  frame(4, 'text', { text: ' three' }),
  frame(5, 'done', { turn: ANSWER }),
]

/**
 * A relay whose first answer stream (the message's) sends the events up to id `cut`, then `last`
 * (nothing, or a `reconnect` frame), and ends; a resume gets the events after its `lastEventId`.
 */
function relayThatDrops(cut: number, last = '') {
  const resumedFrom: (string | null)[] = []
  const stream = (text: string) =>
    new Response(text, { headers: { 'content-type': 'text/event-stream' } })
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input))
    if (init?.method === 'POST' && url.pathname === '/v1/conversations') {
      return Response.json({ id: ID }, { status: 201 })
    }
    if (url.pathname === `/v1/conversations/${ID}/messages`) {
      return stream(EVENTS.slice(0, cut).join('') + last)
    }
    if (url.pathname === `/v1/conversations/${ID}/stream`) {
      const after = url.searchParams.get('lastEventId')
      resumedFrom.push(after)
      return stream(EVENTS.slice(Number(after ?? 0)).join(''))
    }
    return Response.json(
      { error: { kind: 'not-found', message: 'no such route' } },
      { status: 404 },
    )
  }
  return { fetch, resumedFrom }
}

describe('a conversation store whose answer stream ends early', () => {
  for (const [how, last] of [
    ['with a reconnect event', reconnectFrame('behind', 3)],
    ['with no word (a runtime that restarted)', ''],
  ] as const) {
    it(`resumes from the last event it saw and shows the whole answer, once: ${how}`, async () => {
      const relay = relayThatDrops(3, last)
      const store = relayConversation({ url: 'http://relay.test', model: 'mock/echo', ...relay })
      // Said while the drop waits to be resumed, and no longer once the relay answers again.
      const reconnecting: boolean[] = []
      store.subscribe(() => {
        const { reconnecting: now = false } = store.getSnapshot()
        if (reconnecting.at(-1) !== now) reconnecting.push(now)
      })
      await store.send('Write a lot')
      await eventually(() => store.getSnapshot().status === 'ready', 'the answer completes')
      expect(reconnecting).toEqual([false, true, false])
      expect(relay.resumedFrom).toEqual(['3'])
      expect(store.getSnapshot().messages.map((m) => m.text)).toEqual([
        'Write a lot',
        'one two three',
      ])
      store.dispose()
    })
  }

  it('ends as before when the stream ends at its done: no resume', async () => {
    const relay = relayThatDrops(EVENTS.length)
    const store = relayConversation({ url: 'http://relay.test', model: 'mock/echo', ...relay })
    await store.send('Write a lot')
    expect(store.getSnapshot().status).toBe('ready')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(relay.resumedFrom).toEqual([])
    store.dispose()
  })
})

describe('a conversation store resumed from before what the relay keeps', () => {
  it('takes the conversation of a reset as it is now, then the answer that follows it', async () => {
    const earlier = { role: 'user', content: 'Earlier' } as const
    const earlierAnswer: AssistantTurn = { ...ANSWER, text: 'Earlier answer' }
    // Its answer's stream is cut after one event; the relay has since trimmed its log.
    const relay = relayThatDrops(2)
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input))
      if (url.pathname !== `/v1/conversations/${ID}/stream`) return relay.fetch(input, init)
      relay.resumedFrom.push(url.searchParams.get('lastEventId'))
      const conversation = { turns: [earlier, earlierAnswer, QUESTION] }
      return new Response(
        frame(40, 'reset', { conversation, streaming: true }) +
          frame(41, 'text', { text: 'one' }) +
          frame(42, 'text', { text: ' two three' }) +
          frame(43, 'done', { turn: ANSWER }),
        { headers: { 'content-type': 'text/event-stream' } },
      )
    }
    const store = relayConversation({ url: 'http://relay.test', model: 'mock/echo', fetch })
    await store.send('Write a lot')
    await eventually(() => store.getSnapshot().status === 'ready', 'the answer completes')
    expect(relay.resumedFrom).toEqual(['2'])
    expect(store.getSnapshot().messages.map((m) => m.text)).toEqual([
      'Earlier',
      'Earlier answer',
      'Write a lot',
      'one two three',
    ])
  })

  it('takes the queue of a reset as it is now: the events that emptied it may be gone', async () => {
    const later = { role: 'user', content: 'Later' } as const
    const relay = relayThatDrops(0)
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input))
      const stream = (text: string) =>
        new Response(text, { headers: { 'content-type': 'text/event-stream' } })
      // Another tab's message is queued; then the answer's stream drops.
      if (url.pathname === `/v1/conversations/${ID}/messages`) {
        return stream(
          EVENTS.slice(0, 2).join('') + frame(3, 'queued', { turn: later, position: 1 }),
        )
      }
      if (url.pathname !== `/v1/conversations/${ID}/stream`) return relay.fetch(input, init)
      // Meanwhile the queued message was sent and answered, and the relay trimmed its log.
      const conversation = { turns: [QUESTION, ANSWER, later, { ...ANSWER, text: 'Then' }] }
      return stream(frame(40, 'reset', { conversation, streaming: false, queue: [] }))
    }
    const store = relayConversation({ url: 'http://relay.test', model: 'mock/echo', fetch })
    const queues: number[] = []
    store.subscribe(() => queues.push(store.getSnapshot().queue.length))
    await store.send('Write a lot')
    await eventually(() => store.getSnapshot().messages.length === 4, 'the reset applies')
    expect(queues).toContain(1)
    expect(store.getSnapshot().queue).toEqual([])
    store.dispose()
  })
})
