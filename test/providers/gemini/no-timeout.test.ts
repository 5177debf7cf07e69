import { afterEach, describe, expect, it, vi } from 'vitest'
import { gemini } from '../../../src/providers/gemini/index.ts'
import { withoutNodeTimeouts } from '../../../src/providers/gemini/no-timeout.ts'
import { collect, fixture } from './harness.ts'

afterEach(() => vi.unstubAllGlobals())

describe("Node's fetch timeouts", () => {
  it('are lifted per request by a dispatcher that forwards to the global one', () => {
    const init = withoutNodeTimeouts({ method: 'POST' }) as RequestInit & {
      dispatcher?: { dispatch(options: object, handler: unknown): boolean }
    }
    expect(init.method).toBe('POST')
    const key = Symbol.for('undici.globalDispatcher.1')
    const holder = globalThis as { [key]?: unknown }
    const real = holder[key]
    const seen: object[] = []
    holder[key] = { dispatch: (options: object) => seen.push(options) > 0 }
    try {
      init.dispatcher?.dispatch({ path: '/x', headersTimeout: 300_000 }, {})
    } finally {
      holder[key] = real
    }
    expect(seen).toEqual([{ path: '/x', headersTimeout: 0, bodyTimeout: 0 }])
  })

  it("are lifted when the adapter uses the global fetch, and a caller's fetch is left alone", async () => {
    const inits: (RequestInit | undefined)[] = []
    const body = fixture('thinking-then-text.sse')
    vi.stubGlobal('fetch', async (_input: RequestInfo | URL, init?: RequestInit) => {
      inits.push(init)
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    })
    const ask = { turns: [{ role: 'user' as const, content: 'Hallo' }] }
    const events = await collect(
      gemini({ apiKey: 'AIza-test', model: 'gemini-2.5-flash' }).stream(ask),
    )
    expect(events.at(-1)?.type).toBe('done')
    expect(inits).toHaveLength(1)
    expect(inits[0]).toHaveProperty('dispatcher')

    const own: (RequestInit | undefined)[] = []
    const fetch = async (_input: RequestInfo | URL, init?: RequestInit) => {
      own.push(init)
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    }
    await collect(gemini({ apiKey: 'AIza-test', model: 'gemini-2.5-flash', fetch }).stream(ask))
    expect(own[0]).not.toHaveProperty('dispatcher')
  })
})
