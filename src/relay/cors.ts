/** Which browser origins may call the relay. */
export type CorsOptions = {
  /** Allowed origins (`'https://app.example.com'`), or `'*'` for any. */
  origins: readonly string[] | '*'
  /** How long a browser may cache a preflight answer. @defaultValue 86400 */
  maxAgeSeconds?: number | undefined
}

/** What to do with a request's `Origin`: refuse it, or answer with these headers (maybe none). */
export type CorsDecision = { allowed: false } | { allowed: true; headers: Record<string, string> }

const NONE: CorsDecision = { allowed: true, headers: {} }

/**
 * The request headers a page may send. `last-event-id`: a durable conversation's stream resumes
 * from the last event it saw; `traceparent`, `tracestate`: a page's trace goes on through the relay
 * (W3C Trace Context). Then what the official SDKs send from a browser: the relay token as
 * `x-api-key`, `anthropic-version`, `anthropic-beta` and the opt-in to browser use
 * (`@anthropic-ai/sdk`, to `/v1/messages`); the `x-stainless-*` telemetry both SDKs send
 * (`x-stainless-helper-method` from `responses.stream()`, `x-stainless-timeout` when a timeout is
 * set), and their `user-agent` (which Firefox lets a page set): a preflight that leaves one out
 * fails the call.
 */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'last-event-id',
  'traceparent',
  'tracestate',
  'x-api-key',
  'anthropic-version',
  'anthropic-beta',
  'anthropic-dangerous-direct-browser-access',
  'x-stainless-arch',
  'x-stainless-helper',
  'x-stainless-helper-method',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
  'user-agent',
].join(', ')

/**
 * Decides on the `Origin` of each request. Requests without one (not from a browser) and
 * same-origin requests (the demo served by the same Worker) need no CORS headers; a cross-origin
 * request is allowed only from a listed origin, and refused otherwise, before any work is done.
 */
export function createCors(options: CorsOptions | undefined) {
  const any = options?.origins === '*'
  const allowed = new Set(any || options === undefined ? [] : options.origins)
  const maxAge = String(options?.maxAgeSeconds ?? 86_400)

  function decide(request: Request, url: URL, preflight: boolean): CorsDecision {
    const origin = request.headers.get('origin')
    if (origin === null || origin === url.origin) return NONE
    if (!any && !allowed.has(origin)) return { allowed: false }
    const headers: Record<string, string> = {
      'access-control-allow-origin': origin,
      vary: 'origin',
      'access-control-expose-headers': 'retry-after, server-timing',
      // Lets the page's own timing API read the relay's `server-timing` too.
      'timing-allow-origin': origin,
    }
    if (preflight) {
      headers['access-control-allow-methods'] = 'GET, POST, PATCH, DELETE, OPTIONS'
      headers['access-control-allow-headers'] = ALLOWED_HEADERS
      headers['access-control-max-age'] = maxAge
    }
    return { allowed: true, headers }
  }
  return { decide }
}
