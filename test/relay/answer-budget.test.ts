import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Pricing } from '../../src/core/pricing.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { ThinkwireError } from '../../src/core/errors.ts'
import {
  failedEnd,
  reserveAnswer,
  settleAnswer,
  type AnswerReservation,
} from '../../src/relay/answer-budget.ts'
import { memoryRateLimiter } from '../../src/relay/rate-limit.ts'

/** $1,000 per million tokens: a token is $0.001. */
const PRICE: Pricing = { input: 1000, output: 1000 }
const NOW = Date.UTC(2026, 0, 15, 12)

function priced(maxOutputTokens?: number): Adapter {
  const adapter = mock()
  return {
    ...adapter,
    capabilities: { ...adapter.capabilities!, pricing: PRICE, maxOutputTokens },
  }
}

async function admitted(
  limiter: ReturnType<typeof memoryRateLimiter>,
  call: Parameters<typeof reserveAnswer>[2],
): Promise<AnswerReservation> {
  const admission = await reserveAnswer(limiter, 'client', call)
  if (!admission.ok) throw new Error(`refused: ${JSON.stringify(admission.refusal)}`)
  return admission.reservation
}

const spent = async (limiter: ReturnType<typeof memoryRateLimiter>) =>
  (await limiter.spend!('client')).day.spentUsd

describe('the budget of an answer', () => {
  it('reserves what it sends and its output reserve at the model’s prices', async () => {
    const limiter = memoryRateLimiter({ usdPerDay: 100 }, () => NOW)
    // 400 bytes sent (100 tokens) and 50 output tokens.
    const reservation = await admitted(limiter, {
      sentBytes: 400,
      adapter: priced(),
      options: { maxTokens: 50 },
    })
    expect(reservation.estimate).toEqual({ inputTokens: 100, tokens: 150, usd: 0.15 })
    expect(await spent(limiter)).toBe(0.15)
    // Without maxTokens: the model's cap, up to the relay's default reserve of 4,096.
    const capped = await admitted(limiter, { sentBytes: 0, adapter: priced(1000), options: {} })
    expect(capped.estimate.tokens).toBe(1000)
    const uncapped = await admitted(limiter, { sentBytes: 0, adapter: priced(), options: {} })
    expect(uncapped.estimate.tokens).toBe(4096)
  })

  it('settles a complete answer with its own cost, else its usage at the model’s prices', async () => {
    const limiter = memoryRateLimiter({ usdPerDay: 100 }, () => NOW)
    const call = { sentBytes: 400, adapter: priced(), options: { maxTokens: 50 } }
    await settleAnswer(await admitted(limiter, call), {
      usage: { inputTokens: 10, outputTokens: 5, cost: 0.5 },
    })
    expect(await spent(limiter)).toBe(0.5)
    await settleAnswer(await admitted(limiter, call), {
      usage: { inputTokens: 10, outputTokens: 5 },
    })
    expect(await spent(limiter)).toBe(0.515)
  })

  it('settles an answer that ended early at what was reserved, never below what it streamed', async () => {
    const limiter = memoryRateLimiter({ usdPerDay: 100 }, () => NOW)
    const call = { sentBytes: 400, adapter: priced(), options: { maxTokens: 1000 } }
    // 100 input tokens and 40 characters streamed (10 tokens): the provider may have billed
    // thinking it never streamed, so the 1,100 reserved, not 110.
    await settleAnswer(await admitted(limiter, call), { streamedChars: 40 })
    expect(await spent(limiter)).toBe(1.1)
    // 8,000 characters (2,000 tokens) past a reserve of 1,000: what streamed.
    await settleAnswer(await admitted(limiter, call), { streamedChars: 8000 })
    expect(await spent(limiter)).toBe(3.2)
    await settleAnswer(await admitted(limiter, call), { released: true })
    expect(await spent(limiter)).toBe(3.2)
  })

  it('releases a call the model refused with an HTTP error before streaming anything', () => {
    const refused = new ThinkwireError({ kind: 'rate-limit', message: 'busy', status: 429 })
    const lost = new ThinkwireError({ kind: 'network', message: 'fetch failed' })
    expect(failedEnd(refused, 0)).toEqual({ released: true })
    expect(failedEnd(refused, 12)).toEqual({ streamedChars: 12 })
    expect(failedEnd(lost, 0)).toEqual({ streamedChars: 0 })
  })

  it('is refused by a spent budget, naming it, and says when the limiter cannot answer', async () => {
    const limiter = memoryRateLimiter({ usdPerDay: 0.2 }, () => NOW)
    const call = { sentBytes: 400, adapter: priced(), options: { maxTokens: 50 } }
    await admitted(limiter, call)
    const refused = await reserveAnswer(limiter, 'client', call)
    expect(refused).toMatchObject({
      ok: false,
      refusal: { budget: { period: 'day', limitUsd: 0.2 } },
    })
    const down = await reserveAnswer(
      { check: () => Promise.reject(new Error('down')) },
      'client',
      call,
    )
    expect(down).toEqual({ ok: false, refusal: 'unavailable' })
  })
})
