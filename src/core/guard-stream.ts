import type { CallOptions } from './adapter.ts'
import { abortedError, ThinkwireError, toThinkwireError } from './errors.ts'
import type { Event } from './events.ts'

/** What {@link guardStream} hands the adapter's producer. */
export type StreamContext = {
  /** Aborted when the caller aborts, stops iterating, or the idle timeout fires. Pass it upstream. */
  signal: AbortSignal
  /** Tells the idle timer the upstream is alive (e.g. on a ping that yields no event). */
  touch(): void
}

/** How {@link guardStream} runs a producer. */
export type GuardOptions = {
  provider: string
  options?: CallOptions | undefined
  /** Maps whatever the producer threw to a `ThinkwireError`. @defaultValue `toThinkwireError` */
  mapError?: ((error: unknown) => ThinkwireError) | undefined
}

/**
 * Runs an adapter's raw event producer under the contract every adapter shares: the upstream is
 * aborted when the caller aborts or stops early, empty deltas are dropped, `done` comes exactly once
 * and last, a producer that ends without `done` fails instead of passing for complete, a silent
 * upstream fails with `timeout` after `idleTimeoutMs`, and every failure is a `ThinkwireError`.
 */
export async function* guardStream(
  guard: GuardOptions,
  produce: (context: StreamContext) => AsyncIterable<Event>,
): AsyncGenerator<Event, void, undefined> {
  const { provider, options } = guard
  const outer = options?.signal
  if (outer?.aborted === true) throw abortedError(provider, outer.reason)

  const controller = new AbortController()
  const onAbort = () => controller.abort(outer?.reason)
  outer?.addEventListener('abort', onAbort, { once: true })

  const idleMs = options?.idleTimeoutMs
  let timer: ReturnType<typeof setTimeout> | undefined
  let timedOut = false
  const disarm = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const arm = () => {
    disarm()
    if (idleMs === undefined || idleMs <= 0) return
    timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('idle timeout'))
    }, idleMs)
  }
  const context: StreamContext = {
    signal: controller.signal,
    touch: () => {
      if (timer !== undefined) arm()
    },
  }

  // A producer that ignores its signal must not hang the caller: when there is anything that can
  // abort (the caller's signal or the idle timer), every wait also races the abort.
  const aborted =
    outer !== undefined || (idleMs !== undefined && idleMs > 0)
      ? new Promise<never>((_, reject) => {
          controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
            once: true,
          })
        })
      : undefined
  aborted?.catch(() => {})

  let finished = false
  const iterator = produce(context)[Symbol.asyncIterator]()
  try {
    for (;;) {
      // The timer measures upstream silence only: it runs while we wait for the producer, not
      // while the consumer holds the event.
      arm()
      const next = iterator.next()
      const step = await (aborted === undefined ? next : Promise.race([next, aborted]))
      disarm()
      if (step.done === true) break
      const event = step.value
      if (finished)
        throw new ThinkwireError({
          kind: 'server',
          message: `${provider}: event '${event.type}' after 'done'`,
          provider,
        })
      if ((event.type === 'text' || event.type === 'thinking') && event.text === '') continue
      if (event.type === 'done') finished = true
      yield event
    }
    if (!finished) {
      throw new ThinkwireError({
        kind: 'network',
        message: `${provider}: the stream ended before the turn was complete`,
        provider,
      })
    }
  } catch (error) {
    if (timedOut) {
      throw new ThinkwireError({
        kind: 'timeout',
        message: `${provider}: no data for ${idleMs} ms`,
        provider,
        cause: error,
      })
    }
    // Read again: the signal may have been aborted while we waited.
    if ((outer as AbortSignal | undefined)?.aborted === true) throw abortedError(provider, error)
    throw guard.mapError?.(error) ?? toThinkwireError(error, provider)
  } finally {
    disarm()
    outer?.removeEventListener('abort', onAbort)
    if (!finished) controller.abort(new Error('stream closed'))
    // Let the producer run its own cleanup (its finally blocks) without waiting on a stuck upstream.
    void iterator.return?.()?.catch(() => {})
  }
}

/** Waits `ms`, or rejects with an `aborted` error as soon as `signal` aborts. */
export function sleep(
  ms: number,
  signal?: AbortSignal | undefined,
  provider?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(abortedError(provider, signal.reason))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedError(provider, signal?.reason))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
