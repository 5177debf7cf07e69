/**
 * The one harness of the OpenAI-compatible tests: fixtures in the Chat Completions wire format,
 * adapters on a replaying fetch, the shared contract's wiring, and replays at every split.
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
import { run, splitsThatDiffer } from '../../helpers/stream.ts'

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

/** Replays `body` unsplit and at every byte offset; every run must give the same events. */
export async function eventsAtEverySplit(
  body: string,
  options: CompatibleSetup,
  ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in Zürich?' }] },
): Promise<Event[]> {
  const replay = (splitAt?: number[]) =>
    run(compatibleWith([{ body, splitAt }], options).adapter.stream(ask))
  const { splits, differs, whole } = await splitsThatDiffer(body, replay)
  expect(splits).toBeGreaterThan(0)
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
