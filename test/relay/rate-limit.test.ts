import { describe, expect, it } from 'vitest'
import * as core from '../../src/core/sliding-window.ts'
import { countRequest } from '../../src/relay/limit-refusal.ts'
import {
  admit,
  clientLimits,
  memoryRateLimiter,
  settle,
  type LimitState,
} from '../../src/relay/rate-limit.ts'

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

describe('clientLimits', () => {
  it('counts one client over a state that comes back from storage as JSON', () => {
    let now = 1_000
    const limits = { requestsPerMinute: 2, usdPerDay: 1 }
    const first = clientLimits(undefined, () => now)
    expect(first.check({ tokens: 10, usd: 0.25 }, limits)).toEqual({ ok: true, reservedAt: 1_000 })
    first.settle({
      tokens: 5,
      estimatedTokens: 10,
      usd: 0.5,
      estimatedUsd: 0.25,
      reservedAt: 1_000,
    })
    const stored: unknown = JSON.parse(JSON.stringify(first.state))
    now = 2_000
    const again = clientLimits(stored as LimitState, () => now)
    expect(again.spend(limits).day).toMatchObject({ spentUsd: 0.5, remainingUsd: 0.5 })
    expect(again.check({ tokens: 1 }, limits)).toEqual({ ok: true, reservedAt: 2_000 })
    expect(again.check({ tokens: 1 }, limits)).toEqual({ ok: false, retryAfterMs: 59_000 })
  })

  it('starts a part of the state that storage does not hold empty', () => {
    const spent = clientLimits(undefined, () => 0)
    spent.check({ tokens: 1, usd: 2 }, {})
    const budgetOnly = clientLimits({ budget: spent.state.budget }, () => 0)
    expect(budgetOnly.state.window).toEqual([])
    expect(budgetOnly.spend({}).month.spentUsd).toBe(2)
  })

  it('expires once its window has emptied and the month it spent in is over', () => {
    let now = 0
    const client = clientLimits(undefined, () => now)
    expect(client.expiresAt({})).toBeUndefined()
    client.check({ tokens: 1 }, {})
    expect(client.expiresAt({})).toBe(60_000)
    expect(client.expiresAt({ windowMs: 1_000 })).toBe(1_000)
    client.check({ tokens: 1, usd: 0.01 }, {})
    expect(client.expiresAt({})).toBe(Date.UTC(1970, 1, 1))
    now = Date.UTC(1970, 1, 1)
    expect(client.expiresAt({})).toBeUndefined()
  })
})

describe('countRequest', () => {
  it('answers a 429 when the request puts the client over its rate, else nothing', async () => {
    const limiter = memoryRateLimiter({ requestsPerMinute: 1 }, () => 0)
    expect(await countRequest(limiter, 'a')).toBeUndefined()
    const refused = await countRequest(limiter, 'a')
    expect(refused?.status).toBe(429)
    expect(refused?.headers.get('retry-after')).toBe('60')
    expect(await refused?.json()).toEqual({
      error: {
        kind: 'rate-limit',
        message: 'rate limit reached for this client',
        retryable: true,
        retryAfterMs: 60_000,
      },
    })
  })

  it('counts nothing without a limiter, or when the limiter fails', async () => {
    expect(await countRequest(undefined, 'a')).toBeUndefined()
    const down = {
      check: () => Promise.reject(new Error('the limiter is down')),
    }
    expect(await countRequest(down, 'a')).toBeUndefined()
  })
})
