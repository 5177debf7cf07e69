import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { Conversation } from '../core/conversation.ts'
import { abortedError, ThinkwireError } from '../core/errors.ts'
import { sleep as defaultSleep } from '../core/sleep.ts'
import { admit, settle, type RateLimits, type WindowState } from '../core/sliding-window.ts'
import { forwardIdentity } from './forward-identity.ts'

/** Limits and hooks of {@link withRateLimit}. A limit left out is not enforced. */
export type RateLimitOptions = {
  /** Input plus output tokens per 60 s window. @defaultValue no limit */
  tokensPerMinute?: number | undefined
  /** Calls per 60 s window. @defaultValue no limit */
  requestsPerMinute?: number | undefined
  /**
   * The tokens a call will use, guessed before it starts; corrected with the real usage when its
   * `done` arrives.
   * @defaultValue a quarter of the conversation's JSON length, plus `maxTokens` (or 1024)
   */
  estimateTokens?: ((conversation: Conversation, options: CallOptions) => number) | undefined
  /** The clock, in ms. @defaultValue `Date.now` */
  now?: (() => number) | undefined
  /**
   * Waits `ms`; must reject as soon as `signal` aborts.
   * @defaultValue a timer that rejects with an `aborted` error on abort
   */
  sleep?: ((ms: number, signal?: AbortSignal | undefined) => Promise<void>) | undefined
}

const DEFAULT_OUTPUT_TOKENS = 1024

/**
 * Wraps an adapter in a soft, sliding-window (60 s) limit: a call that finds no budget in the
 * window waits until enough earlier calls have left it, then runs. It never fails for being over
 * the limit (it complements the provider's own 429s, which `withRetry` handles). Calls through the
 * same wrapper share one window; separate wrappers share nothing.
 *
 * A call is admitted with its estimate and settled with the real usage (`inputTokens +
 * outputTokens`) when its `done` turn arrives; the window is the relay's (`admit`, `settle`). A
 * call that fails keeps its estimate: the provider may have counted it. Waits end with an
 * `aborted` error as soon as the caller's signal aborts.
 *
 * @example
 * ```ts
 * const adapter = withRateLimit(openai({ apiKey, model }), { tokensPerMinute: 30_000, requestsPerMinute: 50 })
 * ```
 */
export function withRateLimit(adapter: Adapter, options: RateLimitOptions = {}): Adapter {
  checkLimit('tokensPerMinute', options.tokensPerMinute)
  checkLimit('requestsPerMinute', options.requestsPerMinute)
  const limits: RateLimits = {
    tokensPerMinute: options.tokensPerMinute,
    requestsPerMinute: options.requestsPerMinute,
  }
  const window: WindowState = []
  const estimate = options.estimateTokens ?? estimateCallTokens
  const now = options.now ?? Date.now
  const wait =
    options.sleep ??
    ((ms: number, signal?: AbortSignal) => defaultSleep(ms, signal, adapter.provider))

  return {
    ...forwardIdentity(adapter),
    async *stream(conversation, callOptions = {}) {
      const signal = callOptions.signal
      const tokens = estimate(conversation, callOptions)
      for (;;) {
        // Checked before each admission, so a call the caller gave up on is never counted.
        if (signal?.aborted === true) throw abortedError(adapter.provider, signal.reason)
        const decision = admit(window, now(), tokens, limits)
        if (decision.ok) break
        await wait(decision.retryAfterMs, signal)
      }
      for await (const event of adapter.stream(conversation, callOptions)) {
        if (event.type === 'done') {
          const { inputTokens, outputTokens } = event.turn.usage
          settle(window, now(), inputTokens + outputTokens, tokens)
        }
        yield event
      }
    },
  }
}

function estimateCallTokens(conversation: Conversation, options: CallOptions): number {
  const input = Math.ceil(JSON.stringify(conversation).length / 4)
  return input + (options.maxTokens ?? DEFAULT_OUTPUT_TOKENS)
}

function checkLimit(name: string, value: number | undefined): void {
  if (value === undefined || (Number.isFinite(value) && value > 0)) return
  throw new ThinkwireError({
    kind: 'invalid-request',
    message: `withRateLimit: \`${name}\` must be a positive number, got ${value}`,
  })
}
