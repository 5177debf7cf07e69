import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk'
import { ThinkwireError, toThinkwireError, type ErrorKind } from '../../core/errors.ts'
import {
  httpError,
  isContextLengthMessage,
  kindFromStatus,
  retryAfterMsFromHeaders,
} from '../../kit/http-error.ts'
import { sdkTransportError } from '../../kit/sdk-error.ts'

const PROVIDER = 'anthropic'
const TRANSPORT_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError }

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

/**
 * Maps anything the Anthropic SDK throws to a `ThinkwireError`: HTTP errors by status (refined by
 * the body's `error.type`), errors sent inside the stream by their `error.type`, a too-long prompt
 * to `context-length`, connection failures to `network`, an abort to `aborted`. `retry-after`
 * becomes `retryAfterMs`. The SDK error is kept as `cause`.
 */
export function mapAnthropicError(error: unknown): ThinkwireError {
  const transport = sdkTransportError(error, PROVIDER, TRANSPORT_ERRORS)
  if (transport !== undefined) return transport
  if (error instanceof APIError) return apiError(error)
  return toThinkwireError(error, PROVIDER)
}

function apiError(error: APIError): ThinkwireError {
  const status = typeof error.status === 'number' ? error.status : undefined
  const type = error.type ?? undefined
  let kind: ErrorKind =
    type !== undefined && Object.hasOwn(KIND_BY_TYPE, type)
      ? KIND_BY_TYPE[type]!
      : status !== undefined
        ? kindFromStatus(status)
        : 'server'
  if (status === 504) kind = 'timeout'
  if (status === 529) kind = 'overloaded'
  const message = `${status === undefined ? '' : `${status} `}${type ?? 'error'}: ${error.apiMessage ?? error.message}`
  const retryAfterMs = retryAfterMsFromHeaders(error.headers)
  // A spend cap answers 429 without retry-after, and waiting does not lift it.
  const retryable =
    kind === 'rate-limit' && error.errorCode !== null && retryAfterMs === undefined
      ? false
      : undefined
  if (status !== undefined) {
    const { headers } = error
    return httpError({
      provider: PROVIDER,
      status,
      message,
      headers,
      kind,
      retryable,
      cause: error,
    })
  }
  // An `error` event inside a 200 stream: there is no status of its own.
  if (kind === 'invalid-request' && isContextLengthMessage(message)) kind = 'context-length'
  return new ThinkwireError({
    kind,
    message: `${PROVIDER}: ${message}`,
    retryAfterMs,
    retryable,
    provider: PROVIDER,
    cause: error,
  })
}
