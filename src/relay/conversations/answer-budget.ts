import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type { Usage } from '../../core/conversation.ts'
import { costOf, type Pricing } from '../../core/pricing.ts'
import { estimateCall, outputReserveOf, pricedTokens, type CallEstimate } from '../budget.ts'
import type { LimitDecision, RateLimiter } from '../rate-limit.ts'

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
 * Checks an answer of a durable conversation against its client's limits as `POST /v1/chat`
 * checks a call: what it sends (the whole stored conversation and the new turn, `sentBytes`, about
 * 4 bytes a token) plus the output it may produce ({@link outputReserveOf}), priced at the
 * model's rates, so dollar budgets count it.
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

/**
 * Settles a reservation as `POST /v1/chat` does: an answer that completed with its real usage
 * and cost (its own `usage.cost`, else its usage at the model's prices); one that stopped, failed
 * or was deleted with its input and what it streamed (about 4 characters a token); one that
 * never ran (`streamedChars: 0`, `released`) with nothing.
 */
export function settleAnswer(
  reservation: AnswerReservation,
  ended: { usage: Usage } | { streamedChars: number; released?: boolean | undefined },
): Promise<void> {
  const { limiter, clientId, estimate, reservedAt, pricing } = reservation
  let tokens: number
  let usd: number
  if ('usage' in ended) {
    const { usage } = ended
    tokens = usage.inputTokens + usage.outputTokens
    usd = usage.cost ?? (pricing === undefined ? 0 : costOf(usage, pricing, reservation.cache))
  } else if (ended.released === true) {
    tokens = 0
    usd = 0
  } else {
    const streamed = Math.ceil(ended.streamedChars / 4)
    tokens = estimate.inputTokens + streamed
    usd = pricedTokens(estimate.inputTokens, streamed, pricing)
  }
  const usage = { tokens, estimatedTokens: estimate.tokens, usd, estimatedUsd: estimate.usd }
  // Best effort: the limiter keeps the estimate if it cannot be told.
  return Promise.resolve(limiter.report?.(clientId, { ...usage, reservedAt })).catch(() => {})
}
