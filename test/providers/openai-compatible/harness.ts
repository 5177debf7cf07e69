/**
 * The one harness of the OpenAI-compatible tests: fixtures in the Chat Completions wire format,
 * adapters on a replaying fetch, the shared contract's wiring, and replays at each kind of cut.
 */
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import {
  openaiCompatible,
  type OpenAICompatibleOptions,
} from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch, type ReplayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'
import { cutsThatDiffer, run } from '../../helpers/stream.ts'

/**
 * A clock stopped on a Monday at noon UTC, outside DeepSeek's peak hours: a test that prices a
 * DeepSeek turn passes it as the adapter's `now`, so that its cost does not depend on the hour
 * the test runs (two replays of one run could straddle a price change).
 */
export const offPeakClock = (): number => Date.parse('2026-12-07T12:00:00Z')

/** Adapter options without the fetch, which the harness brings. */
export type CompatibleSetup = Omit<OpenAICompatibleOptions, 'fetch'>

/** A fixture in the Chat Completions wire format, as text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/openai-compatible/${name}`, import.meta.url), 'utf8')
}

/** An adapter on a server preset (or any options) whose upstream answers with `specs`. */
export function compatibleWith(specs: ReplaySpec[], options: CompatibleSetup) {
  const replay = replayFetch(specs)
  const adapter = openaiCompatible({ ...options, fetch: replay.fetch })
  return { adapter, replay }
}

/**
 * Replays `body` whole and at each of the cuts of `cutsOf` (mid-line, mid-character, an event per
 * read...); every replay must give the same events.
 */
export async function eventsAtCuts(
  body: string,
  options: CompatibleSetup,
  ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in Zürich?' }] },
): Promise<Event[]> {
  const replay = (splitAt?: number[] | 'bytes') =>
    run(compatibleWith([{ body, splitAt }], options).adapter.stream(ask))
  const { cuts, differs, whole } = await cutsThatDiffer(body, replay)
  expect(cuts).toContain('each line cut in two')
  expect(differs).toEqual([])
  expect(whole.error).toBeUndefined()
  return whole.events
}

/** The `messages` of the `n`-th request the replaying fetch received (0 is the first). */
export function sentMessages(replay: ReplayFetch, n: number): unknown[] {
  const body = replay.requests[n]?.body
  const messages =
    typeof body === 'object' && body !== null && 'messages' in body ? body.messages : undefined
  if (!Array.isArray(messages)) throw new Error(`request ${n} was not sent, or has no messages`)
  return messages
}
