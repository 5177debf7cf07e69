import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk'
import {
  abortedError,
  isThinkwireError,
  kindFromStatus,
  retryAfterMsFromHeaders,
  ThinkwireError,
  toThinkwireError,
  type ErrorKind,
} from '../../core/errors.ts'

const PROVIDER = 'anthropic'

/** `error.type` values of the API, by the kind they mean (used for errors inside a 200 stream). */
const KIND_BY_TYPE: Readonly<Record<string, ErrorKind>> = {
  invalid_request_error: 'invalid-request',
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'auth',
  not_found_error: 'invalid-request',
  request_too_large: 'invalid-request',
  rate_limit_error: 'rate-limit',
  api_error: 'server',
  timeout_error: 'timeout',
  overloaded_error: 'overloaded',
}

const CONTEXT_LENGTH =
  /prompt is too long|context window|too many (input )?tokens|exceeds? the (maximum )?context/i

/**
 * Maps anything the Anthropic SDK throws to a `ThinkwireError`: HTTP errors by status (refined by
 * the body's `error.type`), errors sent inside the stream by their `error.type`, a too-long prompt
 * to `context-length`, connection failures to `network`, an abort to `aborted`. `retry-after`
 * becomes `retryAfterMs`. The SDK error is kept as `cause`.
 */
export function mapAnthropicError(error: unknown): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (error instanceof APIUserAbortError) return abortedError(PROVIDER, error)
  if (error instanceof APIConnectionTimeoutError)
    return new ThinkwireError({
      kind: 'timeout',
      message: `${PROVIDER}: the request timed out`,
      provider: PROVIDER,
      cause: error,
    })
  if (error instanceof APIConnectionError)
    return new ThinkwireError({
      kind: 'network',
      message: `${PROVIDER}: connection failed: ${error.message}`,
      provider: PROVIDER,
      cause: error,
    })
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined
    const type = error.type ?? undefined
    const message = error.apiMessage ?? error.message
    let kind: ErrorKind =
      type !== undefined && Object.hasOwn(KIND_BY_TYPE, type)
        ? KIND_BY_TYPE[type]!
        : status !== undefined
          ? kindFromStatus(status)
          : 'server'
    if (status === 504) kind = 'timeout'
    if (status === 529) kind = 'overloaded'
    if (kind === 'invalid-request' && CONTEXT_LENGTH.test(message)) kind = 'context-length'
    const retryAfterMs = retryAfterMsFromHeaders(error.headers)
    // A spend cap answers 429 without retry-after, and waiting does not lift it.
    const retryable =
      kind === 'rate-limit' && error.errorCode !== null && retryAfterMs === undefined
        ? false
        : undefined
    return new ThinkwireError({
      kind,
      message: `${PROVIDER}: ${status === undefined ? '' : `${status} `}${type ?? 'error'}: ${message}`,
      status,
      retryAfterMs,
      retryable,
      provider: PROVIDER,
      cause: error,
    })
  }
  // The stream helper's own complaint about a body that ended before the message did (no chunk at
  // all, or no `message_stop`): the connection ended early, as every other adapter says.
  if (error instanceof AnthropicError && /^(request|stream) ended without/.test(error.message)) {
    return new ThinkwireError({
      kind: 'network',
      message: `${PROVIDER}: the stream ended before the message was complete`,
      provider: PROVIDER,
      cause: error,
    })
  }
  // The stream helper wraps what the body threw (a reset connection is a TypeError) in a bare
  // AnthropicError: judge it by what it wraps.
  if (error instanceof AnthropicError && error.cause !== undefined && error.cause !== error) {
    const inner = mapAnthropicError(error.cause)
    return new ThinkwireError({
      kind: inner.kind,
      message: inner.message,
      provider: PROVIDER,
      cause: error,
    })
  }
  return toThinkwireError(error, PROVIDER)
}
