import { describe, expect, it } from 'vitest'
import * as core from '../../src/core/sliding-window.ts'
import { admit, memoryRateLimiter, settle } from '../../src/relay/rate-limit.ts'

describe('relay rate limit', () => {
  it('offers the sliding window of core under its own names', () => {
    expect(admit).toBe(core.admit)
    expect(settle).toBe(core.settle)
  })
})

describe('memoryRateLimiter', () => {
  it('keeps one window per client', async () => {
    let now = 0
    const limiter = memoryRateLimiter({ requestsPerMinute: 1 }, () => now)
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: true, reservedAt: 0 })
    expect(await limiter.check('b', { tokens: 1 })).toEqual({ ok: true, reservedAt: 0 })
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: false, retryAfterMs: 60_000 })
    now = 60_001
    expect(await limiter.check('a', { tokens: 1 })).toEqual({ ok: true, reservedAt: 60_001 })
  })
})
