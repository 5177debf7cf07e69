import type { AssistantTurn } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { everySplit } from './replay-fetch.ts'

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

/**
 * Replays `body` whole, then cut in two at every byte offset (mid-line, mid UTF-8 character), and
 * returns the offsets whose events or error differ from the whole replay, and that replay. Replays
 * run a few at a time: each is independent, and the SDKs spend much of a replay waiting.
 */
export async function splitsThatDiffer(
  body: string,
  replay: (splitAt?: number[]) => Promise<{ events: Event[]; error: unknown }>,
): Promise<{ splits: number; differs: number[]; whole: { events: Event[]; error: unknown } }> {
  const summary = ({ events, error }: { events: Event[]; error: unknown }) =>
    JSON.stringify({
      events,
      error: isThinkwireError(error) ? { kind: error.kind, message: error.message } : error,
    })
  const whole = await replay()
  const expected = summary(whole)
  const splits = everySplit(body)
  const differs: number[] = []
  for (let i = 0; i < splits.length; i += 8) {
    const batch = splits.slice(i, i + 8)
    const results = await Promise.all(batch.map((splitAt) => replay(splitAt)))
    results.forEach((result, j) => {
      if (summary(result) !== expected) differs.push(batch[j]![0]!)
    })
  }
  return { splits: splits.length, differs, whole }
}
