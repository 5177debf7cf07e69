/**
 * The one harness of the OpenAI Responses tests: fixtures, an adapter wired to a replaying fetch,
 * and what the upstream received. Streams are drained with the shared `test/helpers/stream.ts`.
 */
import { openai } from '../../../src/providers/openai/index.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { cutsOf } from '../../helpers/stream.ts'
import { adapterHarness, fixtures, streamFixtureNames } from '../../helpers/adapter-harness.ts'

export { ask, sentBody } from '../../helpers/adapter-harness.ts'

/** A stream of `test/fixtures/openai/`, in the Responses wire format. */
export const fixture = fixtures('openai')

/** The names of every fixture in `test/fixtures/openai/`. */
export function fixtureNames(): string[] {
  return streamFixtureNames('openai')
}

/** An OpenAI JSON error body. */
export function errorBody(
  code: string | null,
  message: string,
  type = 'invalid_request_error',
): string {
  return JSON.stringify({ error: { message, type, param: null, code } })
}

export const { setup, replayOnce, failWith } = adapterHarness(openai, {
  apiKey: 'sk-test-key-0123456789',
  model: 'gpt-5.4',
})

/** An SSE body of Responses events, each with its `event:` line and a sequence number. */
export function responseStream(events: ({ type: string } & Record<string, unknown>)[]): string {
  return sse(events.map((event, sequence_number) => [event.type, { ...event, sequence_number }]))
}

/** A `response` object as the terminal events carry it. */
export function responseOf(
  status: 'in_progress' | 'completed' | 'incomplete',
  output: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const usage =
    status === 'in_progress'
      ? null
      : { input_tokens: 20, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 } }
  return {
    id: 'resp_inline',
    object: 'response',
    created_at: 1767225600,
    status,
    model: 'gpt-5.4',
    output,
    store: false,
    usage,
    ...extra,
  }
}

/** The `input` items of a request body. */
export function inputOf(body: Record<string, unknown>): unknown[] {
  const items = body['input']
  if (!Array.isArray(items)) throw new Error('input is not a list')
  return items
}

/**
 * Where to cut `body` so that no read is whole: in the middle of every line and after the first
 * byte of every character of several bytes, all at once.
 */
export function awkwardCuts(body: string): number[] {
  return cutsOf(body)
    .filter(({ name }) => name === 'each line cut in two' || name.startsWith('each character'))
    .flatMap(({ splitAt }) => (splitAt === 'bytes' ? [] : splitAt))
}
