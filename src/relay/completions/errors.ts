import type { ErrorKind } from '../../core/errors.ts'
import { jsonErrorResponder, type ErrorResponder } from '../responses.ts'

/** OpenAI's error `type`, worked out from the HTTP status. */
export type CompletionErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'server_error'

/** The body of every error of the Chat Completions endpoint, in OpenAI's shape. */
export type CompletionErrorBody = {
  error: {
    message: string
    type: CompletionErrorType
    code: string | null
    /** The request field at fault, as an OpenAI path (`messages[2].content`), or null. */
    param: string | null
  }
}

/**
 * OpenAI's error `type` for an HTTP status: what the official SDKs and clients branch on.
 * 499 (the client left) and any other 4xx are the request's fault.
 */
export function errorTypeOf(status: number): CompletionErrorType {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 429) return 'rate_limit_error'
  if (status === 504) return 'timeout_error'
  if (status >= 500) return 'server_error'
  return 'invalid_request_error'
}

/** `{ error: { message, type, code, param } }` for a failure of this status and kind. */
export function completionErrorBody(
  status: number,
  kind: ErrorKind,
  message: string,
  param?: string | null,
  code?: string | null,
): CompletionErrorBody {
  const at = param ?? null
  return {
    error: {
      message,
      type: errorTypeOf(status),
      code: code === undefined ? codeOf(status, kind, at) : code,
      param: at,
    },
  }
}

/**
 * A JSON error response in OpenAI's shape: the field at fault is its `param`, and `code` is the
 * one given or worked out. `headers` carries what the caller knows (`www-authenticate`), with
 * `retry-after` added when the wait is known; `content-type` is always `application/json`.
 *
 * @example
 * ```ts
 * completionErrorResponse(429, 'rate-limit', 'rate limit reached for this client', {
 *   retryAfterMs: 3000,
 * })
 * ```
 */
export const completionErrorResponse: ErrorResponder = jsonErrorResponder(
  (status, kind, message, details) =>
    completionErrorBody(status, kind, message, details.field, details.code),
)

/** OpenAI's `code` where it has one that clients look for; `invalid_value` for a field at fault. */
function codeOf(status: number, kind: ErrorKind, param: string | null): string | null {
  if (status === 404 && param === 'model') return 'model_not_found'
  if (status === 401) return 'invalid_api_key'
  if (kind === 'context-length') return 'context_length_exceeded'
  if (kind === 'rate-limit') return 'rate_limit_exceeded'
  if (status === 400 && param !== null) return 'invalid_value'
  return null
}
