import { budgetMessage } from './budget.ts'
import type { ErrorResponder } from './dialects.ts'
import type { LimitDecision, RateLimiter } from './rate-limit.ts'
import { errorResponse } from './responses.ts'

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

/**
 * Counts one request against the client's request rate, at no token cost, as the relay counts a
 * `/v1/chat` request it refuses: the 429 to answer (in `/v1/chat`'s error shape, or the route's
 * `error`, with `retry-after`) when that puts the client over its rate or a spent budget, else undefined. A
 * limiter that fails counts nothing (undefined): the request's own answer stands.
 *
 * @example
 * ```ts
 * const refused = await countRequest(rateLimiter, clientId)
 * if (refused !== undefined) return refused
 * ```
 */
export async function countRequest(
  rateLimiter: RateLimiter | undefined,
  clientId: string,
  error: ErrorResponder = errorResponse,
): Promise<Response | undefined> {
  if (rateLimiter === undefined) return undefined
  try {
    const decision = await rateLimiter.check(clientId, { tokens: 0 })
    return decision.ok ? undefined : limitRefusal(decision, error)
  } catch {
    return undefined
  }
}
