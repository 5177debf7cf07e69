/** Options of {@link traceparent}. */
export type TraceparentOptions = {
  /**
   * The trace to join, as 32 lowercase hex digits (e.g. one id for every call of a tool loop, or
   * the page's own trace). @defaultValue a new random trace id
   */
  traceId?: string | undefined
  /**
   * The W3C `sampled` flag: whether this page's own trace is recorded. The relay records its span
   * of the call either way, as a child of this trace. @defaultValue true
   */
  sampled?: boolean | undefined
}

/**
 * A fresh W3C Trace Context `traceparent` value (`00-<trace id>-<span id>-<flags>`): version 00,
 * a random 16-byte trace id (or `options.traceId`), a random 8-byte span id, and the sampled flag.
 * Send it with each relay call and the relay's span continues this trace. Its own export so an app
 * that does not trace bundles none of it.
 *
 * @example
 * ```ts
 * const adapter = relay({ url: '', model: 'mock/echo', headers: () => ({ traceparent: traceparent() }) })
 * ```
 */
export function traceparent(options: TraceparentOptions = {}): string {
  const { traceId = randomId(16), sampled = true } = options
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId)) {
    throw new TypeError(
      `traceparent: traceId must be 32 lowercase hex digits, not all zero, got ${JSON.stringify(traceId)}`,
    )
  }
  return `00-${traceId}-${randomId(8)}-${sampled ? '01' : '00'}`
}

/** `bytes` random bytes as lowercase hex, never all zero (an all-zero id is invalid in W3C). */
function randomId(bytes: number): string {
  for (;;) {
    let hex = ''
    for (const byte of crypto.getRandomValues(new Uint8Array(bytes))) {
      hex += (byte | 256).toString(16).slice(1)
    }
    if (!/^0+$/.test(hex)) return hex
  }
}
