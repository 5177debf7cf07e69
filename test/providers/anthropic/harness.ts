/**
 * The Anthropic test harness: fixtures, an adapter wired to a replaying fetch, the SDK's own
 * reading of the same bytes, and the request the upstream received. Shared stream helpers come
 * from `test/helpers/`.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { Message } from '@anthropic-ai/sdk/resources/messages'
import { anthropic } from '../../../src/providers/anthropic/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { adapterHarness, fixtures, streamFixtureNames } from '../../helpers/adapter-harness.ts'

export { ask, sentBody } from '../../helpers/adapter-harness.ts'

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
