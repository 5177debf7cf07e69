import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, sentBody, setup } from './harness.ts'

const tools = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
]
const options: CallOptions = { thinking: 'medium', tools }

function input(body: Record<string, unknown>): unknown[] {
  const items = body['input']
  if (!Array.isArray(items)) throw new Error('input is not a list')
  return items
}

describe('openai replay', () => {
  it('replays a three-turn conversation with earlier output items byte for byte, then the tool outputs', async () => {
    const { adapter, replay } = setup([
      { body: fixture('reasoning-then-function-calls.sse') },
      { body: fixture('reasoning-then-text.sse') },
      { body: fixture('refusal.sse') },
    ])
    const conversation: Conversation = {
      system: 'Weather bot.',
      turns: [{ role: 'user', content: 'Paris and Tokyo?' }],
    }
    const first = doneTurn((await run(adapter.stream(conversation, options))).events)
    conversation.turns.push(first, {
      role: 'tool',
      results: [
        { callId: 'call_Paris1', name: 'get_weather', output: { celsius: 18 } },
        { callId: 'call_Tokyo2', name: 'get_weather', output: 'rain', isError: true },
      ],
    })
    const second = doneTurn((await run(adapter.stream(conversation, options))).events)
    conversation.turns.push(second, { role: 'user', content: 'Thanks!' })
    await run(adapter.stream(conversation, options))

    const sent = input(sentBody(replay, 2))
    expect(sent[0]).toEqual({ role: 'user', content: 'Paris and Tokyo?' })
    expect(JSON.stringify(sent.slice(1, 4))).toBe(JSON.stringify(first.items!.data))
    expect(sent.slice(4, 6)).toEqual([
      { type: 'function_call_output', call_id: 'call_Paris1', output: '{"celsius":18}' },
      { type: 'function_call_output', call_id: 'call_Tokyo2', output: 'Error: rain' },
    ])
    expect(JSON.stringify(sent.slice(6, 8))).toBe(JSON.stringify(second.items!.data))
    expect(sent[8]).toEqual({ role: 'user', content: 'Thanks!' })
    expect(sent).toHaveLength(9)
    expect(input(sentBody(replay, 1)).slice(1, 4)).toEqual(first.items!.data)
    for (const request of replay.requests)
      expect(request.body).toMatchObject({ store: false, instructions: 'Weather bot.' })
  })

  it('leaves out reasoning items it cannot replay without stored state (what followed them without ids), and a reasoning item left last', async () => {
    const turn: AssistantTurn = {
      role: 'assistant',
      text: 'Partial',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'length',
      items: {
        provider: 'openai',
        model: 'gpt-5.4',
        thinkingMode: 'default',
        data: [
          { type: 'reasoning', id: 'rs_no_enc', summary: [], encrypted_content: null },
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            status: 'incomplete',
            content: [{ type: 'output_text', text: 'Partial', annotations: [] }],
          },
          { type: 'reasoning', id: 'rs_last', summary: [], encrypted_content: 'gAAAA-last' },
        ],
      },
    }
    const { adapter, replay } = setup([{ body: fixture('refusal.sse') }])
    await run(
      adapter.stream({
        turns: [{ role: 'user', content: 'Go' }, turn, { role: 'user', content: 'Go on' }],
      }),
    )
    expect(input(sentBody(replay))).toEqual([
      { role: 'user', content: 'Go' },
      {
        type: 'message',
        role: 'assistant',
        status: 'incomplete',
        content: [{ type: 'output_text', text: 'Partial', annotations: [] }],
      },
      { role: 'user', content: 'Go on' },
    ])
  })

  it('re-encodes a turn from another model as a message and function calls, without its reasoning', async () => {
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: 'Let me check.',
      thinking: 'private chain of thought',
      toolCalls: [{ id: 'toolu_01X', name: 'get_weather', input: { city: 'Oslo' } }],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'tool-calls',
      items: {
        provider: 'anthropic',
        model: 'claude-sonnet-5',
        thinkingMode: 'medium',
        data: [{ type: 'thinking', thinking: 'x', signature: 'SIG-foreign' }],
      },
    }
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    await run(
      adapter.stream(
        {
          turns: [
            { role: 'user', content: 'Oslo?' },
            foreign,
            {
              role: 'tool',
              results: [{ callId: 'toolu_01X', name: 'get_weather', output: '-3 °C' }],
            },
          ],
        },
        options,
      ),
    )
    const sent = JSON.stringify(sentBody(replay))
    expect(sent).not.toContain('SIG-foreign')
    expect(sent).not.toContain('private chain of thought')
    expect(input(sentBody(replay))).toEqual([
      { role: 'user', content: 'Oslo?' },
      { role: 'assistant', content: 'Let me check.' },
      {
        type: 'function_call',
        call_id: 'toolu_01X',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
      },
      { type: 'function_call_output', call_id: 'toolu_01X', output: '-3 °C' },
    ])
  })

  it('re-encodes its own turn when the thinking mode changed', async () => {
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    const turn = doneTurn(
      (
        await run(
          adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] }, { thinking: 'high' }),
        )
      ).events,
    )
    await run(
      adapter.stream(
        { turns: [{ role: 'user', content: 'Hi' }, turn, { role: 'user', content: 'More' }] },
        { thinking: 'low' },
      ),
    )
    expect(input(sentBody(replay))).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '9.8 is larger → because 0.80 > 0.11 ✅' },
      { role: 'user', content: 'More' },
    ])
  })
})
