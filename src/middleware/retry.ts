import type { Adapter } from '../core/adapter.ts'
import { isThinkwireError, type ThinkwireError } from '../core/errors.ts'
import { sleep } from '../core/sleep.ts'
import { recoverBeforeFirstEvent } from './before-first-event.ts'
import { forwardIdentity } from './forward-identity.ts'

/** What {@link RetryPolicy.onRetry} is told before each wait. */
export type RetryInfo = {
  /** The failure being retried. */
  error: ThinkwireError
  /** 1 for the first retry, 2 for the second, ... */
  attempt: number
  /** How long the wait before this retry is, in ms. */
  delayMs: number
}

/** How {@link withRetry} retries. */
export type RetryPolicy = {
  /** Retries after the first try. @defaultValue 2 */
  maxRetries?: number | undefined
  /** Upper bound of the first backoff, in ms. @defaultValue 500 */
  initialDelayMs?: number | undefined
  /** Upper bound of any backoff, in ms. @defaultValue 30_000 */
  maxDelayMs?: number | undefined
  /** How much the upper bound grows per retry. @defaultValue 2 */
  factor?: number | undefined
  /**
   * The longest `retryAfterMs` worth waiting for; a provider asking for more gives up at once.
   * @defaultValue 60_000
   */
  maxRetryAfterMs?: number | undefined
  /** Source of jitter, in [0, 1). @defaultValue `Math.random` */
  random?: (() => number) | undefined
  /**
   * Whether to retry this failure (`attempt` is the number the retry would have). `aborted` is
   * never retried, whatever this says.
   * @defaultValue `error.retryable`
   */
  shouldRetry?: ((error: ThinkwireError, attempt: number) => boolean) | undefined
  /** Called before each wait, e.g. to log. */
  onRetry?: ((info: RetryInfo) => void) | undefined
}

/**
 * Wraps an adapter so that a retryable failure before the first event is tried again, after an
 * exponential backoff with full jitter (a random wait up to `initialDelayMs * factor ** n`, capped
 * at `maxDelayMs`), and never sooner than the provider's `retryAfterMs`. The wait ends with an
 * `aborted` error as soon as the caller's signal aborts.
 *
 * Once an event has been yielded, a failure passes through untouched. Retrying then is impossible
 * by design: the caller has already shown part of the turn, and thinkwire never replays a partial
 * turn, so a retry after that point is the caller's call (e.g. `regenerate`).
 *
 * @example
 * ```ts
 * const adapter = withRetry(anthropic({ apiKey, model }), { maxRetries: 3 })
 * ```
 */
export function withRetry(adapter: Adapter, policy: RetryPolicy = {}): Adapter {
  const maxRetries = policy.maxRetries ?? 2
  const maxRetryAfterMs = policy.maxRetryAfterMs ?? 60_000
  const shouldRetry = policy.shouldRetry ?? ((error: ThinkwireError) => error.retryable)
  return {
    ...forwardIdentity(adapter),
    stream(conversation, options = {}) {
      return recoverBeforeFirstEvent(
        () => adapter.stream(conversation, options),
        async (error, index) => {
          const attempt = index + 1
          if (!isThinkwireError(error) || error.kind === 'aborted') throw error
          if (attempt > maxRetries || !shouldRetry(error, attempt)) throw error
          const retryAfterMs = error.retryAfterMs ?? 0
          if (retryAfterMs > maxRetryAfterMs) throw error
          const delayMs = Math.max(retryAfterMs, backoffDelay(attempt, policy))
          policy.onRetry?.({ error, attempt, delayMs })
          await sleep(delayMs, options.signal, adapter.provider)
        },
      )
    },
  }
}

/**
 * The full-jitter backoff before retry number `attempt` (1-based): a random value in
 * `[0, min(maxDelayMs, initialDelayMs * factor ** (attempt - 1)))`.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy = {}): number {
  const { initialDelayMs = 500, maxDelayMs = 30_000, factor = 2, random = Math.random } = policy
  const ceiling = Math.min(maxDelayMs, initialDelayMs * factor ** (attempt - 1))
  return Math.floor(random() * ceiling)
}
