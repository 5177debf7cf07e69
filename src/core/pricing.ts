import type { CacheOptions } from './adapter.ts'
import type { Usage } from './conversation.ts'

/** Rates in US dollars per million tokens, as one price list gives them. */
export type PriceRates = {
  /** Input tokens that neither came from nor went to the prompt cache. */
  input: number
  /** Output tokens, reasoning tokens included (every provider bills them as output). */
  output: number
  /** Input tokens read from the prompt cache. @defaultValue `input` */
  cachedInput?: number | undefined
  /** Input tokens written to the prompt cache (the 5-minute cache, where TTLs differ). @defaultValue `input` */
  cacheWrite?: number | undefined
  /** Input tokens written to the 1-hour cache, where it costs more. @defaultValue `cacheWrite` */
  cacheWrite1h?: number | undefined
}

/** Rates that take over on a date: from `from` (a UTC day, `YYYY-MM-DD`, from its midnight on). */
export type PriceChange = PriceRates & { from: string }

/**
 * What a model costs, in US dollars per million tokens. Each provider keeps its models' prices as
 * data in its own folder (`prices.ts`), with the source and date of every price beside it. A price
 * known to change on a date (a promotion that ends, an announced rise) lists the later rates in
 * `changes`; a call is billed at the rates in force on the day it is made.
 */
export type Pricing = PriceRates & {
  /**
   * Later rates, earliest first: each holds from its `from` day until the next one's; the rates
   * above hold until the first. Every change is a whole price list (an omitted rate takes its
   * default, not the rate before the change).
   */
  changes?: readonly PriceChange[] | undefined
}

/** Digits kept: a thousandth of a millionth of a dollar, far below any provider's bill. */
const SCALE = 1e12

/**
 * The US dollar cost of a turn's `usage` at `pricing`, at the rates in force at `at` (see
 * {@link ratesAt}). Cache reads and writes are parts of `inputTokens` (see `Usage`), so each input
 * token is billed once, at its own rate; reasoning is part of `outputTokens`. Writes use the
 * 1-hour rate when the call asked for a 1-hour cache.
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1000, outputTokens: 500, cacheReadTokens: 800 }, { input: 3, output: 15, cachedInput: 0.3 })
 * // (200 × 3 + 800 × 0.3 + 500 × 15) / 1e6 = 0.00834
 * ```
 */
export function costOf(
  usage: Usage,
  pricing: Pricing,
  cache?: CacheOptions | undefined,
  at: Date | number = Date.now(),
): number {
  const rates = ratesAt(pricing, at)
  const read = usage.cacheReadTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  const fresh = Math.max(0, usage.inputTokens - read - written)
  const write5m = rates.cacheWrite ?? rates.input
  const writeRate =
    typeof cache === 'object' && cache.ttl === '1h' ? (rates.cacheWrite1h ?? write5m) : write5m
  const micro =
    fresh * rates.input +
    read * (rates.cachedInput ?? rates.input) +
    written * writeRate +
    usage.outputTokens * rates.output
  return Math.round((micro / 1e6) * SCALE) / SCALE
}

/**
 * The rates of `pricing` in force at `at` (a `Date` or epoch milliseconds): the last change whose
 * `from` day has begun (UTC), else the base rates. Throws on a `from` that is not a `YYYY-MM-DD`
 * day, so a mistyped date in a price table fails its tests instead of never taking effect.
 */
export function ratesAt(pricing: Pricing, at: Date | number = Date.now()): PriceRates {
  const { changes } = pricing
  if (changes === undefined || changes.length === 0) return pricing
  const now = typeof at === 'number' ? at : at.getTime()
  let rates: PriceRates = pricing
  for (const change of changes) {
    if (now < startOf(change.from)) break
    rates = change
  }
  return rates
}

/**
 * `pricing` as it stands at `at`: the rates in force as its base rates, and only the changes still
 * to come (what `GET /v1/models` shows, so a client reading the base rates reads today's price).
 */
export function pricingAt(pricing: Pricing, at: Date | number = Date.now()): Pricing {
  const { changes } = pricing
  if (changes === undefined || changes.length === 0) return pricing
  const now = typeof at === 'number' ? at : at.getTime()
  const { input, output, cachedInput, cacheWrite, cacheWrite1h } = ratesAt(pricing, now)
  const later = changes.filter((change) => startOf(change.from) > now)
  const current = { input, output, cachedInput, cacheWrite, cacheWrite1h }
  return later.length === 0 ? current : { ...current, changes: later }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** Epoch milliseconds of the UTC midnight that starts `day`. */
function startOf(day: string): number {
  const ms = DAY.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN
  if (Number.isNaN(ms)) {
    throw new TypeError(`pricing: a change's from must be a UTC day 'YYYY-MM-DD', got '${day}'`)
  }
  return ms
}

/** `capabilities` with `pricing` set when the price is known (left out, not undefined, otherwise). */
export function withPricing<C extends { pricing?: Pricing | undefined }>(
  capabilities: C,
  pricing: Pricing | undefined,
): C {
  return pricing === undefined ? capabilities : { ...capabilities, pricing }
}
