/**
 * The Gemini tests' one harness: recorded-format fixtures, an adapter wired to a replaying fetch,
 * and the same wiring for the shared adapter contract. The stream helpers are the shared ones.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Conversation } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import { gemini, type GeminiOptions } from '../../../src/providers/gemini/index.ts'
import { expect } from 'vitest'
import { replayFetch, type ReplayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'
import { cutsThatDiffer, run } from '../../helpers/stream.ts'
export { collect, doneTurn, failure, run } from '../../helpers/stream.ts'

/** The key every test adapter is built with: it must never show up in a URL or a message. */
export const TEST_KEY = 'AIzaTestKeyThatIsNotReal000000000'

/** A Gemini fixture from `test/fixtures/gemini/`, as text. */
export function fixture(name: string): string {
  // A path, not a URL: a browser-like test environment replaces the global URL.
  return readFileSync(
    join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/gemini', name),
    'utf8',
  )
}

/** One SSE event of a Gemini stream, framed as Gemini frames it. */
export const event = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\r\n\r\n`

/** A chunk with one text part, ending the turn when `finishReason` is given. */
export const textChunk = (value: string, finishReason?: string) => ({
  candidates: [
    {
      content: { role: 'model', parts: [{ text: value }] },
      index: 0,
      ...(finishReason === undefined ? {} : { finishReason }),
    },
  ],
})

/** A Gemini adapter whose upstream answers with `specs`, and the replaying fetch behind it. */
export function geminiWith(
  specs: ReplaySpec[] | Parameters<typeof replayFetch>[0],
  model = 'gemini-3-flash-preview',
  options: Partial<GeminiOptions> = {},
) {
  const replay: ReplayFetch = replayFetch(specs)
  const adapter = gemini({
    apiKey: TEST_KEY,
    model,
    fetch: replay.fetch,
    baseURL: 'https://gemini.test',
    ...options,
  })
  return { adapter, replay }
}

/**
 * Replays `body` whole and at each of the cuts of `cutsOf` (mid-line, mid-character, an event per
 * read...), expects every replay to give the same events (and error), and returns the whole
 * replay's events, which must end in `done`.
 */
export async function eventsAtCuts(
  body: string,
  conversation: Conversation,
  model?: string,
): Promise<Event[]> {
  const { events, error } = await atCuts(body, conversation, model)
  expect(error).toBeUndefined()
  return events
}

/** {@link eventsAtCuts} for a stream that must fail: its events and error. */
export async function failureAtCuts(
  body: string,
  conversation: Conversation,
  model?: string,
): Promise<{ events: Event[]; error: unknown }> {
  const result = await atCuts(body, conversation, model)
  expect(result.error).toBeDefined()
  return result
}

async function atCuts(body: string, conversation: Conversation, model?: string) {
  const replay = (splitAt?: number[] | 'bytes') =>
    run(geminiWith([{ body, splitAt }], model).adapter.stream(conversation))
  const { cuts, differs, whole } = await cutsThatDiffer(body, replay)
  expect(cuts).toContain('each line cut in two')
  expect(differs).toEqual([])
  return whole
}
