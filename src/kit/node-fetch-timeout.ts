import { providerError, type ThinkwireError } from '../core/errors.ts'

/**
 * The codes of the errors undici, the `fetch` built into Node, fails with when one of its own time
 * limits runs out (documented with undici's errors), by what it was waiting for.
 */
const WAITING_FOR: ReadonlyMap<unknown, string> = new Map([
  ['UND_ERR_HEADERS_TIMEOUT', 'the response headers'],
  ['UND_ERR_BODY_TIMEOUT', 'the next part of the body'],
])

/** How deep in a `cause` chain to look: Node wraps undici's error once, an SDK once more. */
const MAX_DEPTH = 4

/**
 * A `timeout` error for a request that Node's built-in `fetch` gave up on by its own limits (300 s
 * by default, both for the response headers and between two parts of the body), found anywhere
 * in `error`'s `cause` chain; undefined for any other error. A model that thinks a long time
 * without sending anything can reach them: the message says how to allow longer, with a `fetch`
 * of the caller's own. Workers and browsers have no such limits.
 *
 * @example
 * ```ts
 * const mapped = nodeFetchTimeout(error, 'acme') ?? toThinkwireError(error, 'acme')
 * ```
 */
export function nodeFetchTimeout(error: unknown, provider: string): ThinkwireError | undefined {
  let cause = error
  for (let depth = 0; depth < MAX_DEPTH && typeof cause === 'object' && cause !== null; depth++) {
    const waited = WAITING_FOR.get('code' in cause ? cause.code : undefined)
    if (waited !== undefined) {
      const message =
        `Node's fetch stopped waiting for ${waited} (its limit is 300 s unless set otherwise); ` +
        'to give long answers more time, pass the adapter a `fetch` whose dispatcher allows it, ' +
        "such as undici's `Agent({ headersTimeout: 0, bodyTimeout: 0 })`"
      return providerError('timeout', provider, message, error)
    }
    cause = 'cause' in cause ? cause.cause : undefined
  }
  return undefined
}
