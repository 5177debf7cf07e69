import { jsonErrorResponder, type ErrorResponder } from '../responses.ts'

/** Anthropic's error `type`: what its SDKs and clients branch on. */
export type MessagesErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error'

/** The body of every error of `/v1/messages`, in Anthropic's shape, and the `data` of an `error` event. */
export type MessagesErrorBody = {
  type: 'error'
  error: { type: MessagesErrorType; message: string }
}

/**
 * Anthropic's error type and HTTP status for one of the relay's statuses. Anthropic answers an
 * overloaded model with 529, so the relay's 503 becomes that; every other status stays. A 4xx of
 * the request's own (405, 408, 415, 499, ...) is an `invalid_request_error`, a 5xx an `api_error`,
 * save 504 (`timeout_error`).
 */
export function anthropicStatus(status: number): { type: MessagesErrorType; status: number } {
  switch (status) {
    case 401:
      return { type: 'authentication_error', status }
    case 403:
      return { type: 'permission_error', status }
    case 404:
      return { type: 'not_found_error', status }
    case 413:
      return { type: 'request_too_large', status }
    case 429:
      return { type: 'rate_limit_error', status }
    case 503:
      return { type: 'overloaded_error', status: 529 }
    case 504:
      return { type: 'timeout_error', status }
  }
  return { type: status >= 500 ? 'api_error' : 'invalid_request_error', status }
}

/** `{ type: 'error', error: { type, message } }` for a failure the relay answers with `status`. */
export function messagesErrorBody(status: number, message: string): MessagesErrorBody {
  return { type: 'error', error: { type: anthropicStatus(status).type, message } }
}

/**
 * A JSON error response in Anthropic's shape, with Anthropic's status for `status` (see
 * {@link anthropicStatus}). `headers` carries what the caller knows (`www-authenticate`), with
 * `retry-after` added when the wait is known; `content-type` is always `application/json`. The
 * log reads its `kind` and `field`, never its message.
 *
 * @example
 * ```ts
 * messagesErrorResponse(429, 'rate-limit', 'rate limit reached for this client', {
 *   retryAfterMs: 3000,
 * })
 * ```
 */
export const messagesErrorResponse: ErrorResponder = jsonErrorResponder(
  (status, _, message) => messagesErrorBody(status, message),
  (status) => anthropicStatus(status).status,
)
