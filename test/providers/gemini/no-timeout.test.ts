import { afterEach, describe, expect, it, vi } from 'vitest'
import { gemini } from '../../../src/providers/gemini/index.ts'
import { collect, failure, fixture } from './harness.ts'

afterEach(() => vi.unstubAllGlobals())

const ask = { turns: [{ role: 'user' as const, content: 'Hallo' }] }
const adapter = () => gemini({ apiKey: 'AIza-test', model: 'gemini-2.5-flash' })

/** Undici's error for one of its limits, under the `TypeError` Node's fetch wraps it in. */
function nodeFetchError(code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT'): TypeError {
  const cause = Object.assign(new Error('Timeout Error'), { code })
  return new TypeError(code === 'UND_ERR_HEADERS_TIMEOUT' ? 'fetch failed' : 'terminated', {
    cause,
  })
}

describe("Node's fetch limits", () => {
  it('are left to the fetch: the global one gets the request as the SDK made it', async () => {
    const inits: (RequestInit | undefined)[] = []
    const body = fixture('thinking-then-text.sse')
    vi.stubGlobal('fetch', async (_input: RequestInfo | URL, init?: RequestInit) => {
      inits.push(init)
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    })
    const events = await collect(adapter().stream(ask))
    expect(events.at(-1)?.type).toBe('done')
    expect(inits).toHaveLength(1)
    expect(inits[0]).toMatchObject({ method: 'POST' })
    // Nothing added to lift Node's limits: no `dispatcher`, which only undici knows.
    expect(inits[0]).not.toHaveProperty('dispatcher')

    const own: (RequestInit | undefined)[] = []
    const fetch = async (_input: RequestInfo | URL, init?: RequestInit) => {
      own.push(init)
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    }
    await collect(gemini({ apiKey: 'AIza-test', model: 'gemini-2.5-flash', fetch }).stream(ask))
    expect(own).toHaveLength(1)
    expect(inits).toHaveLength(1)
  })

  it('fail a stream whose response headers Node stopped waiting for with a timeout that says what to do', async () => {
    vi.stubGlobal('fetch', async () => {
      throw nodeFetchError('UND_ERR_HEADERS_TIMEOUT')
    })
    const { events, error } = await failure(adapter().stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'timeout', retryable: true, provider: 'gemini' })
    expect((error as Error).message).toContain('the response headers')
    expect((error as Error).message).toContain('pass the adapter a `fetch`')
  })

  it('fail a stream whose body Node stopped waiting for with a timeout, after what arrived', async () => {
    const first = fixture('thinking-then-text.sse').split('\r\n\r\n')[0] + '\r\n\r\n'
    vi.stubGlobal('fetch', async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(first))
        },
        pull(controller) {
          controller.error(nodeFetchError('UND_ERR_BODY_TIMEOUT'))
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    })
    const { events, error } = await failure(adapter().stream(ask))
    expect(events.length).toBeGreaterThan(0)
    expect(events.some((event) => event.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'timeout', provider: 'gemini' })
    expect((error as Error).message).toContain('the next part of the body')
  })

  it('keep any other failure of the fetch a network error', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      })
    })
    const { error } = await failure(adapter().stream(ask))
    expect(error).toMatchObject({ kind: 'network', provider: 'gemini' })
  })
})
