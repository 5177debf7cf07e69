import { APIError } from 'openai'
import type { BuiltRequest, RequestPlan, ResponsesBody } from './build-request.ts'

/** What to leave out of a request the API refused, so that a second one goes through. */
export type Recovery = {
  /** The plan of the second request. */
  plan: RequestPlan
  /** What the second request leaves out, for the turn's warnings. */
  warning: string
  /** The model refused encrypted reasoning: not to be asked for it again. */
  refusesEncryptedReasoning?: true
}

/**
 * The types of the encrypted items in `input` (reasoning and compaction items, which the API
 * decrypts and may fail to verify: a key or organization changed, a summary it no longer reads).
 */
function encryptedItems(input: ResponsesBody['input']): string[] {
  if (!Array.isArray(input)) return []
  return input.flatMap((item) =>
    'type' in item && (item.type === 'reasoning' || item.type === 'compaction') ? [item.type] : [],
  )
}

/** OpenAI's words when a model does not produce encrypted reasoning (`include` refused). */
const ENCRYPTED_NOT_SUPPORTED = /encrypted content is not supported/i

/**
 * The 400 of a model that produces no encrypted reasoning: OpenAI's words, or a server of the
 * Responses API that names `include` and encrypted content in its own.
 */
function refusesEncryptedReasoning(error: APIError): boolean {
  if (ENCRYPTED_NOT_SUPPORTED.test(error.message)) return true
  return error.param === 'include' && /encrypted/i.test(error.message)
}

/**
 * The recovery from `error`, when the API refused `request` for something the request can go
 * without; undefined for any other error. Each recovery turns its part of `plan` off, so none
 * applies twice to one call:
 * - `invalid_encrypted_content`: the encrypted items of earlier turns (reasoning and compaction)
 *   are left out, since the error does not reliably say which one failed; the turns' text and
 *   calls still go, and the stored items are unchanged. The API says it as an HTTP 400, or inside
 *   the stream (an `error` event, or a failed response) once the request was accepted: the
 *   stream's own failure counts only while it has yielded nothing, which the caller sees to.
 * - "Encrypted content is not supported with this model" (HTTP 400): encrypted reasoning is not
 *   asked for.
 */
export function recoveryFor(
  error: unknown,
  request: BuiltRequest,
  plan: RequestPlan,
  model: string,
): Recovery | undefined {
  // An in-stream failure is an `APIError` without a status (see `streamFailure`).
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== undefined))
    return undefined
  if (error.code === 'invalid_encrypted_content' && plan.replayEncrypted !== false) {
    const kinds = encryptedItems(request.body.input)
    if (kinds.length === 0) return undefined
    const named = [...new Set(kinds)].join(' and ')
    return {
      plan: { ...plan, replayEncrypted: false },
      warning: `encrypted items of earlier turns left out (${kinds.length}: ${named}): the API could not verify them (invalid_encrypted_content)`,
    }
  }
  const include = request.body.include
  if (
    error.status === 400 &&
    plan.encryptedReasoning !== false &&
    Array.isArray(include) &&
    include.includes('reasoning.encrypted_content') &&
    refusesEncryptedReasoning(error)
  ) {
    return {
      plan: { ...plan, encryptedReasoning: false },
      warning: `reasoning.encrypted_content dropped: ${model} does not take encrypted content`,
      refusesEncryptedReasoning: true,
    }
  }
  return undefined
}
