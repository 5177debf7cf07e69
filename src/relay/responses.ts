import type { ErrorKind } from '../core/errors.ts'

/** Headers of every SSE response. `identity` keeps runtimes and proxies from buffering to compress. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'content-encoding': 'identity',
  'x-accel-buffering': 'no',
}

/** Extra fields of an error body. */
export type ErrorDetails = {
  /** The request field at fault. */
  field?: string | undefined
  retryable?: boolean | undefined
  retryAfterMs?: number | undefined
  /**
   * OpenAI's `code`, for a dialect whose errors carry one (`/v1/chat`'s do not).
   * @defaultValue worked out from the status, kind and field
   */
  code?: string | null | undefined
}

const described = new WeakMap<Response, { kind: ErrorKind; field?: string | undefined }>()

/**
 * The kind and field of a response made by {@link errorResponse}, for the log: never its message,
 * which may quote what the client sent.
 */
export function errorOf(
  response: Response,
): { kind: ErrorKind; field?: string | undefined } | undefined {
  return described.get(response)
}

/**
 * An error answer in a dialect's shape: `status`, with `message` and `details` in the body, and
 * `headers` (`www-authenticate`, ...). The log reads its kind and field (see {@link errorOf}).
 */
export type ErrorResponder = (
  status: number,
  kind: ErrorKind,
  message: string,
  details?: ErrorDetails,
  headers?: Record<string, string>,
) => Response

/**
 * An {@link ErrorResponder} that answers JSON, as every dialect does: `body` makes the error's body
 * in the dialect's shape, and `statusOf` the status it answers with for the relay's (the same, by
 * default). `retry-after` is added to the caller's headers when the wait is known, and the kind and
 * field are noted for the log.
 */
export function jsonErrorResponder(
  body: (status: number, kind: ErrorKind, message: string, details: ErrorDetails) => unknown,
  statusOf: (status: number) => number = (status) => status,
): ErrorResponder {
  return (status, kind, message, details = {}, headers = {}) => {
    const json = body(status, kind, message, details)
    const out = withRetryAfter(headers, details.retryAfterMs)
    return describeError(jsonResponse(statusOf(status), json, out), kind, details.field)
  }
}

/** `{ "error": { "kind", "message", ... } }` with `status`, plus `retry-after` when known. */
export const errorResponse: ErrorResponder = jsonErrorResponder((_, kind, message, details) => {
  const error: Record<string, unknown> = { kind, message }
  if (details.field !== undefined) error['field'] = details.field
  if (details.retryable !== undefined) error['retryable'] = details.retryable
  if (details.retryAfterMs !== undefined) error['retryAfterMs'] = details.retryAfterMs
  return { error }
})

/** Notes the kind and field of an error answer for the log (see {@link errorOf}); returns it. */
export function describeError(
  response: Response,
  kind: ErrorKind,
  field?: string | undefined,
): Response {
  described.set(response, field === undefined ? { kind } : { kind, field })
  return response
}

/** `body` as JSON, never cached unless `headers` say how (their `cache-control` wins; JSON stays). */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'cache-control': 'no-store', ...headers, 'content-type': 'application/json' },
  })
}

/** `headers`, with `retry-after` added when `retryAfterMs` is known. */
export function withRetryAfter(
  headers: Record<string, string>,
  retryAfterMs: number | undefined,
): Record<string, string> {
  if (retryAfterMs === undefined) return headers
  return { ...headers, 'retry-after': retryAfterHeader(retryAfterMs) }
}

/** A `retry-after` header value: whole seconds, at least 1. */
export function retryAfterHeader(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)))
}
