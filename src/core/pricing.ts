import type { CacheOptions } from './adapter.ts'
import type { Usage } from './conversation.ts'

/**
 * What a model costs, in US dollars per million tokens. Each provider keeps its models' prices as
 * data in its own folder (`prices.ts`), with the source and date of every price beside it.
 */
export type Pricing = {
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

/** Digits kept: a thousandth of a millionth of a dollar, far below any provider's bill. */
const SCALE = 1e12

/**
 * The US dollar cost of a turn's `usage` at `pricing`. Cache reads and writes are parts of
 * `inputTokens` (see `Usage`), so each input token is billed once, at its own rate; reasoning is
 * part of `outputTokens`. Writes use the 1-hour rate when the call asked for a 1-hour cache.
 *
 * @example
 * ```ts
 * costOf({ inputTokens: 1000, outputTokens: 500, cacheReadTokens: 800 }, { input: 3, output: 15, cachedInput: 0.3 })
 * // (200 × 3 + 800 × 0.3 + 500 × 15) / 1e6 = 0.00834
 * ```
 */
export function costOf(usage: Usage, pricing: Pricing, cache?: CacheOptions | undefined): number {
  const read = usage.cacheReadTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  const fresh = Math.max(0, usage.inputTokens - read - written)
  const write5m = pricing.cacheWrite ?? pricing.input
  const writeRate =
    typeof cache === 'object' && cache.ttl === '1h' ? (pricing.cacheWrite1h ?? write5m) : write5m
  const micro =
    fresh * pricing.input +
    read * (pricing.cachedInput ?? pricing.input) +
    written * writeRate +
    usage.outputTokens * pricing.output
  return Math.round((micro / 1e6) * SCALE) / SCALE
}

/** `capabilities` with `pricing` set when the price is known (left out, not undefined, otherwise). */
export function withPricing<C extends { pricing?: Pricing | undefined }>(
  capabilities: C,
  pricing: Pricing | undefined,
): C {
  return pricing === undefined ? capabilities : { ...capabilities, pricing }
}
