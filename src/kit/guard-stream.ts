import type { CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, OpaqueItems, Usage } from '../core/conversation.ts'
import {
  abortedError,
  providerError,
  toThinkwireError,
  type ThinkwireError,
} from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import { costOf, type Pricing } from '../core/pricing.ts'
import { applyEvent, initialTurnState, turnOf, type TurnState } from '../core/reducer.ts'
import { redactError } from './redact.ts'
import { thinkingModeOf, type ReplayTag } from './replay.ts'

/** An event a producer yields: anything but `done`, which the guard builds itself. */
export type Delta = Exclude<Event, { type: 'done' }>

/**
 * What a producer returns once the provider said the turn is complete: everything of the turn
 * that the deltas do not carry. `text`, `thinking` and `toolCalls` come from the deltas, so the
 * `done` turn always agrees with them.
 */
export type Finish = Omit<
  AssistantTurn,
  'role' | 'text' | 'thinking' | 'toolCalls' | 'items' | 'warnings'
> & {
  /**
   * The provider's own records of the turn, which the guard tags with the provider, the model and
   * the call's thinking mode; or items that already carry their tag (a relay client passes the
   * relay's items on whole, seal included). Omitted: the turn has no items.
   */
  items?: unknown[] | OpaqueItems | undefined
  /** What the adapter changed or dropped from the caller's options. */
  warnings?: readonly string[] | undefined
  /**
   * The prices of this turn when they are not the model's (a service tier the provider says
   * served it, at rates of its own), or null when they are unknown: the turn then has no
   * `usage.cost`. Omitted: the model's prices ({@link GuardSetup.pricing}).
   */
  pricing?: Pricing | null | undefined
}

/** What {@link guardStream} hands the producer. */
export type StreamContext = {
  /** Aborted when the caller aborts, stops iterating, or the idle timeout fires. Pass it upstream. */
  signal: AbortSignal
  /** Tells the idle timer the upstream is alive (e.g. on a ping that yields no event). */
  touch(): void
  /** The tag of this call: an assistant turn whose items carry it is replayed verbatim. */
  tag: ReplayTag
}

/**
 * Batches of deltas that a producer hands over whole, such as `readEventStream`'s with a decoder
 * that makes deltas: the guard reads it itself until it ends, then resumes the producer. An entry
 * of a batch may be a list (an event that made several deltas).
 */
export type DeltaSource = AsyncIterator<readonly (Delta | readonly Delta[])[], unknown>

/**
 * An adapter's producer: it yields deltas (one at a time, or a batch per network read: an empty
 * batch only proves the upstream is alive), or a {@link DeltaSource} of batches, and returns the
 * {@link Finish} record once the provider says the turn is complete. Returning nothing means the
 * stream ended early. Yielding a source costs no generator step per read, which a `for await`
 * loop that yields each batch pays (about as much as parsing a small event).
 */
export type Producer = (
  context: StreamContext,
) => AsyncIterable<Delta | readonly Delta[] | DeltaSource, Finish | undefined | void>

/** Who the guard runs for. */
export type GuardSetup = {
  provider: string
  model: string
  options?: CallOptions | undefined
  /** Maps whatever the producer threw to a `ThinkwireError`. @defaultValue `toThinkwireError` */
  mapError?: ((error: unknown) => ThinkwireError) | undefined
  /**
   * The US dollar cost of the `done` turn's usage, set as its `usage.cost` unless the finish
   * record's usage has one (a cost the provider stated). Omitted: no cost.
   */
  cost?: ((usage: Usage) => number) | undefined
  /**
   * The model's prices (its `capabilities.pricing`), for {@link guardStream} to work out `cost`
   * from, so no adapter prices a turn by hand.
   */
  pricing?: Pricing | undefined
}

/**
 * Runs an adapter's producer under the contract every adapter shares: the upstream is aborted when
 * the caller aborts or stops early, empty deltas are dropped, the `done` turn is folded from the
 * deltas with the reducer plus the producer's finish record (so it agrees with them by
 * construction) and comes exactly once and last, a producer that ends without finishing fails
 * instead of passing for complete, a silent upstream fails with `timeout` after `idleTimeoutMs`,
 * and every failure is a `ThinkwireError` with credentials redacted from its message.
 *
 * @example
 * ```ts
 * stream(conversation, options = {}) {
 *   return guardStream({ provider: 'acme', model, options }, async function* ({ signal, tag }) {
 *     const response = await fetch(url, { method: 'POST', body: encode(conversation, tag), signal })
 *     for await (const batch of readEventStream(response.body, { provider: 'acme', decode })) {
 *       yield batch.map(toDelta)
 *     }
 *     return { usage, stopReason: 'stop', items: [record] }
 *   })
 * }
 * ```
 */
export function guardStream(setup: GuardSetup, produce: Producer): AsyncIterableIterator<Event> {
  const { pricing } = setup
  if (pricing !== undefined) {
    setup = { ...setup, cost: (usage) => costOf(usage, pricing, setup.options?.cache) }
  }
  // A plain iterator rather than an async generator: a generator pays several promise jobs per
  // `yield`, which here would cost about as much as parsing the event. The deltas of a batch are
  // handed out from `next()` at once; only the wait for the producer is asynchronous.
  const { provider, model, options } = setup
  const outer = options?.signal
  const controller = new AbortController()
  const signal = controller.signal
  const tag: ReplayTag = { provider, model, thinkingMode: thinkingModeOf(options?.thinking) }
  const idleMs = options?.idleTimeoutMs ?? 0
  const abortable = outer !== undefined || idleMs > 0
  const onOuterAbort = () => controller.abort(outer?.reason)

  let iterator:
    | AsyncIterator<Delta | readonly Delta[] | DeltaSource, Finish | undefined | void>
    | undefined
  /** The source the producer handed over, read until it ends. */
  let source: DeltaSource | undefined
  let state = initialTurnState
  /** The batch being handed out, and the index of its next delta. */
  let batch: readonly (Delta | readonly Delta[])[] = []
  let index = 0
  /** Ended: `done` given, failed, or left by the consumer. */
  let closed = false
  // The idle timer measures upstream silence only: it runs while we wait for the producer, not
  // while the consumer holds an event. One timer per quiet period, not one per event: when it
  // fires it checks how long the current wait has lasted and either times out or waits the rest.
  let waitingSince = -1
  let timer: ReturnType<typeof setTimeout> | undefined
  let timedOut = false

  const check = (): void => {
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

  /**
   * Stops everything once: the timer, the listener, the upstream (unless the turn is `finished`),
   * and the producer.
   */
  const close = (finished?: boolean): void => {
    if (closed) return
    closed = true
    batch = []
    waitingSince = -1
    if (timer !== undefined) clearTimeout(timer)
    outer?.removeEventListener('abort', onOuterAbort)
    if (finished !== true) controller.abort(new Error('stream closed'))
    // Release the source (its body), and let the producer run its own cleanup (its finally
    // blocks), without waiting on a stuck upstream.
    void source?.return?.()?.catch(() => {})
    void iterator?.return?.()?.catch(() => {})
  }

  /** Ends the stream with a failure, as a `ThinkwireError` whose message holds no credential. */
  const fail = (error: unknown): ThinkwireError => {
    close()
    return redactError(failureOf(setup, error, timedOut))
  }

  /** The next delta of the batch in hand, folded into the state; undefined when it is used up. */
  const take = (): Delta | undefined => {
    while (index < batch.length) {
      const delta = batch[index++]!
      if (isList(delta)) {
        // An event that made several deltas (rare): its deltas take its place.
        batch = [...delta, ...batch.slice(index)]
        index = 0
        continue
      }
      // An empty text or thinking delta says nothing: it is dropped.
      if ('text' in delta && delta.text === '') continue
      if ((delta.type as Event['type']) === 'done') {
        const message = "a producer returns its finish record; it does not yield 'done'"
        throw providerError('server', provider, message)
      }
      state = applyEvent(state, delta)
      return delta
    }
    return undefined
  }

  /**
   * The `next()` waiting on the producer. Its promise is made once per wait, and an abort rejects
   * it at once (a producer may ignore its signal): no promise or reaction per event.
   */
  let waiting:
    | { resolve(result: IteratorResult<Event>): void; reject(error: unknown): void }
    | undefined
  let pending: Promise<IteratorResult<Event>> | undefined

  const settle = (result: IteratorResult<Event> | undefined, error?: unknown): void => {
    const wait = waiting
    waiting = undefined
    pending = undefined
    waitingSince = -1
    if (wait === undefined) return
    if (result === undefined) wait.reject(fail(error))
    else wait.resolve(result)
  }

  /**
   * Asks the source, or else the producer, for its next batch; `onBatch` or `onStep` hands out its
   * first delta or asks again.
   */
  const step = (): void => {
    if (idleMs > 0) {
      waitingSince = Date.now()
      timer ??= setTimeout(check, idleMs)
    }
    if (source !== undefined) source.next().then(onBatch, onFailure)
    else iterator!.next().then(onStep, onFailure)
  }

  const onFailure = (error: unknown): void => settle(undefined, error)

  const onStep = (
    result: IteratorResult<Delta | readonly Delta[] | DeltaSource, Finish | undefined | void>,
  ) => {
    // Settled already: aborted while the producer was busy; what it sent late is dropped.
    if (waiting === undefined) return
    try {
      waitingSince = -1
      if (result.done === true) {
        const finish = result.value ?? undefined
        const turn = doneTurn(setup, state, finish && tagItems(finish, tag))
        close(true)
        return settle({ done: false, value: { type: 'done', turn } })
      }
      const value = result.value
      if ('next' in value) source = value
      // A batch, or one delta (wrapped here, after the wait, not per delta of a batch).
      else return handOut(isList(value) ? value : [value])
      step()
    } catch (error) {
      settle(undefined, error)
    }
  }

  /** A batch of the source, or its end: then the producer goes on. */
  const onBatch = (result: IteratorResult<readonly (Delta | readonly Delta[])[], unknown>) => {
    if (waiting === undefined) return
    try {
      waitingSince = -1
      if (result.done !== true) return handOut(result.value)
      source = undefined
      step()
    } catch (error) {
      settle(undefined, error)
    }
  }

  /** Hands out the first delta of a new batch, or asks for the next batch when it has none. */
  const handOut = (next: readonly (Delta | readonly Delta[])[]): void => {
    batch = next
    index = 0
    const delta = take()
    if (delta !== undefined) settle({ done: false, value: delta })
    else step()
  }

  /** Starts the producer on the first pull: a stream that is never read makes no request. */
  const start = (): void => {
    if (outer?.aborted === true) throw abortedError(provider, outer.reason)
    outer?.addEventListener('abort', onOuterAbort, { once: true })
    if (abortable) signal.addEventListener('abort', () => settle(undefined, signal.reason))
    const touch = () => {
      if (waitingSince >= 0) waitingSince = Date.now()
    }
    iterator = produce({ signal, touch, tag })[Symbol.asyncIterator]()
  }

  const next = (): Promise<IteratorResult<Event>> => {
    // A call made while one waits on the producer waits for it, as an async generator's would.
    if (pending !== undefined) return pending.then(next, next)
    if (closed) return Promise.resolve(DONE)
    try {
      // The caller may abort while it holds an event: the rest of a batch is not delivered.
      if (signal.aborted) throw signal.reason
      const delta = take()
      if (delta !== undefined) return Promise.resolve({ done: false, value: delta })
      if (iterator === undefined) start()
    } catch (error) {
      return Promise.reject(fail(error))
    }
    pending = new Promise<IteratorResult<Event>>((resolve, reject) => {
      waiting = { resolve, reject }
    })
    const result = pending
    try {
      step()
    } catch (error) {
      settle(undefined, error)
    }
    return result
  }

  const stream: AsyncIterableIterator<Event> = {
    next,
    return() {
      close()
      return Promise.resolve(DONE)
    },
    throw(error: unknown) {
      close()
      return Promise.reject(error)
    },
    [Symbol.asyncIterator]: () => stream,
  }
  return stream
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

// `Array.isArray` does not narrow a readonly array out of a union.
function isList(value: Delta | readonly Delta[]): value is readonly Delta[] {
  return Array.isArray(value)
}

/** A {@link Finish} record whose items carry their tag. */
type TaggedFinish = Omit<Finish, 'items'> & { items?: OpaqueItems | undefined }

/** The finish record with its items tagged with the provider, the model and the thinking mode. */
function tagItems(finish: Finish, tag: ReplayTag): TaggedFinish {
  const { items, ...rest } = finish
  return { ...rest, items: Array.isArray(items) ? { ...tag, data: items } : items }
}

/**
 * The `done` turn: the deltas folded, then the finish record, with its cost worked out unless the
 * record gave one. Without a finish record the stream ended early: that throws.
 */
function doneTurn(
  setup: GuardSetup,
  state: TurnState,
  finish: TaggedFinish | undefined,
): AssistantTurn {
  if (finish === undefined) {
    throw providerError('network', setup.provider, 'the stream ended before the turn was complete')
  }
  const { usage, stopReason, items, warnings, pricing, ...extra } = finish
  const turn = turnOf(state, { usage, stopReason, ...extra })
  if (items !== undefined) turn.items = items
  if (warnings !== undefined && warnings.length > 0) turn.warnings = [...warnings]
  // A cost the producer gives (one the provider stated) is the turn's: no price list is. Else the
  // turn's own prices (`pricing`, as its tier says; null: none), else the model's.
  const cost =
    pricing === undefined
      ? setup.cost
      : pricing === null
        ? undefined
        : (used: Usage) => costOf(used, pricing, setup.options?.cache)
  if (cost !== undefined && turn.usage.cost === undefined)
    turn.usage = { ...turn.usage, cost: cost(turn.usage) }
  return turn
}

/**
 * What a guarded stream fails with: `timeout` once the idle timeout fired, `aborted` once the
 * caller aborted (read at the failure: the signal may have been aborted while the guard waited),
 * else the producer's error, mapped.
 */
function failureOf(setup: GuardSetup, error: unknown, timedOut: boolean): ThinkwireError {
  const { provider, options, mapError } = setup
  if (timedOut) {
    return providerError('timeout', provider, `no data for ${options?.idleTimeoutMs} ms`, error)
  }
  if (options?.signal?.aborted === true) return abortedError(provider, error)
  return mapError?.(error) ?? toThinkwireError(error, provider)
}
