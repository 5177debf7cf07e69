import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { Usage } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import { costOf, type Pricing } from '../core/pricing.ts'
import { estimateCall, outputReserveOf, pricedTokens, type CallEstimate } from './budget.ts'
import type { LimitDecision, RateLimiter } from './rate-limit.ts'

/** What the limiter counted for an answer, settled with what it used once it ends. */
export type AnswerReservation = {
  limiter: RateLimiter
  clientId: string
  estimate: CallEstimate
  reservedAt: number | undefined
  pricing: Pricing | undefined
  cache: CallOptions['cache']
}

/** What {@link reserveAnswer} decided: admitted (with what to settle), or refused, and why. */
export type AnswerAdmission =
  | { ok: true; reservation: AnswerReservation }
  | { ok: false; refusal: Exclude<LimitDecision, { ok: true }> | 'unavailable' }

/**
 * Checks an answer against its client's limits, for `POST /v1/chat`, `/v1/chat/completions` and
 * a durable conversation alike: what it sends (`sentBytes`, about 4 bytes a token) plus the output
 * it may produce ({@link outputReserveOf}), priced at the model's rates, so dollar budgets count
 * it.
 */
export async function reserveAnswer(
  limiter: RateLimiter,
  clientId: string,
  call: { sentBytes: number; adapter: Adapter; options: CallOptions },
): Promise<AnswerAdmission> {
  const { adapter, options } = call
  const pricing = adapter.capabilities?.pricing
  const estimate = estimateCall(call.sentBytes, outputReserveOf(adapter, options), pricing)
  let decision: LimitDecision
  try {
    decision = await limiter.check(clientId, { tokens: estimate.tokens, usd: estimate.usd })
  } catch {
    return { ok: false, refusal: 'unavailable' }
  }
  if (!decision.ok) return { ok: false, refusal: decision }
  const reservation = { limiter, clientId, estimate, pricing, cache: options.cache }
  return { ok: true, reservation: { ...reservation, reservedAt: decision.reservedAt } }
}

/** How an answer ended, for {@link settleAnswer}. */
export type AnswerEnd =
  /** It completed, with the provider's own usage. */
  | { usage: Usage }
  /**
   * It ended before `done` (stopped, failed, its client left, its conversation deleted) after
   * streaming this many characters: what the provider bills for it is not known.
   */
  | { streamedChars: number }
  /** It never reached the model, or the model refused it before making anything. */
  | { released: true }

/**
 * How an answer that failed with `error` after streaming `streamedChars` ended: refused (an HTTP
 * error answer, with nothing streamed: the provider made nothing to bill), else ended early.
 */
export function failedEnd(error: ThinkwireError, streamedChars: number): AnswerEnd {
  return error.status !== undefined && streamedChars === 0 ? { released: true } : { streamedChars }
}

/**
 * Settles a reservation once the answer has ended: a complete answer with its real usage and cost
 * (its own `usage.cost`, else its usage at the model's prices); a released one with nothing; and
 * one that ended early, whose real usage is not known (the provider may have thought through
 * thousands of tokens it never streamed), with what was reserved, or with its input and what it
 * streamed (about 4 characters a token) when that is more.
 */
export function settleAnswer(reservation: AnswerReservation, ended: AnswerEnd): Promise<void> {
  const { limiter, clientId, estimate, reservedAt, pricing } = reservation
  let tokens: number
  let usd: number
  if ('usage' in ended) {
    const { usage } = ended
    tokens = usage.inputTokens + usage.outputTokens
    usd = usage.cost ?? (pricing === undefined ? 0 : costOf(usage, pricing, reservation.cache))
  } else if ('released' in ended) {
    tokens = 0
    usd = 0
  } else {
    const streamed = Math.ceil(ended.streamedChars / 4)
    tokens = Math.max(estimate.tokens, estimate.inputTokens + streamed)
    usd = Math.max(estimate.usd, pricedTokens(estimate.inputTokens, streamed, pricing))
  }
  const usage = { tokens, estimatedTokens: estimate.tokens, usd, estimatedUsd: estimate.usd }
  // Best effort: the limiter keeps the estimate if it cannot be told.
  return Promise.resolve(limiter.report?.(clientId, { ...usage, reservedAt })).catch(() => {})
}
