import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation, Turn } from '../../../src/core/conversation.ts'
import { withRetry } from '../../../src/middleware/retry.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, sentBody, setup } from './harness.ts'

const tools: CallOptions['tools'] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'save', parameters: { type: 'object' } },
  { name: 'run_scan', parameters: { type: 'object' } },
]
const question: Turn = { role: 'user', content: 'Weather in Paris and Oslo?' }

/** The done turn of `name`, and the body of the next request built from a conversation holding it. */
async function turnThenNext(
  name: string,
  after: (turn: AssistantTurn) => Turn[],
): Promise<{ turn: AssistantTurn; events: unknown[]; next: Record<string, unknown> }> {
  const { adapter, replay } = setup([
    { body: fixture(name) },
    { body: fixture('answer-after-tool.sse') },
  ])
  const { events, error } = await run(adapter.stream({ turns: [question] }, { tools }))
  expect(error).toBeUndefined()
  const turn = doneTurn(events)
  const conversation: Conversation = { turns: [question, turn, ...after(turn)] }
  const second = await run(adapter.stream(conversation, { tools }))
  expect(second.error).toBeUndefined()
  return { turn, events, next: sentBody(replay, 1) }
}

describe('anthropic: a tool call cut off by the output limit', () => {
  it('is dropped from the events, the tool calls and the items, with a warning; the complete call before it stays', async () => {
    const { turn, events, next } = await turnThenNext('parallel-cut-off.sse', (done) => [
      {
        role: 'tool',
        results: (done.toolCalls ?? []).map((call) => ({
          callId: call.id,
          name: call.name,
          output: '18 °C',
        })),
      },
    ])
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'Checking both cities → ' },
      {
        type: 'tool-call',
        call: { id: 'toolu_01Paris', name: 'get_weather', input: { city: 'Paris' } },
      },
    ])
    expect(turn.stopReason).toBe('length')
    expect(turn.toolCalls).toEqual([
      { id: 'toolu_01Paris', name: 'get_weather', input: { city: 'Paris' } },
    ])
    expect(turn.warnings).toEqual([
      "tool call 'get_weather' (toolu_02Oslo) dropped: the output limit cut it off before its input was complete",
    ])
    expect(turn.items?.data).toEqual([
      { type: 'text', text: 'Checking both cities → ' },
      {
        type: 'tool_use',
        id: 'toolu_01Paris',
        name: 'get_weather',
        input: { city: 'Paris' },
        caller: { type: 'direct' },
      },
    ])
    // The next request replays the turn without the cut call, and answers the complete one.
    expect(JSON.stringify(next)).not.toContain('toolu_02Oslo')
    expect(next['messages']).toEqual([
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'assistant', content: turn.items?.data },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01Paris', content: '18 °C' }],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('is dropped when its block ended with input that is not JSON, and the next request carries only the text', async () => {
    const { turn, events, next } = await turnThenNext('tool-cut-off.sse', () => [
      { role: 'user', content: 'Go on.' },
    ])
    expect(events.map((e) => (e as { type: string }).type)).toEqual(['text', 'done'])
    expect(turn.stopReason).toBe('length')
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([expect.stringContaining("tool call 'save' (toolu_01Save)")])
    expect(turn.items?.data).toEqual([{ type: 'text', text: 'Saving the note → ' }])
    expect(JSON.stringify(next)).not.toContain('toolu_01Save')
    expect((next['messages'] as unknown[]).at(1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Saving the note → ' }],
    })
    expect(anthropicRequestProblems(next)).toEqual([])
  })
})

describe('anthropic: a refusal', () => {
  it('that cut a tool call is a done turn with its category and explanation, the call dropped from events and items, and is not sent again', async () => {
    const { turn, events, next } = await turnThenNext('refusal-cut-tool.sse', () => [
      { role: 'user', content: 'Something else, then.' },
    ])
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Running the scan → ' }])
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'cyber',
      explanation: 'Blocked under the usage policy → cyber.',
    })
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([
      "tool call 'run_scan' (toolu_01Scan) dropped: the refusal cut it off before its input was complete",
    ])
    expect(turn.items?.data).toEqual([{ type: 'text', text: 'Running the scan → ' }])
    // The refused turn stays in the conversation, but the API is not sent it again.
    expect(next['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris and Oslo?' },
          { type: 'text', text: 'Something else, then.' },
        ],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('is never retried: withRetry passes the turn on after one request', async () => {
    const { adapter, replay } = setup([{ body: fixture('refusal.sse') }])
    const { events, error } = await run(
      withRetry(adapter, { random: () => 0 }).stream({ turns: [question] }),
    )
    expect(error).toBeUndefined()
    expect(doneTurn(events).stopReason).toBe('refusal')
    expect(replay.requests).toHaveLength(1)
  })

  it('without stop details has none, and a category alone is kept alone', async () => {
    const body = fixture('refusal.sse')
    const bare = body.replace(/,"stop_details":\{[^}]*\}/, '')
    const categoryOnly = body.replace(
      /"stop_details":\{[^}]*\}/,
      '"stop_details":{"type":"refusal","category":"bio","explanation":null}',
    )
    expect(bare).not.toContain('stop_details')
    const turnOf = async (text: string) => {
      const { adapter } = setup([{ body: text }])
      return doneTurn((await run(adapter.stream({ turns: [question] }))).events)
    }
    const plain = await turnOf(bare)
    expect(plain.stopReason).toBe('refusal')
    expect(plain.stopDetails).toBeUndefined()
    expect((await turnOf(categoryOnly)).stopDetails).toEqual({ category: 'bio' })
  })
})
