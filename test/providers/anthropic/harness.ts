/**
 * The Anthropic test harness: fixtures, an adapter wired to a replaying fetch, the SDK's own
 * reading of the same bytes, and the request the upstream received. Shared stream helpers come
 * from `test/helpers/`.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { Message } from '@anthropic-ai/sdk/resources/messages'
import { expect } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Turn } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import { anthropic } from '../../../src/providers/anthropic/index.ts'
import { replayFetch, sse } from '../../helpers/replay-fetch.ts'
import {
  adapterHarness,
  ask,
  fixtures,
  sentBody,
  streamFixtureNames,
} from '../../helpers/adapter-harness.ts'
import { cutsOf, doneTurn, run } from '../../helpers/stream.ts'

export { ask, sentBody }

// For tests outside this folder that take the Anthropic fixtures and these two together.
export { doneTurn, run } from '../../helpers/stream.ts'

/** A recorded stream from `test/fixtures/anthropic/`. */
export const fixture = fixtures('anthropic')

/** The names of every fixture in `test/fixtures/anthropic/`. */
export function fixtureNames(): string[] {
  return streamFixtureNames('anthropic')
}

/** An Anthropic JSON error body. */
export function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_fixture' })
}

export const { setup, replayOnce, failWith } = adapterHarness(anthropic, {
  apiKey: 'sk-ant-test-key-0123456789',
  model: 'claude-sonnet-5',
  // One message per fixture: a paused one ends the stream. `pause-turn.test.ts` continues them.
  pauseContinuations: 0,
})

/** The fields of a final message the tests compare, as either SDK reader gives them. */
export type SdkMessage = Pick<Message, 'content' | 'usage' | 'stop_reason' | 'container'>

/**
 * What the SDK's own stream helper makes of `body`: `messages.stream()` then `finalMessage()`, the
 * reading the adapter's items must agree with. `beta` reads it with `beta.messages.stream()`,
 * which also knows the beta blocks and deltas (a compaction's summary).
 */
export async function sdkFinalMessage(
  body: string,
  reader: 'messages' | 'beta' = 'messages',
): Promise<{ ok: true; message: SdkMessage } | { ok: false; error: unknown }> {
  const client = new Anthropic({
    apiKey: 'sk-ant-test-key-0123456789',
    fetch: replayFetch([{ body }]).fetch,
    maxRetries: 0,
  })
  const params = {
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
  }
  try {
    const message =
      reader === 'beta'
        ? ((await client.beta.messages.stream(params).finalMessage()) as unknown as SdkMessage)
        : await client.messages.stream(params).finalMessage()
    return { ok: true, message }
  } catch (error) {
    return { ok: false, error }
  }
}

/**
 * Every awkward place for a network read to end in `body`: between events, in the middle of each
 * line, after the first byte of each character of several bytes, between CR and LF.
 */
export function awkwardSplits(body: string): number[] {
  return cutsOf(body).flatMap(({ splitAt }) => (splitAt === 'bytes' ? [] : splitAt))
}

/** What {@link turnThenNext} saw: the first stream and the request that followed it. */
export type TurnThenNext = {
  events: Event[]
  turn: AssistantTurn
  /** The body of the second request, which carries the first turn. */
  next: Record<string, unknown>
}

/**
 * One turn and the request after it: the upstream answers `question` with `body` (read in pieces
 * cut at {@link awkwardSplits}), the conversation goes on with the done turn and what `after`
 * adds, and is asked again (answered with `answer-after-tool.sse`).
 */
export async function turnThenNext(
  body: string,
  after: (turn: AssistantTurn) => Turn[],
  { question = ask.turns, options = {} }: { question?: Turn[]; options?: CallOptions } = {},
): Promise<TurnThenNext> {
  const { adapter, replay } = setup([
    { body, splitAt: awkwardSplits(body) },
    { body: fixture('answer-after-tool.sse') },
  ])
  const { events, error } = await run(adapter.stream({ turns: question }, options))
  expect(error).toBeUndefined()
  const turn = doneTurn(events)
  const second = await run(adapter.stream({ turns: [...question, turn, ...after(turn)] }, options))
  expect(second.error).toBeUndefined()
  return { events, turn, next: sentBody(replay, 1) }
}

/** One content block of {@link messageOf}: as `content_block_start` sends it, then its deltas. */
export type StreamedBlock = [start: object, deltas: object[]]

/**
 * A Messages stream of `blocks`, in order, each started, given its deltas and stopped, that ends
 * with `stopReason`.
 */
export function messageOf(blocks: StreamedBlock[], stopReason: string): string {
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_01Built',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 30, output_tokens: 1 },
        },
      },
    ],
  ]
  blocks.forEach(([block, deltas], index) => {
    events.push([
      'content_block_start',
      { type: 'content_block_start', index, content_block: block },
    ])
    for (const delta of deltas)
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta }])
    events.push(['content_block_stop', { type: 'content_block_stop', index }])
  })
  events.push(
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 1024 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  )
  return sse(events)
}

/** A thinking block of {@link messageOf}: its text (none when `''`), then its signature. */
export function thinkingBlock(text: string, signature: string): StreamedBlock {
  const deltas = text === '' ? [] : [{ type: 'thinking_delta', thinking: text }]
  return [
    { type: 'thinking', thinking: '', signature: '' },
    [...deltas, { type: 'signature_delta', signature }],
  ]
}
