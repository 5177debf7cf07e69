import {
  abortedError,
  isThinkwireError,
  providerError,
  toThinkwireError,
  type ErrorKind,
  type ThinkwireError,
} from '../../../core/errors.ts'
import { httpError } from '../../../kit/http-error.ts'
import { isRecord, type JsonRecord } from '../../../kit/json.ts'
import { nodeFetchTimeout } from '../../../kit/node-fetch-timeout.ts'
import { withRetryInfo, type HeaderSource } from '../retry-info.ts'

/**
 * The HTTP status of each error code of the Interactions API (its error reference lists them:
 * `code` is a word, not a number), and of the `google.rpc` status words some Google front ends
 * still send. An error event inside a stream has no HTTP status: its code gives one.
 */
const STATUS_OF_CODE: ReadonlyMap<string, number> = new Map([
  ['invalid_request', 400],
  ['failed_precondition', 400],
  ['parameter_unknown', 400],
  ['invalid_argument', 400],
  ['authentication', 401],
  ['unauthenticated', 401],
  ['payment_required', 402],
  ['permission_denied', 403],
  ['not_found', 404],
  ['model_not_found', 404],
  ['out_of_range', 416],
  ['rate_limit_exceeded', 429],
  ['quota_exceeded', 429],
  ['resource_exhausted', 429],
  ['cancelled', 499],
  ['api_error', 500],
  ['internal', 500],
  ['unavailable', 503],
  ['overloaded', 503],
  ['deadline_exceeded', 504],
])

/**
 * Maps what `interactions.create()` throws to a `ThinkwireError`. The SDK's Interactions client
 * throws errors of its own (`RateLimitError`, `BadRequestError`, ... with `status`, `headers` and
 * the parsed body as `error`; `APIUserAbortError`; `APIConnectionError` and
 * `APIConnectionTimeoutError`), which its package does not export: they are read by their fields.
 * The body's `error.code` (`rate_limit_exceeded`, `quota_exceeded`, ...) refines the kind, a
 * `retry-after` header or a `google.rpc.RetryInfo` detail becomes `retryAfterMs`, and Node's fetch
 * timeouts are `timeout` errors that say how to allow longer.
 */
export function mapInteractionsError(error: unknown, provider: string): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (!(error instanceof Error)) return toThinkwireError(error, provider)
  if (error.name === 'APIUserAbortError') return abortedError(provider, error)
  const timeout = nodeFetchTimeout(error, provider)
  if (timeout !== undefined) return timeout
  if (error.name === 'APIConnectionTimeoutError')
    return providerError('timeout', provider, 'the request timed out', error)
  if (error.name === 'APIConnectionError')
    return providerError('network', provider, `connection failed: ${error.message}`, error)
  const status = 'status' in error ? error.status : undefined
  if (typeof status !== 'number') return toThinkwireError(error, provider)
  const headers = 'headers' in error && isHeaders(error.headers) ? error.headers : undefined
  return failureOf(provider, status, errorRecord(error), headers, error.message, error)
}

/**
 * The error of an `error` event of the stream (`{ error: { code, message } }`), or of a JSON error
 * body sent in place of the stream: its HTTP status comes from its code.
 */
export function streamError(record: JsonRecord, provider: string): ThinkwireError {
  const code = record['code']
  const status =
    typeof code === 'number' && code >= 400 && code < 600 ? code : (statusOfCode(code) ?? 500)
  return failureOf(provider, status, record, undefined, 'the interaction failed', undefined)
}

function failureOf(
  provider: string,
  status: number,
  body: JsonRecord | undefined,
  headers: HeaderSource | undefined,
  fallback: string,
  cause: unknown,
): ThinkwireError {
  const message = typeof body?.['message'] === 'string' ? body['message'] : fallback
  const code = codeOf(body)
  const said = code === undefined ? '' : ` ${code}`
  return httpError({
    provider,
    status,
    message: `${message} (HTTP ${status}${said})`,
    kind: kindOf(status, code),
    // A daily quota comes back when it resets, not within a retry's wait.
    retryable: code === 'quota_exceeded' ? false : undefined,
    headers: withRetryInfo(body, headers),
    cause,
  })
}

/** The kind the code says where the status alone says something else. */
function kindOf(status: number, code: string | undefined): ErrorKind | undefined {
  if (status === 504 || code === 'deadline_exceeded') return 'timeout'
  return undefined
}

/** The `error` record of the SDK error's parsed body, or of its raw body. */
function errorRecord(error: Error): JsonRecord | undefined {
  const parsed = 'error' in error && isRecord(error.error) ? error.error : parseBody(error)
  const inner = parsed?.['error']
  return isRecord(inner) ? inner : undefined
}

function parseBody(error: Error): JsonRecord | undefined {
  if (!('body' in error) || typeof error.body !== 'string') return undefined
  try {
    const parsed: unknown = JSON.parse(error.body)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The error's code as a lower-case word (`rate_limit_exceeded`), from `code` or `status`. */
function codeOf(body: JsonRecord | undefined): string | undefined {
  for (const value of [body?.['code'], body?.['status']]) {
    if (typeof value !== 'string' || value === '') continue
    // The reference calls the code a URI that identifies the error type: its last segment.
    return (value.split(/[/#]/).at(-1) ?? value).toLowerCase()
  }
  return undefined
}

function statusOfCode(code: unknown): number | undefined {
  if (typeof code !== 'string') return undefined
  return STATUS_OF_CODE.get((code.split(/[/#]/).at(-1) ?? code).toLowerCase())
}

function isHeaders(value: unknown): value is HeaderSource {
  return (
    typeof value === 'object' && value !== null && 'get' in value && typeof value.get === 'function'
  )
}
