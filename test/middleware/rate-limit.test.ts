import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../src/core/conversation.ts'
import { withRateLimit } from '../../src/middleware/rate-limit.ts'
import { mock } from '../../src/providers/mock/index.ts'
import {
  ask,
  collect,
  doneTurn,
  failure,
  fakeClock,
  plainAdapter,
  someCapabilities,
} from './helpers.ts'

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens })

/** How many waits a second call takes after a first one that leaves 1 token in the window. */
async function waitsWith(tokensPerMinute: number, maxTokens?: number): Promise<number> {
  const clock = fakeClock()
  const inner = mock({ script: [{ text: 'ok', usage: usage(0, 1) }] })
  const adapter = withRateLimit(inner, { tokensPerMinute, ...clock })
  await collect(adapter.stream(ask))
  await collect(adapter.stream(ask, maxTokens === undefined ? {} : { maxTokens }))
  return clock.waits.length
}

describe('withRateLimit', () => {
  it('keeps the provider and model of the adapter it wraps', () => {
    const adapter = withRateLimit(mock({ provider: 'acme', model: 'm1' }))
    expect([adapter.provider, adapter.model]).toEqual(['acme', 'm1'])
  })

  it('exposes the capabilities of the adapter it wraps, and adds none when it has none', async () => {
    const adapter = withRateLimit(plainAdapter('acme', someCapabilities), { requestsPerMinute: 1 })
    expect(adapter.capabilities).toBe(someCapabilities)
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('ok')
    expect('capabilities' in withRateLimit(plainAdapter('acme'))).toBe(false)
  })

  it('rejects a limit that is not a positive number', () => {
    expect(() => withRateLimit(mock(), { requestsPerMinute: 0 })).toThrow(/requestsPerMinute/)
    expect(() => withRateLimit(mock(), { tokensPerMinute: Number.NaN })).toThrow(/tokensPerMinute/)
  })

  it('passes calls straight through while the window has budget', async () => {
    const clock = fakeClock()
    const adapter = withRateLimit(mock({ script: [{ text: 'ok' }] }), {
      requestsPerMinute: 2,
      ...clock,
    })
    await collect(adapter.stream(ask))
    await collect(adapter.stream(ask))
    expect(clock.waits).toEqual([])
  })

  it('waits for a request slot to leave the window and then succeeds', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok' }] })
    const adapter = withRateLimit(inner, { requestsPerMinute: 1, ...clock })
    await collect(adapter.stream(ask))
    clock.advance(15_000)
    const events = await collect(adapter.stream(ask))
    expect(doneTurn(events).text).toBe('ok')
    expect(clock.waits).toEqual([45_000])
    expect(inner.calls).toHaveLength(2)
  })

  it('counts requests in a sliding window, not a fixed one', async () => {
    const clock = fakeClock()
    const adapter = withRateLimit(mock({ script: [{ text: 'ok' }] }), {
      requestsPerMinute: 2,
      ...clock,
    })
    await collect(adapter.stream(ask)) // t = 0
    clock.advance(40_000)
    await collect(adapter.stream(ask)) // t = 40 s
    clock.advance(30_000)
    await collect(adapter.stream(ask)) // t = 70 s: the first left at 60 s
    expect(clock.waits).toEqual([])
    await collect(adapter.stream(ask)) // the second leaves at 100 s
    expect(clock.waits).toEqual([30_000])
  })

  it('waits until enough tokens leave the window', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok', usage: usage(30, 30) }] })
    const adapter = withRateLimit(inner, {
      tokensPerMinute: 100,
      estimateTokens: () => 60,
      ...clock,
    })
    await collect(adapter.stream(ask))
    clock.advance(10_000)
    await collect(adapter.stream(ask))
    expect(clock.waits).toEqual([50_000])
  })

  it('frees budget when the real usage is below the estimate', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok', usage: usage(4, 6) }] })
    const adapter = withRateLimit(inner, {
      tokensPerMinute: 100,
      estimateTokens: () => 80,
      ...clock,
    })
    await collect(adapter.stream(ask))
    await collect(adapter.stream(ask)) // 10 used + 80 estimated fits in 100
    expect(clock.waits).toEqual([])
    await collect(adapter.stream(ask)) // 20 used + 80 estimated fits; nothing waits
    await collect(adapter.stream(ask)) // 30 + 80 does not
    expect(clock.waits).toEqual([60_000])
  })

  it('uses budget when the real usage is above the estimate', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok', usage: usage(50, 45) }] })
    const adapter = withRateLimit(inner, {
      tokensPerMinute: 100,
      estimateTokens: () => 10,
      ...clock,
    })
    await collect(adapter.stream(ask))
    await collect(adapter.stream(ask)) // 95 used + 10 estimated does not fit
    expect(clock.waits).toEqual([60_000])
  })

  it('estimates by default a quarter of the JSON conversation plus maxTokens', async () => {
    const input = Math.ceil(JSON.stringify(ask).length / 4)
    expect(await waitsWith(input + 101, 100)).toBe(0)
    expect(await waitsWith(input + 100, 100)).toBe(1)
    expect(await waitsWith(input + 1025)).toBe(0)
    expect(await waitsWith(input + 1024)).toBe(1)
  })

  it('lets a call larger than the whole budget run alone in an empty window', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok', usage: usage(400, 100) }] })
    const adapter = withRateLimit(inner, { tokensPerMinute: 10, ...clock })
    await collect(adapter.stream(ask))
    await collect(adapter.stream(ask))
    expect(clock.waits).toEqual([60_000])
    expect(inner.calls).toHaveLength(2)
  })

  it('shares one window between concurrent calls through the same wrapper', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok' }] })
    const adapter = withRateLimit(inner, { requestsPerMinute: 2, ...clock })
    const results = await Promise.all([1, 2, 3].map(() => collect(adapter.stream(ask))))
    expect(results.map((events) => doneTurn(events).text)).toEqual(['ok', 'ok', 'ok'])
    expect(clock.waits).toEqual([60_000])
  })

  it('keeps separate windows for separate wrappers', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok' }] })
    const a = withRateLimit(inner, { requestsPerMinute: 1, ...clock })
    const b = withRateLimit(inner, { requestsPerMinute: 1, ...clock })
    await collect(a.stream(ask))
    await collect(b.stream(ask))
    expect(clock.waits).toEqual([])
  })

  it('keeps the estimate of a call that failed in the window', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ fail: { kind: 'server' } }, { text: 'ok' }] })
    const adapter = withRateLimit(inner, {
      tokensPerMinute: 100,
      estimateTokens: () => 60,
      ...clock,
    })
    expect((await failure(adapter.stream(ask))).error).toMatchObject({ kind: 'server' })
    await collect(adapter.stream(ask))
    expect(clock.waits).toEqual([60_000])
  })

  it('throws aborted at once when the signal aborts during a wait', async () => {
    const inner = mock({ script: [{ text: 'ok' }] })
    // The real sleep: the second call would wait a whole minute.
    const adapter = withRateLimit(inner, { requestsPerMinute: 1 })
    await collect(adapter.stream(ask))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const { events, error } = await failure(adapter.stream(ask, { signal: controller.signal }))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'aborted', provider: 'mock' })
    expect(inner.calls).toHaveLength(1)
  })

  it('does not count a call whose signal is already aborted', async () => {
    const clock = fakeClock()
    const inner = mock({ script: [{ text: 'ok' }] })
    const adapter = withRateLimit(inner, { requestsPerMinute: 1, ...clock })
    const controller = new AbortController()
    controller.abort()
    const { error } = await failure(adapter.stream(ask, { signal: controller.signal }))
    expect(error).toMatchObject({ kind: 'aborted' })
    await collect(adapter.stream(ask))
    expect(clock.waits).toEqual([])
    expect(inner.calls).toHaveLength(1)
  })

  it('passes the conversation and options through unchanged', async () => {
    const inner = mock({ script: [{ text: 'ok' }] })
    const conversation: Conversation = { system: 'Be brief.', turns: ask.turns }
    const options = { maxTokens: 5, temperature: 0 }
    await collect(withRateLimit(inner, { requestsPerMinute: 5 }).stream(conversation, options))
    expect(inner.calls[0]?.conversation).toBe(conversation)
    expect(inner.calls[0]?.options).toEqual(options)
  })
})
