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

  const idleMs = options?.idleTimeoutMs ?? 0
  const idleOn = idleMs > 0
  // The timer measures upstream silence only: it runs while we wait for the producer, not while
  // the consumer holds the event. One timer per quiet period, not one per event: when it fires it
  // checks how long the current wait has lasted and either times out or waits for the rest.
  let waitingSince = -1
  let timer: ReturnType<typeof setTimeout> | undefined
  let timedOut = false
  const check = () => {
    timer = undefined
    if (waitingSince < 0) return
    const idle = Date.now() - waitingSince
    if (idle < idleMs) {
      timer = setTimeout(check, idleMs - idle)
      return
    }
    timedOut = true
    controller.abort(new Error('idle timeout'))
  }
  const startWait = () => {
    if (!idleOn) return
    waitingSince = Date.now()
    timer ??= setTimeout(check, idleMs)
  }
  const disarm = () => {
    waitingSince = -1
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const context: StreamContext = {
    signal: controller.signal,
    touch: () => {
      if (waitingSince >= 0) waitingSince = Date.now()
    },
  }

  // A producer that ignores its signal must not hang the caller: when there is anything that can
  // abort (the caller's signal or the idle timer), every wait also ends on the abort. One listener
  // rejects the wait in progress; racing each wait against a shared abort promise instead would
  // leave a reaction on that promise per event, holding every event until the stream ends.
  const abortable = outer !== undefined || idleOn
  let rejectWait: ((reason: unknown) => void) | undefined
  if (abortable) {
    controller.signal.addEventListener('abort', () => rejectWait?.(controller.signal.reason), {
      once: true,
    })
  }
  const untilAbort = (next: Promise<IteratorResult<Event>>) =>
    new Promise<IteratorResult<Event>>((resolve, reject) => {
      next.then(resolve, reject)
      if (controller.signal.aborted) reject(controller.signal.reason)
      else rejectWait = reject
    })

  let finished = false
  const iterator = produce(context)[Symbol.asyncIterator]()
  try {
    for (;;) {
      startWait()
      const next = iterator.next()
      const step = await (abortable ? untilAbort(next) : next)
      waitingSince = -1
      rejectWait = undefined
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
