/**
 * Dollar budgets per client: a call is checked with its priced estimate (input plus reserved
 * output), settled with its real cost, refused with a 429 that names the budget and its reset,
 * and every day (UTC) starts again; `GET /v1/usage` tells the caller its spend.
 */
import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Pricing } from '../../src/core/pricing.ts'
import { guardStream } from '../../src/kit/guard-stream.ts'
import {
  checkBudget,
  emptyBudget,
  reserveBudget,
  settleBudget,
  spendReport,
} from '../../src/relay/budget.ts'
import { createRelay, memoryRateLimiter } from '../../src/relay/index.ts'
import { ask, chat, doneOf, errorBody, streamed } from './helpers.ts'

const NOON = Date.UTC(2026, 11, 2, 12) // 2026-12-02T12:00:00Z
const BEFORE_MIDNIGHT = Date.UTC(2026, 11, 2, 23, 59, 59)
const AFTER_MIDNIGHT = Date.UTC(2026, 11, 3, 0, 0, 1)

describe('budget state', () => {
  it('reserves an estimate, then settles it with the real cost', () => {
    const state = emptyBudget(NOON)
    expect(checkBudget(state, NOON, 0.4, { usdPerDay: 1 })).toBeUndefined()
    reserveBudget(state, NOON, 0.4)
    expect(state).toMatchObject({ dayUsd: 0.4, monthUsd: 0.4 })
    settleBudget(state, NOON + 1000, 0.1, 0.4, NOON)
    expect(state).toMatchObject({ dayUsd: 0.1, monthUsd: 0.1 })
  })

  it('refuses a call whose estimate does not fit, naming the budget and its reset', () => {
    const state = emptyBudget(NOON)
    reserveBudget(state, NOON, 0.7)
    expect(checkBudget(state, NOON, 0.4, { usdPerDay: 1, usdPerMonth: 10 })).toEqual({
      ok: false,
      retryAfterMs: 12 * 3600_000,
      budget: { period: 'day', limitUsd: 1, spentUsd: 0.7, resetsAt: '2026-12-03T00:00:00.000Z' },
    })
    // The month's budget is the one spent when the day's still has room.
    expect(checkBudget(state, NOON, 0.2, { usdPerDay: 1, usdPerMonth: 0.75 })?.budget).toEqual({
      period: 'month',
      limitUsd: 0.75,
      spentUsd: 0.7,
      resetsAt: '2027-01-01T00:00:00.000Z',
    })
    expect(checkBudget(state, NOON, 0.2, { usdPerDay: 1 })).toBeUndefined()
  })

  it('admits a call larger than the whole budget into a period with no spend yet', () => {
    const state = emptyBudget(NOON)
    expect(checkBudget(state, NOON, 5, { usdPerDay: 1 })).toBeUndefined()
    reserveBudget(state, NOON, 5)
    expect(checkBudget(state, NOON, 0, { usdPerDay: 1 })?.budget.period).toBe('day')
  })

  it('starts a new day at midnight UTC, keeping the month', () => {
    const state = emptyBudget(BEFORE_MIDNIGHT)
    reserveBudget(state, BEFORE_MIDNIGHT, 1)
    expect(checkBudget(state, BEFORE_MIDNIGHT, 0, { usdPerDay: 1 })?.retryAfterMs).toBe(1000)
    expect(checkBudget(state, AFTER_MIDNIGHT, 0.5, { usdPerDay: 1 })).toBeUndefined()
    expect(state).toMatchObject({ day: '2026-12-03', dayUsd: 0, month: '2026-12', monthUsd: 1 })
    // A call reserved yesterday and settled today charges today its whole real cost.
    settleBudget(state, AFTER_MIDNIGHT, 0.25, 1, BEFORE_MIDNIGHT)
    expect(state).toMatchObject({ dayUsd: 0.25, monthUsd: 0.25 })
  })

  it('reports the spend, the limit and what is left of each period', () => {
    const state = emptyBudget(NOON)
    reserveBudget(state, NOON, 0.3)
    expect(spendReport(state, NOON, { usdPerDay: 1 })).toEqual({
      day: { spentUsd: 0.3, limitUsd: 1, remainingUsd: 0.7, resetsAt: '2026-12-03T00:00:00.000Z' },
      month: {
        spentUsd: 0.3,
        limitUsd: null,
        remainingUsd: null,
        resetsAt: '2027-01-01T00:00:00.000Z',
      },
    })
  })
})

describe('memoryRateLimiter budgets', () => {
  it('lets only one of two requests at once spend the last of a budget', async () => {
    const limiter = memoryRateLimiter({ usdPerDay: 1 }, () => NOON)
    const first = limiter.check('a', { tokens: 10, usd: 0.6 })
    const second = limiter.check('a', { tokens: 10, usd: 0.6 })
    const [one, two] = await Promise.all([first, second])
    expect(one.ok).toBe(true)
    expect(two).toMatchObject({ ok: false, budget: { period: 'day' } })
    // Another client has its own budget.
    expect((await limiter.check('b', { tokens: 10, usd: 0.6 })).ok).toBe(true)
  })

  it('refuses nothing to the rate window when the budget refused the call', async () => {
    let now = NOON
    const limiter = memoryRateLimiter({ requestsPerMinute: 1, usdPerDay: 1 }, () => now)
    expect((await limiter.check('a', { tokens: 1, usd: 1 })).ok).toBe(true)
    expect(await limiter.check('a', { tokens: 1, usd: 0.1 })).toMatchObject({ ok: false })
    now = AFTER_MIDNIGHT
    // The budget reset, and the refused call above took no place in the window.
    expect((await limiter.check('a', { tokens: 1, usd: 0.1 })).ok).toBe(true)
  })
})

/** A model priced at $1,000 per million input and output tokens ($0.001 a token), for round sums. */
const PRICE: Pricing = { input: 1000, output: 1000 }

/** An adapter that answers with `usage` and carries {@link PRICE}, as a provider adapter does. */
function priced(inputTokens: number, outputTokens: number): Adapter {
  return {
    provider: 'acme',
    model: 'm',
    capabilities: { thinking: { mode: 'none' }, tools: false, json: false, pricing: PRICE },
    stream: (_, options) =>
      guardStream({ provider: 'acme', model: 'm', options, pricing: PRICE }, async function* () {
        yield { type: 'text', text: 'ok' }
        return { usage: { inputTokens, outputTokens }, stopReason: 'stop' }
      }),
  }
}

describe('relay budgets', () => {
  it('puts the cost on the done turn and settles the budget with it', async () => {
    let now = NOON
    const rateLimiter = memoryRateLimiter({ usdPerDay: 1 }, () => now)
    const relay = createRelay({ providers: { acme: [priced(100, 50)] }, rateLimiter })
    const body = { model: 'acme/m', conversation: { turns: ask() }, maxTokens: 100 }
    const turn = doneOf(await streamed(await chat(relay, body)))
    // 150 tokens at $0.001.
    expect(turn.usage.cost).toBe(0.15)
    const usage = await relay.fetch(new Request('http://relay.test/v1/usage'))
    expect(usage.status).toBe(200)
    expect(await usage.json()).toEqual({
      day: {
        spentUsd: 0.15,
        limitUsd: 1,
        remainingUsd: 0.85,
        resetsAt: '2026-12-03T00:00:00.000Z',
      },
      month: {
        spentUsd: 0.15,
        limitUsd: null,
        remainingUsd: null,
        resetsAt: '2027-01-01T00:00:00.000Z',
      },
    })
    now = AFTER_MIDNIGHT
    const next = (await (await relay.fetch(new Request('http://relay.test/v1/usage'))).json()) as {
      day: { spentUsd: number }
    }
    expect(next.day.spentUsd).toBe(0)
  })

  it('refuses a call over the daily budget with a 429 naming it and its reset', async () => {
    const rateLimiter = memoryRateLimiter({ usdPerDay: 0.2 }, () => NOON)
    const relay = createRelay({ providers: { acme: [priced(100, 50)] }, rateLimiter })
    const body = { model: 'acme/m', conversation: { turns: ask() }, maxTokens: 100 }
    await streamed(await chat(relay, body))
    // $0.15 spent; the next call reserves its input (about 20 tokens) and 100 output tokens.
    const refused = await chat(relay, body)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600))
    expect(await errorBody(refused)).toMatchObject({
      kind: 'rate-limit',
      message:
        'the daily budget of $0.2 for this client is spent; it resets at 2026-12-03T00:00:00.000Z',
    })
  })

  it('answers GET /v1/usage with a 404 when the relay keeps no spend', async () => {
    const relay = createRelay({ providers: { acme: [priced(1, 1)] } })
    const response = await relay.fetch(new Request('http://relay.test/v1/usage'))
    expect(response.status).toBe(404)
  })
})

describe('GET /v1/models', () => {
  it("shows each model's prices from its capabilities", async () => {
    const relay = createRelay({ providers: { acme: [priced(1, 1)] } })
    const response = await relay.fetch(new Request('http://relay.test/v1/models'))
    const { models } = (await response.json()) as { models: { id: string; pricing?: Pricing }[] }
    expect(models).toEqual([expect.objectContaining({ id: 'acme/m', pricing: PRICE })])
  })

  it('shows the rates in force today for a price that changed, and the changes still to come', async () => {
    const day = (offset: number) =>
      new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
    const changing: Pricing = {
      input: 1,
      output: 1,
      changes: [
        { from: day(-1), input: 2, output: 3 },
        { from: day(2), input: 4, output: 5 },
      ],
    }
    const base = priced(1, 1)
    const adapter: Adapter = { ...base, capabilities: { ...base.capabilities!, pricing: changing } }
    const relay = createRelay({ providers: { acme: [adapter] } })
    const response = await relay.fetch(new Request('http://relay.test/v1/models'))
    const { models } = (await response.json()) as { models: { pricing?: Pricing }[] }
    expect(models[0]?.pricing).toEqual({
      input: 2,
      output: 3,
      changes: [{ from: day(2), input: 4, output: 5 }],
    })
  })
})
