import { describe, expect, it } from 'vitest'
import { admit, memoryRateLimiter, settle, type WindowState } from '../../src/relay/rate-limit.ts'

describe('sliding window', () => {
  it('admits requests up to the limit and says when the oldest leaves the window', () => {
    const state: WindowState = []
    const limits = { requestsPerMinute: 2 }
    expect(admit(state, 1_000, 0, limits)).toEqual({ ok: true })
    expect(admit(state, 5_000, 0, limits)).toEqual({ ok: true })
    expect(admit(state, 10_000, 0, limits)).toEqual({ ok: false, retryAfterMs: 51_000 })
    expect(admit(state, 61_000, 0, limits)).toEqual({ ok: true })
  })

  it('counts tokens and waits until enough of them have left the window', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    expect(admit(state, 0, 60, limits).ok).toBe(true)
    expect(admit(state, 10_000, 30, limits).ok).toBe(true)
    expect(admit(state, 20_000, 20, limits)).toEqual({ ok: false, retryAfterMs: 40_000 })
    expect(admit(state, 20_000, 10, limits).ok).toBe(true)
  })

  it('admits a call larger than the whole budget into an empty window only', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    expect(admit(state, 0, 500, limits).ok).toBe(true)
    expect(admit(state, 1_000, 500, limits)).toEqual({ ok: false, retryAfterMs: 59_000 })
  })

  it('settles with real usage: more is added, less is refunded from the latest entries', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    admit(state, 0, 50, limits)
    settle(state, 1_000, 90, 50)
    expect(admit(state, 2_000, 20, limits).ok).toBe(false)
    const other: WindowState = []
    admit(other, 0, 90, limits)
    settle(other, 1_000, 10, 90)
    expect(admit(other, 2_000, 80, limits).ok).toBe(true)
  })
})

describe('memoryRateLimiter', () => {
  it('keeps one window per client', async () => {
    let now = 0
    const limiter = memoryRateLimiter({ requestsPerMinute: 1 }, () => now)
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: true })
    expect(await limiter.check('b', { tokens: 1 })).toEqual({ ok: true })
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: false, retryAfterMs: 60_000 })
    now = 60_001
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: true })
  })
})
