/**
 * The one harness of the Gemini Interactions tests: fixtures in the API's SSE wire format, an
 * adapter wired to a replaying fetch, the request bodies it sent, and replays at every kind of cut.
 * Streams are drained with the shared `test/helpers/stream.ts`.
 */
import { expect } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import { geminiInteractions } from '../../../src/providers/gemini/index.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { adapterHarness, fixtures, streamFixtureNames } from '../../helpers/adapter-harness.ts'
import { cutsThatDiffer, run } from '../../helpers/stream.ts'

export { ask, sentBody } from '../../helpers/adapter-harness.ts'
export { collect, doneTurn, failure, run } from '../../helpers/stream.ts'

/** The key every test adapter is built with: it must never show up in a URL or a message. */
export const TEST_KEY = 'AIzaInteractionsKeyNotReal0000000'

/** A stream of `test/fixtures/gemini-interactions/`. */
export const fixture = fixtures('gemini-interactions')

/** The names of every stream fixture in `test/fixtures/gemini-interactions/`. */
export function fixtureNames(): string[] {
  return streamFixtureNames('gemini-interactions')
}

export const { setup, replayOnce, failWith } = adapterHarness(geminiInteractions, {
  apiKey: TEST_KEY,
  model: 'gemini-3-flash-preview',
  baseURL: 'https://interactions.test',
})

/** The signature of a turn's first step (a thought step). */
export function signatureOf(turn: AssistantTurn): string {
  const first = turn.items?.data[0]
  const signature = first && (first as { signature?: unknown }).signature
  if (typeof signature !== 'string') throw new Error('the turn has no thought step first')
  return signature
}

/** One event of an Interactions stream, framed as the API frames it (`event:` line, then data). */
export type WireEvent = { event_type: string } & Record<string, unknown>

/** An SSE body of Interactions events. */
export function interactionStream(events: WireEvent[]): string {
  return sse(events.map((event) => [event.event_type, event]))
}

/** The lifecycle events that open a stream. */
export const opened: WireEvent[] = [
  {
    event_type: 'interaction.created',
    interaction: { id: '', status: 'in_progress', model: 'gemini-3-flash-preview' },
  },
  { event_type: 'interaction.status_update', interaction_id: '', status: 'in_progress' },
]

/** `interaction.completed` with `status` and a small usage record. */
export function completed(status: string, extra: Record<string, unknown> = {}): WireEvent {
  return {
    event_type: 'interaction.completed',
    interaction: {
      id: '',
      status,
      usage: { total_input_tokens: 20, total_output_tokens: 6, total_thought_tokens: 4 },
      ...extra,
    },
  }
}

/** The three events of a step: start, its deltas, stop. */
export function step(index: number, start: Record<string, unknown>, ...deltas: unknown[]) {
  return [
    { event_type: 'step.start', index, step: start },
    ...deltas.map((delta) => ({ event_type: 'step.delta', index, delta })),
    { event_type: 'step.stop', index },
  ]
}

/**
 * Replays `body` whole and at each of the cuts of `cutsOf` (mid-line, mid-character, an event per
 * read...), expects every replay to give the same events and error, and returns the whole
 * replay's.
 */
export async function atCuts(
  body: string,
  conversation: Conversation,
  options: CallOptions = {},
): Promise<{ events: Event[]; error: unknown }> {
  const replay = (splitAt?: number[] | 'bytes') =>
    run(setup([{ body, splitAt }]).adapter.stream(conversation, options))
  const { cuts, differs, whole } = await cutsThatDiffer(body, replay)
  expect(cuts).toContain('each line cut in two')
  expect(differs).toEqual([])
  return whole
}

/** {@link atCuts} for a stream that must end in `done`: its events. */
export async function eventsAtCuts(
  body: string,
  conversation: Conversation,
  options: CallOptions = {},
): Promise<Event[]> {
  const { events, error } = await atCuts(body, conversation, options)
  expect(error).toBeUndefined()
  return events
}
