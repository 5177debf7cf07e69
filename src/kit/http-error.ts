import { ThinkwireError, type ErrorKind } from '../core/errors.ts'

/** The error kind an HTTP status means, for providers that say nothing more specific. */
export function kindFromStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'auth'
  if (status === 408) return 'timeout'
  if (status === 429) return 'rate-limit'
  if (status === 503 || status === 529) return 'overloaded'
  if (status >= 500) return 'server'
  return 'invalid-request'
}

/** Words providers use when a request is longer than the model's context window. */
const CONTEXT_LENGTH =
  /context[_ ]length|maximum context|context window|exceeds the context|prompt is too long|too many (?:input )?tokens|input token count|exceeds the maximum number of tokens/i
const OVERLOADED = /overloaded|slow down/i

/** Fields of an HTTP failure, for {@link httpError}. */
export type HttpFailure = {
  provider: string
  status: number
  /** The provider's message (it is redacted; it never holds the request). */
  message: string
  headers?: { get(name: string): string | null } | undefined
  /** The kind the provider's own error code says, when it says one. @defaultValue from the status and message */
  kind?: ErrorKind | undefined
  /** @defaultValue from the kind */
  retryable?: boolean | undefined
  cause?: unknown
}

/**
 * The `ThinkwireError` of an HTTP failure, as every adapter builds it: the kind from the
 * provider's code when it has one, else from the status, refined by the message (a 400 about the
 * context window is `context-length`, a 5xx saying "overloaded" is `overloaded`), and
 * `retry-after` (or `retry-after-ms`) as `retryAfterMs`.
 */
export function httpError(failure: HttpFailure): ThinkwireError {
  const { provider, status, message } = failure
  let kind = failure.kind ?? kindFromStatus(status)
  if (kind === 'invalid-request' && CONTEXT_LENGTH.test(message)) kind = 'context-length'
  if (kind === 'server' && OVERLOADED.test(message)) kind = 'overloaded'
  return new ThinkwireError({
    kind,
    message: `${provider}: ${message}`,
    status,
    retryAfterMs: retryAfterMsFromHeaders(failure.headers),
    retryable: failure.retryable,
    provider,
    cause: failure.cause,
  })
}

/** True when a provider's message says the input is longer than the context window. */
export function isContextLengthMessage(message: string): boolean {
  return CONTEXT_LENGTH.test(message)
}

/**
 * Milliseconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date).
 * Returns undefined when neither header holds a usable value.
 */
export function retryAfterMsFromHeaders(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
