/**
 * Bounds for property tests, so that a busy machine runs fewer cases rather than failing: each
 * property's `numRuns` takes 1–2 s or less on a quiet machine, fast-check stops it after
 * {@link PROPERTY_TIME_LIMIT_MS} (a failure found before then is still reported, with its seed),
 * and the test's own timeout is far past that.
 */
import fc from 'fast-check'

/** How long one property may run before fast-check stops it and passes on the runs made. */
export const PROPERTY_TIME_LIMIT_MS = 5_000

/**
 * The timeout of a test that runs properties: well past their time limit, and past what fast-check
 * spends outside it (the first `fc.string({ unit: 'binary' })` of a test file builds its table of
 * every code point: about a second on a quiet machine, several on a busy one).
 */
export const PROPERTY_TEST_TIMEOUT_MS = 60_000

/**
 * fast-check's plugins that stop a property after {@link PROPERTY_TIME_LIMIT_MS}.
 *
 * @example
 * ```ts
 * fc.assert(property, { numRuns: 300, seed: 7, plugins: timeBound() })
 * ```
 */
export function timeBound(): fc.Plugin<unknown>[] {
  return [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS)]
}
