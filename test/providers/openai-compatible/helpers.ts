import { readFileSync } from 'node:fs'
import type { Event } from '../../../src/core/events.ts'
import {
  openaiCompatible,
  type OpenAICompatibleOptions,
} from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch, type ReplayFetch } from '../../helpers/replay-fetch.ts'

/** A fixture in the Chat Completions wire format, as text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/openai-compatible/${name}`, import.meta.url), 'utf8')
}

/** An adapter on a server preset (or any options) whose upstream answers with `specs`. */
export function compatibleWith(
  specs: Parameters<typeof replayFetch>[0],
  options: Omit<OpenAICompatibleOptions, 'fetch'>,
) {
  const replay: ReplayFetch = replayFetch(specs)
  const adapter = openaiCompatible({ ...options, fetch: replay.fetch })
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

export function doneTurn(events: Event[]) {
  const last = events.at(-1)
  if (last?.type !== 'done') throw new Error(`expected done last, got ${last?.type}`)
  return last.turn
}
