import { readFileSync } from 'node:fs'
import type { Event } from '../../../src/core/events.ts'
import { gemini } from '../../../src/providers/gemini/index.ts'
import { replayFetch, type ReplayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'

/** A recorded-format Gemini fixture, as text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/gemini/${name}`, import.meta.url), 'utf8')
}

/** A Gemini adapter whose upstream answers with `specs`, and the replaying fetch behind it. */
export function geminiWith(
  specs: ReplaySpec[] | Parameters<typeof replayFetch>[0],
  model = 'gemini-3-flash-preview',
) {
  const replay: ReplayFetch = replayFetch(specs)
  const adapter = gemini({
    apiKey: 'AIzaTestKeyThatIsNotReal000000000',
    model,
    fetch: replay.fetch,
    baseURL: 'https://gemini.test',
  })
  return { adapter, replay }
}

export async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

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

/** The `done` turn of a finished stream. */
export function doneTurn(events: Event[]) {
  const last = events.at(-1)
  if (last?.type !== 'done') throw new Error(`expected done last, got ${last?.type}`)
  return last.turn
}
