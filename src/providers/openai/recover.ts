import { APIError } from 'openai'
import type { BuiltRequest, RequestPlan } from './build-request.ts'

/** What to leave out of a request the API refused, so that a second one goes through. */
export type Recovery = {
  /** The plan of the second request. */
  plan: RequestPlan
  /** What the second request leaves out, for the turn's warnings. */
  warning: string
  /** The model refused encrypted reasoning: not to be asked for it again. */
  refusesEncryptedReasoning?: true
}

/** OpenAI's words when a model does not produce encrypted reasoning (`include` refused). */
const ENCRYPTED_NOT_SUPPORTED = /encrypted content is not supported/i

/**
 * The recovery from `error`, when the API refused `request` (HTTP 400, before anything streamed)
 * for something the request can go without; undefined for any other error. Each recovery turns
 * its part of `plan` off, so none applies twice to one call.
 */
export function recoveryFor(
  error: unknown,
  request: BuiltRequest,
  plan: RequestPlan,
  model: string,
): Recovery | undefined {
  if (!(error instanceof APIError) || error.status !== 400) return undefined
  const include = request.body.include
  if (
    plan.encryptedReasoning !== false &&
    Array.isArray(include) &&
    include.includes('reasoning.encrypted_content') &&
    ENCRYPTED_NOT_SUPPORTED.test(error.message)
  ) {
    return {
      plan: { ...plan, encryptedReasoning: false },
      warning: `reasoning.encrypted_content dropped: ${model} does not take encrypted content`,
      refusesEncryptedReasoning: true,
    }
  }
  return undefined
}
