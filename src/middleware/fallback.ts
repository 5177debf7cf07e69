import type { Adapter } from '../core/adapter.ts'
import { isThinkwireError, ThinkwireError } from '../core/errors.ts'
import { recoverBeforeFirstEvent } from './before-first-event.ts'
import { forwardIdentity } from './forward-identity.ts'

/** What {@link FallbackOptions.onFallback} is told when the next adapter takes over. */
export type FallbackInfo = {
  /** Why `from` was given up. */
  error: ThinkwireError
  /** The adapter that failed. */
  from: Adapter
  /** The adapter that takes over. */
  to: Adapter
}

/** How {@link withFallback} decides to move on. */
export type FallbackOptions = {
  /**
   * Whether the next adapter should take over after this failure of `failed`. `aborted` never
   * falls back, whatever this says.
   * @defaultValue `error.retryable`
   */
  shouldFallback?: ((error: ThinkwireError, failed: Adapter) => boolean) | undefined
  /** Called when the next adapter takes over, e.g. to log. */
  onFallback?: ((info: FallbackInfo) => void) | undefined
}

/**
 * An adapter that tries `adapters` in order: when one fails before its first event with a
 * retryable error (or one `shouldFallback` accepts), the next one gets the same conversation and
 * options. After the first event a failure passes through untouched. When every adapter failed,
 * the error names each failure and keeps the `kind`, `retryable` and `retryAfterMs` of the last.
 *
 * It reports the primary's `provider`, `model` and `capabilities`; the `done` turn's `items` carry
 * the tag of the adapter that answered, so each adapter's replay policy stays correct on later
 * turns.
 *
 * @example
 * ```ts
 * const adapter = withFallback([anthropic({ apiKey, model }), openai({ apiKey: other, model: 'gpt-5' })])
 * ```
 */
export function withFallback(adapters: readonly Adapter[], options: FallbackOptions = {}): Adapter {
  const primary = adapters[0]
  if (primary === undefined) {
    throw new ThinkwireError({
      kind: 'invalid-request',
      message: 'withFallback: `adapters` must hold at least one adapter, got none',
    })
  }
  const shouldFallback = options.shouldFallback ?? ((error: ThinkwireError) => error.retryable)
  return {
    ...forwardIdentity(primary),
    stream(conversation, callOptions = {}) {
      const failures: { adapter: Adapter; error: ThinkwireError }[] = []
      return recoverBeforeFirstEvent(
        (index) => adapters[index]!.stream(conversation, callOptions),
        (error, index) => {
          const from = adapters[index]!
          if (!isThinkwireError(error) || error.kind === 'aborted') throw error
          if (!shouldFallback(error, from)) throw error
          failures.push({ adapter: from, error })
          const to = adapters[index + 1]
          if (to === undefined) throw allFailed(failures)
          options.onFallback?.({ error, from, to })
        },
      )
    },
  }
}

function allFailed(failures: { adapter: Adapter; error: ThinkwireError }[]): ThinkwireError {
  const last = failures.at(-1)!.error
  if (failures.length === 1) return last
  const each = failures.map(
    ({ adapter, error }) => `${adapter.provider}/${adapter.model}: ${error.kind}: ${error.message}`,
  )
  return new ThinkwireError({
    kind: last.kind,
    retryable: last.retryable,
    retryAfterMs: last.retryAfterMs,
    status: last.status,
    provider: last.provider,
    message: `All ${failures.length} adapters failed: ${each.join('; ')}`,
    cause: last,
  })
}
