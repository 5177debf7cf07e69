import { afterEach, describe, expect, it, vi } from 'vitest'
import { costOf, pricingAt, ratesAt, type Pricing } from '../../src/core/pricing.ts'
import { guardStream } from '../../src/kit/guard-stream.ts'
import { mapUsage as anthropicUsage } from '../../src/providers/anthropic/map-finish.ts'
import { anthropicPricing } from '../../src/providers/anthropic/prices.ts'
import { createAnthropic } from '../../src/providers/anthropic/index.ts'
import { createGemini } from '../../src/providers/gemini/index.ts'
import { mapUsage as geminiUsage } from '../../src/providers/gemini/map-finish.ts'
import { geminiPricing } from '../../src/providers/gemini/prices.ts'
import { mapUsage as openaiUsage } from '../../src/providers/openai/map-finish.ts'
import { openaiPricing } from '../../src/providers/openai/prices.ts'
import { createOpenAICompatible } from '../../src/providers/openai-compatible/index.ts'
import { mapUsage as compatibleUsage } from '../../src/providers/openai-compatible/map-finish.ts'
import { presets } from '../../src/providers/openai-compatible/presets.ts'
import type { Usage } from '../../src/core/conversation.ts'

/** A price that must be known, for the arithmetic below. */
function known(pricing: Pricing | undefined): Pricing {
  expect(pricing).toBeDefined()
  return pricing!
}

describe('costOf, against hand-computed figures per provider usage shape', () => {
  it('prices an Anthropic turn with cache reads, 5-minute cache writes and thinking', () => {
    const usage = anthropicUsage({
      input_tokens: 1000,
      cache_read_input_tokens: 20_000,
      cache_creation_input_tokens: 5000,
      output_tokens: 2000,
      output_tokens_details: { thinking_tokens: 1500 },
    })
    // Sonnet 4.5: 1,000 × $3 + 20,000 × $0.30 + 5,000 × $3.75 + 2,000 × $15 (thinking included)
    // = 3,000 + 6,000 + 18,750 + 30,000 = 57,750 micro-dollars.
    expect(costOf(usage, known(anthropicPricing('claude-sonnet-4-5')))).toBe(0.05775)
  })

  it('prices Anthropic cache writes at the 1-hour rate when the call asked for a 1-hour cache', () => {
    const usage = anthropicUsage({
      input_tokens: 1000,
      cache_read_input_tokens: 20_000,
      cache_creation_input_tokens: 5000,
      output_tokens: 2000,
    })
    // 5,000 × $6 instead of × $3.75: 3,000 + 6,000 + 30,000 + 30,000 = 69,000.
    const pricing = known(anthropicPricing('claude-sonnet-4-5-20250929'))
    expect(costOf(usage, pricing, { ttl: '1h' })).toBe(0.069)
    expect(costOf(usage, pricing, true)).toBe(0.05775)
  })

  it('prices an OpenAI Responses turn with cached input and reasoning tokens', () => {
    const usage = openaiUsage({
      input_tokens: 10_000,
      input_tokens_details: { cached_tokens: 8000, cache_write_tokens: 0 },
      output_tokens: 3000,
      output_tokens_details: { reasoning_tokens: 2500 },
      total_tokens: 13_000,
    })
    // gpt-5.4: 2,000 × $2.50 + 8,000 × $0.25 + 3,000 × $15 = 5,000 + 2,000 + 45,000 = 52,000.
    expect(costOf(usage, known(openaiPricing('gpt-5.4')))).toBe(0.052)
    // gpt-5.4-mini: 2,000 × $0.75 + 8,000 × $0.075 + 3,000 × $4.50 = 1,500 + 600 + 13,500.
    expect(costOf(usage, known(openaiPricing('gpt-5.4-mini')))).toBe(0.0156)
  })

  it('prices a Gemini turn whose thoughts are counted apart from its candidates', () => {
    const usage = geminiUsage({
      promptTokenCount: 12_000,
      cachedContentTokenCount: 10_000,
      candidatesTokenCount: 400,
      thoughtsTokenCount: 1600,
    })
    expect(usage.outputTokens).toBe(2000)
    // gemini-3.8-flash, at its promotional price (through 2026-12-31):
    // 2,000 × $0.75 + 10,000 × $0.075 + 2,000 × $3.75 = 1,500 + 750 + 7,500.
    const promotion = Date.parse('2026-12-02T12:00:00Z')
    expect(costOf(usage, known(geminiPricing('gemini-3.8-flash')), undefined, promotion)).toBe(
      0.00975,
    )
    // gemini-3.5-flash has no cache price: cached tokens at the input price (never cheaper).
    // 12,000 × $1.50 + 2,000 × $9 = 18,000 + 18,000.
    expect(costOf(usage, known(geminiPricing('gemini-3.5-flash')), undefined, promotion)).toBe(
      0.036,
    )
  })

  it('prices a DeepSeek turn from its cache-hit count, reasoning inside the completion', () => {
    const usage = compatibleUsage({
      prompt_tokens: 5000,
      prompt_cache_hit_tokens: 4000,
      prompt_cache_miss_tokens: 1000,
      completion_tokens: 1000,
      completion_tokens_details: { reasoning_tokens: 800 },
      total_tokens: 6000,
    })
    const adapter = createOpenAICompatible({ ...presets.deepseek, apiKey: 'k' })(
      'deepseek-reasoner',
    )
    // V4 Flash's list (peak) price: 1,000 × $0.30 + 4,000 × $0.006 + 1,000 × $1.20 = 1,524.
    expect(costOf(usage, known(adapter.capabilities?.pricing))).toBe(0.001524)
  })

  it('bills nothing twice and never a negative fresh input', () => {
    const usage: Usage = {
      inputTokens: 10,
      outputTokens: 0,
      cacheReadTokens: 8,
      cacheWriteTokens: 8,
    }
    // The counts overlap (a provider's mistake): fresh input is 0, not -6.
    expect(costOf(usage, { input: 1_000_000, output: 0, cachedInput: 1, cacheWrite: 2 })).toBe(
      0.000024,
    )
  })
})

describe('model prices', () => {
  it('advertises a price in the capabilities of a priced model, and none for an unknown one', () => {
    const factory = createAnthropic({ apiKey: 'k' })
    expect(factory('claude-haiku-4-5').capabilities?.pricing).toEqual({
      input: 1,
      cacheWrite: 1.25,
      cacheWrite1h: 2,
      cachedInput: 0.1,
      output: 5,
    })
    expect(factory('claude-unknown-9').capabilities).not.toHaveProperty('pricing')
    expect(anthropicPricing('claude-opus-5-5')).toBeUndefined()
    expect(openaiPricing('gpt-5.4-nano')).toBeUndefined()
  })
})

describe('the done turn carries its cost, worked out by the guard', () => {
  const pricing: Pricing = { input: 3, output: 15, cachedInput: 0.3 }
  const usage: Usage = { inputTokens: 1000, outputTokens: 500, cacheReadTokens: 800 }

  async function done(withPricing: Pricing | undefined) {
    const events = guardStream(
      { provider: 'acme', model: 'm', pricing: withPricing },
      async function* () {
        yield { type: 'text', text: 'hi' }
        return { usage, stopReason: 'stop' }
      },
    )
    for await (const event of events) if (event.type === 'done') return event.turn
    throw new Error('no done')
  }

  it('sets usage.cost from the finish record and the price', async () => {
    // 200 × $3 + 800 × $0.30 + 500 × $15 = 600 + 240 + 7,500 = 8,340 micro-dollars.
    expect((await done(pricing)).usage).toEqual({ ...usage, cost: 0.00834 })
  })

  it('sets no cost when the price is unknown', async () => {
    expect((await done(undefined)).usage).not.toHaveProperty('cost')
  })
})

describe('prices that change on a date', () => {
  const usage: Usage = geminiUsage({
    promptTokenCount: 12_000,
    cachedContentTokenCount: 10_000,
    candidatesTokenCount: 400,
    thoughtsTokenCount: 1600,
  })
  const lastPromotionMs = Date.parse('2026-12-31T23:59:59.999Z')
  const firstFullPriceMs = Date.parse('2027-01-01T00:00:00.000Z')
  // The promotion: 2,000 × $0.75 + 10,000 × $0.075 + 2,000 × $3.75 = 9,750 micro-dollars.
  const PROMOTION = 0.00975
  // From 2027-01-01, with no cache price known: 12,000 × $1.50 + 2,000 × $7.50 = 18,000 + 15,000.
  const FULL = 0.033

  afterEach(() => {
    vi.useRealTimers()
  })

  it('bills gemini-3.8-flash at its promotional price to the last millisecond of 2026, then at the full price', () => {
    const pricing = known(geminiPricing('gemini-3.8-flash'))
    expect(costOf(usage, pricing, undefined, lastPromotionMs)).toBe(PROMOTION)
    expect(costOf(usage, pricing, undefined, firstFullPriceMs)).toBe(FULL)
    expect(costOf(usage, pricing, undefined, new Date('2027-06-01T00:00:00Z'))).toBe(FULL)
  })

  it('takes the last change whose day has begun, in UTC', () => {
    const pricing: Pricing = {
      input: 1,
      output: 2,
      changes: [
        { from: '2027-01-01', input: 10, output: 20 },
        { from: '2027-03-01', input: 100, output: 200, cachedInput: 50 },
      ],
    }
    expect(ratesAt(pricing, Date.parse('2026-12-31T23:59:59.999Z')).input).toBe(1)
    expect(ratesAt(pricing, Date.parse('2027-01-01T00:00:00Z')).input).toBe(10)
    // Every change is a whole price list: no cached rate carried over from an earlier one.
    expect(ratesAt(pricing, Date.parse('2027-02-28T23:59:59.999Z'))).toEqual({
      from: '2027-01-01',
      input: 10,
      output: 20,
    })
    expect(ratesAt(pricing, Date.parse('2027-03-01T00:00:00Z')).cachedInput).toBe(50)
    // A day starts at UTC midnight wherever the relay runs: 2026-12-31T23:30 in UTC-5 is 2027.
    expect(ratesAt(pricing, new Date('2026-12-31T23:30:00-05:00')).input).toBe(10)
  })

  it('shows a price as it stands on a day: the rates in force, and only the changes to come', () => {
    const pricing: Pricing = {
      input: 1,
      output: 2,
      changes: [
        { from: '2027-01-01', input: 10, output: 20 },
        { from: '2027-03-01', input: 100, output: 200, cachedInput: 50 },
      ],
    }
    expect(pricingAt(pricing, Date.parse('2026-12-31T23:59:59.999Z'))).toEqual(pricing)
    expect(pricingAt(pricing, Date.parse('2027-01-01T00:00:00Z'))).toEqual({
      input: 10,
      output: 20,
      changes: [{ from: '2027-03-01', input: 100, output: 200, cachedInput: 50 }],
    })
    const later = pricingAt(pricing, Date.parse('2027-03-01T00:00:00Z'))
    expect(JSON.parse(JSON.stringify(later))).toEqual({ input: 100, output: 200, cachedInput: 50 })
  })

  it('refuses a change whose from is not a YYYY-MM-DD day, naming it', () => {
    const pricing: Pricing = {
      input: 1,
      output: 1,
      changes: [{ from: '1/1/2027', input: 2, output: 2 }],
    }
    expect(() => ratesAt(pricing, 0)).toThrow(
      "pricing: a change's from must be a UTC day 'YYYY-MM-DD', got '1/1/2027'",
    )
  })

  it('prices the done turn by the date of the call (clock injected)', async () => {
    const adapter = createGemini({ apiKey: 'k' })('gemini-3.8-flash')
    const pricing = known(adapter.capabilities?.pricing)
    expect(pricing.changes).toEqual([{ from: '2027-01-01', input: 1.5, output: 7.5 }])
    const costAt = async (ms: number) => {
      vi.useFakeTimers({ toFake: ['Date'] })
      vi.setSystemTime(ms)
      const events = guardStream(
        { provider: 'gemini', model: 'gemini-3.8-flash', pricing },
        async function* () {
          yield { type: 'text', text: 'hi' }
          return { usage, stopReason: 'stop' }
        },
      )
      for await (const event of events) if (event.type === 'done') return event.turn.usage.cost
      throw new Error('no done')
    }
    expect(await costAt(lastPromotionMs)).toBe(PROMOTION)
    expect(await costAt(firstFullPriceMs)).toBe(FULL)
  })
})
