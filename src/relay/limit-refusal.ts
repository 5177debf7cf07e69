import { budgetMessage } from './budget.ts'
import type { ErrorResponder } from './dialects.ts'
import type { LimitDecision } from './rate-limit.ts'

/**
 * The 429 of a call the rate limiter refused: over the rate window, or over a dollar budget (the
 * message says which budget and when it resets), with `retry-after` until then. OpenAI's code
 * tells the two apart: `rate_limit_exceeded`, or `insufficient_quota` for a spent budget.
 */
export function limitRefusal(
  decision: Exclude<LimitDecision, { ok: true }>,
  error: ErrorResponder,
): Response {
  const budget = 'budget' in decision
  const message = budget ? budgetMessage(decision) : 'rate limit reached for this client'
  return error(429, 'rate-limit', message, {
    retryable: true,
    retryAfterMs: decision.retryAfterMs,
    code: budget ? 'insufficient_quota' : 'rate_limit_exceeded',
  })
}
