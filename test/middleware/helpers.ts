import type { Adapter } from '../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import { abortedError, ThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'

export const ask: Conversation = { turns: [{ role: 'user', content: 'What is 2 + 2?' }] }

export async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

/** Drains a stream that must fail; returns what it yielded and what it threw. */
export async function failure(
  stream: AsyncIterable<Event>,
): Promise<{ events: Event[]; error: unknown }> {
  const events: Event[] = []
  try {
    for await (const event of stream) events.push(event)
  } catch (error) {
    return { events, error }
  }
  throw new Error(`expected the stream to fail, it yielded ${events.length} events and ended`)
}

/** The turn of the last event, which must be `done`. */
export function doneTurn(events: Event[]): AssistantTurn {
  const last = events.at(-1)
  if (last?.type !== 'done') throw new Error(`expected a done event last, got ${last?.type}`)
  return last.turn
}

/** An adapter that yields `events` and then throws `error` (the very object). */
export function throwing(events: Event[], error: unknown): Adapter {
  return {
    provider: 'throwing',
    model: 'fixed',
    async *stream() {
      yield* events
      throw error
    },
  }
}

export function rateLimited(retryAfterMs?: number): ThinkwireError {
  return new ThinkwireError({ kind: 'rate-limit', message: 'slow down', status: 429, retryAfterMs })
}

/**
 * A clock that only moves when something sleeps on it: `sleep` records the wait, advances the
 * clock at once, and rejects like the real one when the signal aborts.
 */
export function fakeClock(start = 1_000_000) {
  let time = start
  const waits: number[] = []
  return {
    waits,
    now: () => time,
    advance: (ms: number) => {
      time += ms
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted === true) throw abortedError('fake-clock', signal.reason)
      waits.push(ms)
      time += ms
    },
  }
}
