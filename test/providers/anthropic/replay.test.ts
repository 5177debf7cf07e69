import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { errorBody, fixture, sentBody, setup } from './harness.ts'

const tools = [
  {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, note: { type: 'string' } },
    },
  },
]
const options: CallOptions = { thinking: 'medium', tools }

describe('anthropic replay', () => {
  it('replays a three-turn conversation with earlier assistant turns byte for byte', async () => {
    const { adapter, replay } = setup([
      { body: fixture('thinking-then-tool.sse') },
      { body: fixture('answer-after-tool.sse') },
      { body: fixture('redacted-thinking.sse') },
    ])
    const conversation: Conversation = {
      system: 'You are a weather assistant.',
      turns: [{ role: 'user', content: 'Weather in Paris?' }],
    }

    const first = doneTurn((await run(adapter.stream(conversation, options))).events)
    conversation.turns.push(first, {
      role: 'tool',
      results: [{ callId: 'toolu_01Weather', name: 'get_weather', output: { celsius: 18 } }],
    })
    const second = doneTurn((await run(adapter.stream(conversation, options))).events)
    conversation.turns.push(second, { role: 'user', content: 'And tomorrow?' })
    const third = doneTurn((await run(adapter.stream(conversation, options))).events)
    expect(third.text).toBe('Voilà: the answer is 42 ✨')

    const messages = sentBody(replay, 2)['messages'] as { role: string; content: unknown }[]
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(JSON.stringify(messages[1]!.content)).toBe(JSON.stringify(first.items!.data))
    expect(JSON.stringify(messages[3]!.content)).toBe(JSON.stringify(second.items!.data))
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01Weather', content: '{"celsius":18}' },
    ])
    expect(messages[4]!.content).toBe('And tomorrow?')
    // The tool loop's own request already carried the first turn verbatim, thinking first.
    const loop = sentBody(replay, 1)['messages'] as { role: string; content: unknown[] }[]
    expect(loop[1]!.content).toEqual(first.items!.data)
    expect(loop[1]!.content[0]).toMatchObject({
      type: 'thinking',
      signature: 'EqQBCkYIAxgCKkBsigThinkingToolFixture+/==',
    })
    expect(
      replay.requests.every(
        (r) => (r.body as { system?: unknown }).system === 'You are a weather assistant.',
      ),
    ).toBe(true)
  })

  it('sends the replayed items deep-equal to what the provider returned, redacted thinking included', async () => {
    const { adapter, replay } = setup([
      { body: fixture('redacted-thinking.sse') },
      { body: fixture('refusal.sse') },
    ])
    const turn = doneTurn(
      (await run(adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] }))).events,
    )
    await run(
      adapter.stream({
        turns: [{ role: 'user', content: 'Hi' }, turn, { role: 'user', content: 'Again' }],
      }),
    )
    const messages = sentBody(replay)['messages'] as { content: unknown }[]
    expect(messages[1]!.content).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pRedactedFixture/+==' },
      {
        type: 'thinking',
        thinking: 'Only part of my reasoning is visible → fine.',
        signature: 'EqQBRedactedNeighbourSig==',
      },
      { type: 'text', text: 'Voilà: the answer is 42 ✨', citations: null },
    ])
  })

  it('sends a compaction block back whole, its summary included, ahead of the rest of the turn', async () => {
    const { adapter, replay } = setup([
      { body: fixture('compaction.sse') },
      { body: fixture('answer-after-tool.sse') },
    ])
    const conversation: Conversation = { turns: [{ role: 'user', content: 'Where are we?' }] }
    const turn = doneTurn((await run(adapter.stream(conversation))).events)
    conversation.turns.push(turn, { role: 'user', content: 'Book the hotel.' })
    await run(adapter.stream(conversation))
    const messages = sentBody(replay, 1)['messages'] as { role: string; content: unknown }[]
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'compaction',
          content:
            'Summary → the user is planning a trip to Kraków 🇵🇱; flights booked, hotel pending.',
          encrypted_content: 'EsYDCkYICompactionFixture==',
        },
        { type: 'text', text: 'Next: the hotel in Kraków.' },
      ],
    })
    expect(JSON.stringify(messages[1]!.content)).toBe(JSON.stringify(turn.items!.data))
  })

  it('re-encodes a turn from another model as text and tool_use blocks, without its reasoning', async () => {
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: 'Let me look that up.',
      thinking: 'secret reasoning',
      toolCalls: [{ id: 'call:abc/1', name: 'get_weather', input: { city: 'Paris' } }],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'tool-calls',
      items: {
        provider: 'openai',
        model: 'gpt-5.4',
        thinkingMode: 'medium',
        data: [{ type: 'reasoning', encrypted_content: 'gAAAA-foreign' }],
      },
    }
    const { adapter, replay } = setup([{ body: fixture('answer-after-tool.sse') }])
    await run(
      adapter.stream(
        {
          turns: [
            { role: 'user', content: 'Weather?' },
            foreign,
            {
              role: 'tool',
              results: [
                { callId: 'call:abc/1', name: 'get_weather', output: 'sunny', isError: false },
              ],
            },
          ],
        },
        options,
      ),
    )
    const sent = JSON.stringify(sentBody(replay))
    expect(sent).not.toContain('gAAAA-foreign')
    expect(sent).not.toContain('secret reasoning')
    expect(sentBody(replay)['messages']).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look that up.' },
          { type: 'tool_use', id: 'call_abc_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_abc_1', content: 'sunny' }],
      },
    ])
  })

  it('runs a budget-thinking tool step without thinking when the call it answers came without any', async () => {
    const handWritten: AssistantTurn = {
      role: 'assistant',
      text: '',
      toolCalls: [{ id: 'toolu_hand', name: 'get_weather', input: { city: 'Oslo' } }],
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    }
    const { adapter, replay } = setup([{ body: fixture('answer-after-tool.sse') }], {
      model: 'claude-haiku-4-5',
    })
    const { events } = await run(
      adapter.stream(
        {
          turns: [
            { role: 'user', content: 'Weather in Oslo?' },
            handWritten,
            {
              role: 'tool',
              results: [
                { callId: 'toolu_hand', name: 'get_weather', output: '-3 °C', isError: true },
              ],
            },
          ],
        },
        { thinking: 'low', tools },
      ),
    )
    expect(sentBody(replay)['thinking']).toEqual({ type: 'disabled' })
    expect(doneTurn(events).warnings).toEqual([
      expect.stringContaining('thinking off for this step'),
    ])
    expect((sentBody(replay)['messages'] as { content: unknown }[])[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_hand', content: '-3 °C', is_error: true },
    ])
  })

  it('merges consecutive messages of one role and drops empty assistant turns', async () => {
    const empty: AssistantTurn = {
      role: 'assistant',
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'refusal',
    }
    const { adapter, replay } = setup([{ body: fixture('answer-after-tool.sse') }])
    await run(
      adapter.stream({
        turns: [
          { role: 'user', content: 'First.' },
          empty,
          { role: 'user', content: [{ type: 'text', text: 'Second.' }] },
        ],
      }),
    )
    expect(sentBody(replay)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First.' },
          { type: 'text', text: 'Second.' },
        ],
      },
    ])
  })

  it('asks once more without stale thinking when the API says the signatures belong to another conversation', async () => {
    const first = setup([{ body: fixture('thinking-then-tool.sse') }])
    const turn = doneTurn(
      (await run(first.adapter.stream({ turns: [{ role: 'user', content: 'Weather?' }] }, options)))
        .events,
    )
    const stale = errorBody(
      'invalid_request_error',
      'messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.',
    )
    const { adapter, replay } = setup([
      { status: 400, body: stale, headers: { 'content-type': 'application/json' } },
      { body: fixture('answer-after-tool.sse') },
    ])
    const conversation: Conversation = {
      system: 'A new system prompt.',
      turns: [
        { role: 'user', content: 'Weather?' },
        turn,
        {
          role: 'tool',
          results: [{ callId: 'toolu_01Weather', name: 'get_weather', output: '18 °C' }],
        },
      ],
    }
    const { events, error } = await run(adapter.stream(conversation, options))
    expect(error).toBeUndefined()
    expect(replay.requests).toHaveLength(2)
    expect(JSON.stringify(replay.requests[0]!.body)).toContain(
      'EqQBCkYIAxgCKkBsigThinkingToolFixture',
    )
    const retried = sentBody(replay, 1)['messages'] as { content: unknown[] }[]
    expect(retried[1]!.content.map((block) => (block as { type: string }).type)).toEqual([
      'text',
      'tool_use',
    ])
    expect(JSON.stringify(retried)).not.toContain('signature')
    expect(doneTurn(events).warnings).toEqual([expect.stringContaining('earlier thinking dropped')])
  })

  it('does not ask again after a 400 when it replayed no thinking', async () => {
    const stale = errorBody('invalid_request_error', 'Invalid `signature` in `thinking` block')
    const { adapter, replay } = setup([
      { status: 400, body: stale, headers: { 'content-type': 'application/json' } },
    ])
    const { error } = await run(adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] }))
    expect(error).toMatchObject({ kind: 'invalid-request' })
    expect(replay.requests).toHaveLength(1)
  })
})
