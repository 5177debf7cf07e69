import { describe, expect, it } from 'vitest'
import { relayConversation } from '../../src/client/index.ts'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import { eventually } from '../helpers/eventually.ts'

// A tab that follows a conversation sees what another tab does to it: a regenerate there says in
// its `turn` event that its answer replaces the last one, and here too it takes that one's place;
// a question asked there again, word for word, is a question of its own here too.

const ID = 'c-0123456789abcdef0123'
const QUESTION: Turn = { role: 'user', content: 'Tell me a joke' }
const answer = (text: string): AssistantTurn => ({
  role: 'assistant',
  text,
  usage: { inputTokens: 3, outputTokens: 3 },
  stopReason: 'stop',
})
const FIRST = answer('A first joke.')
const SECOND = answer('A better joke.')

const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * A relay holding `turns` (events up to `lastEventId`) whose follow stream the test writes, a frame
 * at a time. A POST fails as fetch does when the relay took the request but its answer never
 * reached the page; `posts` lists their paths.
 */
function followedRelay(turns: Turn[], lastEventId: number) {
  let write!: ReadableStreamDefaultController<string>
  const follow = new ReadableStream<string>({ start: (controller) => void (write = controller) })
  const posts: string[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input))
    if (url.pathname === `/v1/conversations/${ID}`) {
      return Response.json({ conversation: { turns }, streaming: false, lastEventId })
    }
    if (url.pathname === `/v1/conversations/${ID}/stream`) {
      return new Response(follow.pipeThrough(new TextEncoderStream()), {
        headers: { 'content-type': 'text/event-stream' },
      })
    }
    if (init?.method === 'POST') {
      posts.push(url.pathname)
      throw new TypeError('fetch failed')
    }
    return Response.json(
      { error: { kind: 'not-found', message: 'no such route' } },
      { status: 404 },
    )
  }
  return { fetch, posts, write: (text: string) => write.enqueue(text) }
}

/** A store that follows the conversation's SSE stream through `fetch` (a Node 22 has a WebSocket). */
const follower = (fetch: typeof globalThis.fetch) =>
  relayConversation({
    url: 'http://relay.test',
    model: 'mock/echo',
    id: ID,
    follow: true,
    followOver: 'sse',
    fetch,
  })

/**
 * A relay holding the question and its first answer (events up to id 4), whose follow stream then
 * carries another tab's regenerate: its `turn` event (`replaces` as given), a delta, and `done`,
 * the test letting each go.
 */
function relayWithRegenerate(replaces: boolean) {
  const relay = followedRelay([QUESTION, FIRST], 4)
  const events = [
    frame(5, 'turn', replaces ? { turn: QUESTION, replaces: true } : { turn: QUESTION }),
    frame(6, 'text', { text: 'A better' }),
    frame(7, 'done', { turn: SECOND }),
  ]
  return { fetch: relay.fetch, next: () => relay.write(events.shift()!) }
}

describe('a conversation store that follows another tab', () => {
  it("shows a regenerate's answer in the place of the one it replaces, as it streams and once done", async () => {
    const relay = relayWithRegenerate(true)
    const store = follower(relay.fetch)
    await store.load()
    const texts = () => store.getSnapshot().messages.map((m) => m.text)
    expect(texts()).toEqual(['Tell me a joke', 'A first joke.'])
    relay.next()
    relay.next()
    await eventually(() => store.getSnapshot().status === 'streaming', 'the answer streams')
    await eventually(() => texts().at(-1) === 'A better', 'the delta shows')
    expect(texts()).toEqual(['Tell me a joke', 'A better'])
    relay.next()
    await eventually(() => store.getSnapshot().status === 'ready', 'the answer completes')
    expect(texts()).toEqual(['Tell me a joke', 'A better joke.'])
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, SECOND])
    store.dispose()
  })

  it('adds the same question asked again, and its answer, after the last answer', async () => {
    const relay = relayWithRegenerate(false)
    const store = follower(relay.fetch)
    await store.load()
    relay.next()
    relay.next()
    relay.next()
    await eventually(
      () => store.getSnapshot().conversation.turns.length === 4,
      'the question and its answer are added',
    )
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, FIRST, QUESTION, SECOND])
    store.dispose()
  })
})

describe('a conversation store whose message was accepted though its request failed', () => {
  it('shows the answer the follow stream brings, with no error and nothing to retry', async () => {
    const question: Turn = { role: 'user', content: 'Was this sent?' }
    // The relay takes the message; its answer never reaches the page.
    const relay = followedRelay([], 0)
    const store = follower(relay.fetch)
    await store.load()
    await store.send(question)
    expect(store.getSnapshot().status).toBe('error')
    relay.write(frame(1, 'turn', { turn: question }))
    relay.write(frame(2, 'done', { turn: SECOND }))
    await eventually(() => store.getSnapshot().status === 'ready', 'the answer arrives')
    expect(store.getSnapshot().error).toBeUndefined()
    expect(store.getSnapshot().conversation.turns).toEqual([question, SECOND])
    expect(store.getSnapshot().messages.map((m) => m.text)).toEqual([
      'Was this sent?',
      'A better joke.',
    ])
    expect(relay.posts).toEqual([`/v1/conversations/${ID}/messages`])
    store.dispose()
  })
})
