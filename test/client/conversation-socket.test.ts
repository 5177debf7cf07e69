import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  relayConversation,
  type ConversationSocket,
  type RelayConversationOptions,
} from '../../src/client/index.ts'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import { reconnectFrame } from '../../src/relay/conversations/fan-out.ts'
import { eventually } from '../helpers/eventually.ts'

// A store that follows a conversation holds a WebSocket where it can (the relay's object keeps it
// while it sleeps): a ticket first, with the store's headers, then the socket, whose messages carry
// the follow stream's SSE frames. Whatever ends it but a dispose is a dropped connection, resumed
// as the SSE follower resumes; sockets that cannot open give way to SSE.

const ID = 'c-0123456789abcdef0123'
const QUESTION: Turn = { role: 'user', content: 'Tell me a joke' }
const AGAIN: Turn = { role: 'user', content: 'Another one' }
const answer = (text: string): AssistantTurn => ({
  role: 'assistant',
  text,
  usage: { inputTokens: 3, outputTokens: 3 },
  stopReason: 'stop',
})
const FIRST = answer('A first joke.')
const SECOND = answer('A second joke.')

const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** A socket the test opens, writes to, refuses and drops, as the relay and the network would. */
class FakeSocket implements ConversationSocket {
  onopen: ConversationSocket['onopen'] = null
  onmessage: ConversationSocket['onmessage'] = null
  onclose: ConversationSocket['onclose'] = null
  /** What the store sent. */
  readonly sent: string[] = []
  /** The store closed it. */
  closed = false
  readonly url: string
  constructor(url: string) {
    this.url = url
  }
  send(data: string): void {
    this.sent.push(data)
  }
  close(): void {
    this.closed = true
    // As a browser does, once the closing handshake is done.
    setTimeout(() => this.onclose?.({}), 0)
  }
  open(): void {
    this.onopen?.({})
  }
  /** A message, dropped once the store closed it (a WebSocket that is closing delivers none). */
  receive(text: string): void {
    if (!this.closed) this.onmessage?.({ data: text })
  }
  /** Ends it without the store asking: a refused upgrade before it opened, a drop after. */
  drop(): void {
    this.onclose?.({})
  }
}

/**
 * A relay holding `turns` (events up to `lastEventId`) that gives tickets (or refuses them with
 * `ticketStatus`), and whose follow stream, for a store that falls back to SSE, the test writes.
 * `requests` lists each request as `METHOD path?query`; `sockets` each socket the store made.
 */
function socketRelay(turns: Turn[], lastEventId: number, { ticketStatus = 200 } = {}) {
  const requests: string[] = []
  const authorizations: (string | null)[] = []
  const sockets: FakeSocket[] = []
  let write!: ReadableStreamDefaultController<string>
  const follow = new ReadableStream<string>({ start: (controller) => void (write = controller) })
  let tickets = 0
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'https://chat.example')
    const method = init?.method ?? 'GET'
    requests.push(`${method} ${url.pathname}${url.search}`)
    if (url.pathname === `/v1/conversations/${ID}`) {
      return Response.json({ conversation: { turns }, streaming: false, lastEventId })
    }
    if (method === 'POST' && url.pathname === `/v1/conversations/${ID}/ticket`) {
      authorizations.push(new Headers(init?.headers).get('authorization'))
      if (ticketStatus !== 200) {
        const error = { error: { kind: 'invalid-request', message: 'no such conversation route' } }
        return Response.json(error, { status: ticketStatus })
      }
      return Response.json({ ticket: `t${++tickets}`, expiresInMs: 30_000 })
    }
    if (url.pathname === `/v1/conversations/${ID}/stream`) {
      return new Response(follow.pipeThrough(new TextEncoderStream()), {
        headers: { 'content-type': 'text/event-stream' },
      })
    }
    return Response.json(
      { error: { kind: 'not-found', message: 'no such route' } },
      { status: 404 },
    )
  }
  class Socket extends FakeSocket {
    constructor(url: string) {
      super(url)
      sockets.push(this)
    }
  }
  return {
    fetch,
    Socket,
    requests,
    authorizations,
    sockets,
    /** The socket the store opened last. */
    socket: () => sockets.at(-1)!,
    /** Writes to the SSE follow stream. */
    write: (text: string) => write.enqueue(text),
  }
}

type Relay = ReturnType<typeof socketRelay>

/** A store that follows the conversation on `relay`, told of every read at once. */
const follower = (relay: Relay, options: Partial<RelayConversationOptions> = {}) =>
  relayConversation({
    url: 'http://relay.test',
    model: 'mock/echo',
    id: ID,
    follow: true,
    fetch: relay.fetch,
    WebSocket: relay.Socket,
    headers: { authorization: 'Bearer token-socket' },
    scheduler: (flush) => flush(),
    ...options,
  })

const socketUrl = (ticket: string, lastEventId: number) =>
  `ws://relay.test/v1/conversations/${ID}/socket?ticket=${ticket}&lastEventId=${lastEventId}`

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('a conversation store that follows over a WebSocket', () => {
  it('asks for a ticket with its headers, then shows the answers the socket brings', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    expect(relay.requests).toEqual([
      `GET /v1/conversations/${ID}`,
      `POST /v1/conversations/${ID}/ticket`,
    ])
    expect(relay.authorizations).toEqual(['Bearer token-socket'])
    expect(relay.socket().url).toBe(socketUrl('t1', 4))
    relay.socket().open()
    // Two frames in one message, then the rest of the answer.
    relay.socket().receive(frame(5, 'turn', { turn: AGAIN }) + frame(6, 'text', { text: 'A sec' }))
    relay.socket().receive(frame(7, 'text', { text: 'ond' }))
    await eventually(() => store.getSnapshot().messages.at(-1)?.text === 'A second')
    expect(store.getSnapshot().status).toBe('streaming')
    relay.socket().receive(frame(8, 'done', { turn: SECOND }))
    await eventually(() => store.getSnapshot().status === 'ready', 'the answer completes')
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, FIRST, AGAIN, SECOND])
    // Never the SSE follow stream.
    expect(relay.requests.filter((request) => request.includes('/stream'))).toEqual([])
    store.dispose()
  })

  it('resumes a dropped socket from the last event it saw, with a new ticket, showing each event once', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    const reconnecting: boolean[] = []
    store.subscribe(() => {
      const { reconnecting: now = false } = store.getSnapshot()
      if (reconnecting.at(-1) !== now) reconnecting.push(now)
    })
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    relay.socket().open()
    relay.socket().receive(frame(5, 'turn', { turn: AGAIN }))
    // The runtime's answer to a ping, between two frames: no part of either.
    relay.socket().receive('pong')
    relay.socket().receive(frame(6, 'text', { text: 'A sec' }))
    await eventually(() => store.getSnapshot().status === 'streaming', 'the answer streams')
    relay.socket().drop()
    await eventually(() => relay.sockets.length === 2, 'a new socket is made')
    expect(relay.socket().url).toBe(socketUrl('t2', 6))
    relay.socket().open()
    // The relay replays from the id asked; an event seen already is not shown again.
    relay.socket().receive(frame(6, 'text', { text: 'A sec' }) + frame(7, 'text', { text: 'ond' }))
    relay.socket().receive(frame(8, 'done', { turn: SECOND }))
    await eventually(() => store.getSnapshot().status === 'ready', 'the answer completes')
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, FIRST, AGAIN, SECOND])
    expect(reconnecting).toEqual([false, true, false])
    store.dispose()
  })

  it("takes the conversation of a reset, and resumes after the relay's reconnect", async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    relay.socket().open()
    // Behind what the relay's log holds: the conversation as it is now.
    const now = { turns: [QUESTION, FIRST, AGAIN, SECOND] }
    relay.socket().receive(frame(40, 'reset', { conversation: now, streaming: false }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 4, 'the reset applies')
    expect(store.getSnapshot().conversation).toEqual(now)
    // The relay ends the socket (a reader too far behind), saying so, then closes it.
    relay.socket().receive(reconnectFrame('behind', 40))
    relay.socket().drop()
    await eventually(() => relay.sockets.length === 2, 'a new socket is made')
    expect(relay.socket().url).toBe(socketUrl('t2', 40))
    expect(store.getSnapshot().status).toBe('ready')
    store.dispose()
  })

  it('says ping every 30 s while open, and on dispose closes its socket, stops its timers and opens no other', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    const socket = relay.socket()
    expect(vi.getTimerCount()).toBe(0)
    socket.open()
    vi.advanceTimersByTime(30_000)
    expect(socket.sent).toEqual(['ping'])
    vi.advanceTimersByTime(60_000)
    expect(socket.sent).toEqual(['ping', 'ping', 'ping'])
    store.dispose()
    await eventually(() => socket.closed, 'the socket is closed')
    expect(vi.getTimerCount()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(relay.sockets).toHaveLength(1)
    expect(relay.requests.filter((request) => request.startsWith('POST'))).toHaveLength(1)
    expect(store.getSnapshot().reconnecting).toBe(false)
  })

  it('closes a socket that opens after the store was disposed', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    store.dispose()
    relay.socket().open()
    await eventually(() => relay.socket().closed, 'the socket is closed')
    relay.socket().receive(frame(5, 'turn', { turn: AGAIN }))
    expect(store.getSnapshot().conversation.turns).toEqual([QUESTION, FIRST])
  })

  it('follows over SSE after three sockets that did not open, waiting longer after each', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay)
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    // A refused upgrade: the socket closes before it opens.
    relay.socket().drop()
    // Tried again after a backoff, not at once.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(relay.sockets).toHaveLength(1)
    expect(store.getSnapshot().reconnecting).toBe(true)
    await eventually(() => relay.sockets.length === 2, 'a second socket is made')
    relay.socket().drop()
    await eventually(() => relay.sockets.length === 3, 'a third socket is made')
    expect(relay.socket().url).toBe(socketUrl('t3', 4))
    relay.socket().drop()
    await eventually(
      () => relay.requests.includes(`GET /v1/conversations/${ID}/stream?follow=true&lastEventId=4`),
      'the store follows over SSE',
    )
    expect(relay.sockets).toHaveLength(3)
    relay.write(frame(5, 'turn', { turn: AGAIN }) + frame(6, 'done', { turn: SECOND }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 4, 'the answer shows')
    expect(store.getSnapshot().reconnecting).toBe(false)
    store.dispose()
  })

  it('follows over SSE at once when the relay refuses tickets (a relay without sockets)', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4, { ticketStatus: 404 })
    const store = follower(relay)
    await store.load()
    await eventually(
      () => relay.requests.includes(`GET /v1/conversations/${ID}/stream?follow=true&lastEventId=4`),
      'the store follows over SSE',
    )
    expect(relay.requests).toEqual([
      `GET /v1/conversations/${ID}`,
      `POST /v1/conversations/${ID}/ticket`,
      `GET /v1/conversations/${ID}/stream?follow=true&lastEventId=4`,
    ])
    expect(relay.sockets).toEqual([])
    expect(store.getSnapshot().error).toBeUndefined()
    relay.write(frame(5, 'turn', { turn: AGAIN }) + frame(6, 'done', { turn: SECOND }))
    await eventually(() => store.getSnapshot().conversation.turns.length === 4, 'the answer shows')
    store.dispose()
  })

  it('follows over SSE when told to, and over a socket by default', async () => {
    const relay = socketRelay([QUESTION, FIRST], 4)
    const overSse = follower(relay, { followOver: 'sse' })
    await overSse.load()
    await eventually(
      () => relay.requests.includes(`GET /v1/conversations/${ID}/stream?follow=true&lastEventId=4`),
      'the store follows over SSE',
    )
    expect(relay.requests.filter((request) => request.includes('/ticket'))).toEqual([])
    expect(relay.sockets).toEqual([])
    overSse.dispose()
    const byDefault = follower(relay, { followOver: undefined })
    await byDefault.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    byDefault.dispose()
  })

  it("opens the socket on the page's own origin for url '', over wss from an https page", async () => {
    vi.stubGlobal('location', new URL('https://chat.example/app?c=1'))
    const relay = socketRelay([QUESTION, FIRST], 4)
    const store = follower(relay, { url: '' })
    await store.load()
    await eventually(() => relay.sockets.length === 1, 'the socket is made')
    expect(relay.socket().url).toBe(
      `wss://chat.example/v1/conversations/${ID}/socket?ticket=t1&lastEventId=4`,
    )
    store.dispose()
  })
})
