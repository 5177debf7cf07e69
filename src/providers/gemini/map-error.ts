import {
  isThinkwireError,
  toThinkwireError,
  type ErrorKind,
  type ThinkwireError,
} from '../../core/errors.ts'
import { httpError } from '../../kit/http-error.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { nodeFetchTimeout } from '../../kit/node-fetch-timeout.ts'
import { errorDetails, withRetryInfo, type HeaderSource } from './retry-info.ts'

/**
 * Maps what the Gemini SDK throws to a `ThinkwireError`. The SDK's `ApiError` carries the HTTP
 * status and, as its message, the JSON error body (`{ error: { code, message, status, details } }`),
 * also for an error object sent in the middle of a stream. A 429's `google.rpc.RetryInfo`
 * `retryDelay` (e.g. `"7s"`) becomes `retryAfterMs`; without one, a `retry-after` header of the
 * response (which a proxy may add) does. Node's fetch timeouts are `timeout` errors that say how to
 * allow longer (see `nodeFetchTimeout`).
 */
export function mapGeminiError(
  error: unknown,
  provider: string,
  headers?: HeaderSource | undefined,
): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (!isApiError(error))
    return nodeFetchTimeout(error, provider) ?? toThinkwireError(error, provider)
  const { status } = error
  const body = errorBody(error.message)
  const message = typeof body?.['message'] === 'string' ? body['message'] : error.message
  const grpc = typeof body?.['status'] === 'string' ? ` ${body['status']}` : ''
  return httpError({
    provider,
    status,
    message: `${message} (HTTP ${status}${grpc})`,
    kind: kindOf(status, body),
    headers: withRetryInfo(body, headers),
    cause: error,
  })
}

/** The SDK's `ApiError` (read by its name, so a second copy of the SDK is recognized too). */
export function isApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error &&
    error.name === 'ApiError' &&
    'status' in error &&
    typeof error.status === 'number'
  )
}

/** The `error` object of the JSON inside the SDK's message, if there is one. */
function errorBody(message: string): JsonRecord | undefined {
  const start = message.indexOf('{')
  if (start < 0) return undefined
  try {
    const parsed: unknown = JSON.parse(message.slice(start))
    return isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined
  } catch {
    return undefined
  }
}

/**
 * The kind Gemini's body says, where the status alone says something else: an invalid key comes
 * as 400, and 504 is a deadline. Undefined: the kit's reading of the status and message.
 */
function kindOf(status: number, body: JsonRecord | undefined): ErrorKind | undefined {
  const keyInvalid = errorDetails(body).some((detail) => detail['reason'] === 'API_KEY_INVALID')
  if (status === 400 && keyInvalid) return 'auth'
  if (status === 504) return 'timeout'
  return undefined
}
