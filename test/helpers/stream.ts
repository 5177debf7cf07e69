import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'

/** Every event of a stream that must succeed. */
export async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

/** Every event of a stream, and the error it ended with, if any. */
export async function run(
  stream: AsyncIterable<Event>,
): Promise<{ events: Event[]; error: unknown }> {
  const events: Event[] = []
  try {
    for await (const event of stream) events.push(event)
  } catch (error) {
    return { events, error }
  }
  return { events, error: undefined }
}

/** Drains a stream that must fail; returns what it yielded and what it threw. */
export async function failure(
  stream: AsyncIterable<Event>,
): Promise<{ events: Event[]; error: unknown }> {
  const result = await run(stream)
  if (result.error === undefined) {
    throw new Error(
      `expected the stream to fail, it yielded ${result.events.length} events and ended`,
    )
  }
  return result
}

/** The turn of the last event, which must be `done`. */
export function doneTurn(events: readonly Event[]): AssistantTurn {
  const last = events.at(-1)
  if (last?.type !== 'done') throw new Error(`expected done last, got ${last?.type ?? 'nothing'}`)
  return last.turn
}
