// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react'
import { useEffect, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { relayConversation, type RelayConversation } from '../../src/client/index.ts'
import { useConversation, type Scheduler } from '../../src/react/index.ts'
import { eventually } from '../helpers/eventually.ts'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const ID = 'c-0123456789abcdef0123'
const QUESTION = { role: 'user', content: 'Write a lot' } as const
const TOKEN = 'abcd'
const utf8 = new TextEncoder()

const frame = (id: number, event: string, data: unknown) =>
  utf8.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

/**
 * A relay with one conversation whose answer is in flight: `GET /:id` says so, and its stream is
 * written by the test, a read at a time.
 */
function relayWithAnswerInFlight({ unreachable = 0 } = {}) {
  let write!: ReadableStreamDefaultController<Uint8Array>
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      write = controller
    },
  })
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const path = new URL(String(input), 'http://relay.test').pathname
    // The first `unreachable` requests fail as fetch does offline.
    if (unreachable-- > 0) throw new TypeError('Failed to fetch')
    if (path === `/v1/conversations/${ID}`) {
      return Response.json({ conversation: { turns: [QUESTION] }, streaming: true, lastEventId: 1 })
    }
    if (path === `/v1/conversations/${ID}/stream`) {
      return new Response(stream, { headers: { 'content-type': 'text/event-stream' } })
    }
    return Response.json(
      { error: { kind: 'invalid-request', message: 'no such conversation' } },
      { status: 404 },
    )
  })
  return { fetch, write: (bytes: Uint8Array) => write.enqueue(bytes) }
}

function renderConversation(store: RelayConversation) {
  let renders = 0
  const hook = renderHook(() => {
    renders++
    return useConversation(store)
  })
  return { ...hook, renders: () => renders }
}

/**
 * A page that opens the conversation: its store (with `scheduler`, or the default), bound by
 * `useConversation`, loaded and attached to the answer, whose `turn` event has come.
 */
async function openConversation(scheduler?: Scheduler) {
  const relay = relayWithAnswerInFlight()
  const store = relayConversation({
    url: 'http://relay.test',
    model: 'mock/echo',
    id: ID,
    scheduler,
    ...relay,
  })
  const view = renderConversation(store)
  await act(() => store.load())
  relay.write(frame(1, 'turn', { turn: QUESTION }))
  return { relay, store, ...view }
}

const immediate: Scheduler = (flush) => flush()

/** Lets the store read what was written (a few turns of the event loop, inside act). */
const settle = () =>
  act(async () => {
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0))
  })

describe('useConversation', () => {
  it('renders a long answer it attaches to once per animation frame by default, not once per read', async () => {
    const frames: FrameRequestCallback[] = []
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      frames.push(callback)
      return frames.length
    })
    const { relay, store, result, renders } = await openConversation()
    relay.write(frame(2, 'text', { text: TOKEN }))
    await settle()
    expect(result.current.status).toBe('streaming')
    const before = renders()

    // What the answer made before this page came, then a token per read: 300 reads in a frame.
    for (let id = 3; id <= 302; id++) {
      relay.write(frame(id, 'text', { text: TOKEN }))
      if (id % 10 === 0) await settle()
    }
    await settle()
    expect(renders()).toBe(before)
    expect(frames.length).toBeGreaterThan(0)
    await act(async () => frames.splice(0).forEach((callback) => callback(0)))
    expect(renders() - before).toBe(1)
    expect(result.current.messages.at(-1)?.text).toBe(TOKEN.repeat(301))

    // The answer's end is a status change: shown at once, without waiting for a frame.
    const text = TOKEN.repeat(301)
    const turn = { role: 'assistant', text, usage: { inputTokens: 1, outputTokens: 301 } }
    relay.write(frame(303, 'done', { turn: { ...turn, stopReason: 'stop' } }))
    await settle()
    expect(result.current.status).toBe('ready')
    expect(result.current.messages.map((message) => message.text)).toEqual([QUESTION.content, text])
    store.dispose()
  })

  it('stops nothing on unmount: the store reads on, and the next mount shows the answer as it is', async () => {
    const { relay, store, ...first } = await openConversation(immediate)
    relay.write(frame(2, 'text', { text: TOKEN }))
    await settle()
    const { send, stop, regenerate } = first.result.current
    first.rerender()
    // The actions belong to the store: the same functions from one render to the next.
    expect(first.result.current.send).toBe(send)
    expect(first.result.current.stop).toBe(stop)
    expect(first.result.current.regenerate).toBe(regenerate)
    first.unmount()

    relay.write(frame(3, 'text', { text: TOKEN }))
    await settle()
    const second = renderConversation(store)
    expect(second.result.current.status).toBe('streaming')
    expect(second.result.current.messages.at(-1)?.text).toBe(TOKEN.repeat(2))
    // Only the page's first load and the stream it attached to: the remount asked for nothing.
    expect(relay.fetch).toHaveBeenCalledTimes(2)
    store.dispose()
  })

  it('streams an answer in flight in StrictMode, whose effects dispose the store and load it again', async () => {
    const relay = relayWithAnswerInFlight()
    // The README's page: the store made once, loaded by an effect whose cleanup disposes it.
    function usePage() {
      const [store] = useState(() =>
        relayConversation({ url: 'http://relay.test', model: 'mock/echo', id: ID, ...relay }),
      )
      useEffect(() => {
        void store.load()
        return () => store.dispose()
      }, [store])
      return useConversation(store)
    }
    const { result } = renderHook(usePage, { reactStrictMode: true })
    await settle()
    relay.write(frame(1, 'turn', { turn: QUESTION }))
    relay.write(frame(2, 'text', { text: TOKEN }))
    await settle()
    await act(() => new Promise((resolve) => setTimeout(resolve, 40)))
    expect(result.current.status).toBe('streaming')
    expect(result.current.messages.at(-1)?.text).toBe(TOKEN)
    // Loaded twice, attached once: the first load, disposed before it ended, applied nothing.
    const paths = relay.fetch.mock.calls.map(([input]) => new URL(String(input)).pathname)
    expect(paths.filter((path) => path === `/v1/conversations/${ID}`)).toHaveLength(2)
    expect(paths.filter((path) => path.endsWith('/stream'))).toHaveLength(1)
  })

  it('shows a conversation that cannot be loaded as its error, and load() rejects with it', async () => {
    const relay = relayWithAnswerInFlight()
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      id: 'c-deleted-0123456789ab',
      ...relay,
    })
    const { result } = renderConversation(store)
    let thrown: unknown
    await act(() => store.load().catch((error: unknown) => void (thrown = error)))
    expect(result.current.status).toBe('error')
    expect(result.current.error).toBe(thrown)
    expect(result.current.error).toMatchObject({ status: 404, message: 'no such conversation' })
    await act(async () => void store.dismiss())
    expect(result.current.status).toBe('ready')
    expect(result.current.error).toBeUndefined()
    store.dispose()
  })

  it('loads again after a load that could not reach the relay: after a backoff, and when back online', async () => {
    const relay = relayWithAnswerInFlight({ unreachable: 2 })
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      id: ID,
      ...relay,
    })
    const { result } = renderConversation(store)
    await act(() => expect(store.load()).rejects.toMatchObject({ kind: 'network' }))
    expect(result.current.status).toBe('error')
    // The backoff's first try (after 250 ms) fails too; the next would wait 500 ms more.
    await act(() => eventually(() => relay.fetch.mock.calls.length === 2, 'the backoff'))
    expect(result.current.status).toBe('error')
    // Back online: tried again at once, reached, and attached to the answer in flight.
    await act(async () => void window.dispatchEvent(new Event('online')))
    await settle()
    const paths = relay.fetch.mock.calls.map(([input]) => new URL(String(input)).pathname)
    const conversation = `/v1/conversations/${ID}`
    expect(paths).toEqual([conversation, conversation, conversation, `${conversation}/stream`])
    expect(result.current.error).toBeUndefined()
    expect(result.current.messages.map((message) => message.text)).toEqual([QUESTION.content])
    expect(result.current.status).toBe('submitted')
    store.dispose()
  })

  it('tells a store made with an immediate scheduler of every read at once', async () => {
    const { relay, store, result } = await openConversation(immediate)
    for (let id = 2; id <= 4; id++) {
      relay.write(frame(id, 'text', { text: TOKEN }))
      await settle()
      expect(result.current.messages.at(-1)?.text).toBe(TOKEN.repeat(id - 1))
    }
    store.dispose()
  })
  it('keeps what it showed when stopped: the answer stops changing at once, and the relay is told the last event shown', async () => {
    const frames: FrameRequestCallback[] = []
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
      frames.push(callback)
      return frames.length
    })
    const { relay, store, result } = await openConversation()
    relay.write(frame(2, 'text', { text: 'Shown ' }))
    await settle()
    await act(async () => frames.splice(0).forEach((callback) => callback(0)))
    // A piece read, not drawn yet: the stop shows it at once, and keeps it.
    relay.write(frame(3, 'text', { text: 'and read.' }))
    await settle()
    expect(result.current.messages.at(-1)?.text).toBe('Shown ')
    act(() => result.current.stop())
    expect(result.current.messages.at(-1)?.text).toBe('Shown and read.')

    // What the relay sent before the stop reached it is not shown: the answer stays as it was.
    relay.write(frame(4, 'text', { text: ' And more.' }))
    await settle()
    const stops = relay.fetch.mock.calls.filter(([input]) => String(input).includes('/stop'))
    expect(stops.map(([input]) => new URL(String(input)).search)).toEqual(['?lastEventId=3'])
    await act(async () => frames.splice(0).forEach((callback) => callback(0)))
    expect(result.current.messages.at(-1)?.text).toBe('Shown and read.')
    expect(result.current.status).toBe('streaming')

    // Its `done` is the answer kept up to event 3; the next answer is shown as it streams again.
    const stopped = {
      role: 'assistant',
      text: 'Shown and read.',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'aborted',
    }
    relay.write(frame(5, 'done', { turn: stopped }))
    await settle()
    expect(result.current.status).toBe('ready')
    expect(result.current.messages.at(-1)).toMatchObject({
      text: 'Shown and read.',
      status: 'stopped',
    })
    relay.write(frame(6, 'turn', { turn: { role: 'user', content: 'From another tab' } }))
    relay.write(frame(7, 'text', { text: 'Hi' }))
    await settle()
    await act(async () => frames.splice(0).forEach((callback) => callback(0)))
    expect(result.current.messages.at(-1)?.text).toBe('Hi')
    store.dispose()
  })
})
