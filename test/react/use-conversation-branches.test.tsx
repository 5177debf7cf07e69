// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { relayConversation } from '../../src/client/index.ts'
import { useConversation } from '../../src/react/index.ts'
import { eventually } from '../helpers/eventually.ts'

afterEach(cleanup)

const ID = 'c-0123456789abcdef0123'
const QUESTION = { role: 'user', content: 'Tell me a joke' } as const
const ANSWER = {
  role: 'assistant',
  text: 'A joke.',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
  branch: { index: 1, count: 2 },
} as const
const WAITING = { role: 'user', content: 'And another' } as const

/**
 * A relay whose conversation has a regenerated answer and a message in its queue, and whose
 * streams stay open and silent; a switch is refused (409, an answer runs), and `posts` lists what
 * was posted.
 */
function relayWithVersions() {
  const posts: { path: string; body: unknown }[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input)).pathname
    if (path === `/v1/conversations/${ID}`) {
      return Response.json({
        id: ID,
        conversation: { turns: [QUESTION, ANSWER] },
        streaming: false,
        lastEventId: 4,
        queue: [WAITING],
      })
    }
    // Followed (a store whose messages wait in the queue follows it): open, and silent.
    if (path.endsWith('/stream')) {
      return new Response(new ReadableStream(), {
        headers: { 'content-type': 'text/event-stream' },
      })
    }
    posts.push({ path, body: JSON.parse(String(init?.body)) })
    const error = { kind: 'invalid-request', message: 'an answer is in flight: wait for it' }
    return Response.json({ error }, { status: 409 })
  }
  return { fetch, posts }
}

describe('useConversation on a conversation with versions and a queue', () => {
  it("shows each message's branch and the queue, and hands out the store's own actions", async () => {
    const relay = relayWithVersions()
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      id: ID,
      fetch: relay.fetch,
      followOver: 'sse',
    })
    const { result, rerender } = renderHook(() => useConversation(store))
    await act(() => store.load())
    expect(result.current.messages.map((m) => m.branch)).toEqual([undefined, ANSWER.branch])
    expect(result.current.queue).toEqual([WAITING])
    // The store's functions: the same from one render to the next, and needing no `this`.
    const { selectBranch, edit, clearQueue, rename } = result.current
    rerender()
    expect(result.current.selectBranch).toBe(selectBranch)
    expect([edit, clearQueue, rename]).toEqual([store.edit, store.clearQueue, store.rename])

    // A refusal is the error, not a rejection; the page asked for the answer's first version.
    await act(() => selectBranch(1, 0))
    expect(relay.posts).toEqual([
      { path: `/v1/conversations/${ID}/branch`, body: { turn: 1, index: 0 } },
    ])
    await eventually(() => result.current.error !== undefined, 'the refusal shows')
    expect(result.current.error?.message).toBe('an answer is in flight: wait for it')
    expect(result.current.status).toBe('ready')
    store.dispose()
  })
})
