import { describe, expect, it } from 'vitest'
import type { Turn } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { fixture, messageOf, thinkingBlock, turnThenNext } from './harness.ts'

const question: Turn = { role: 'user', content: 'Weather in Paris?' }
const more: Turn = { role: 'user', content: 'Et demain ?' }
const tools = [{ name: 'get_weather', parameters: { type: 'object' } }]

/** A thinking block with a signature and no text: what `display: 'omitted'` streams. */
const OMITTED = { type: 'thinking', thinking: '', signature: 'EosnCkYICxIMOmittedDisplayFixture==' }

describe('anthropic: signature-only thinking (display omitted)', () => {
  it('streams no thinking, stays in the items and goes back whole, signature and all', async () => {
    const { events, turn, next } = await turnThenNext(
      fixture('omitted-thinking.sse'),
      () => [more],
      { question: [question] },
    )
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'Paris is 18 °C — mild ' },
      { type: 'text', text: 'and dry ☀️.' },
    ])
    expect(turn).toMatchObject({ text: 'Paris is 18 °C — mild and dry ☀️.', stopReason: 'stop' })
    expect(turn.thinking).toBeUndefined()
    expect(turn.warnings).toBeUndefined()
    const data = [OMITTED, { type: 'text', text: 'Paris is 18 °C — mild and dry ☀️.' }]
    expect(turn.items?.data).toEqual(data)
    expect(next['messages']).toEqual([question, { role: 'assistant', content: data }, more])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('goes back first in a tool loop, ahead of the call it came with', async () => {
    const body = messageOf(
      [
        thinkingBlock('', OMITTED.signature),
        [
          { type: 'tool_use', id: 'toolu_01Omit', name: 'get_weather', input: {} },
          [{ type: 'input_json_delta', partial_json: '{"city": "Paris"}' }],
        ],
      ],
      'tool_use',
    )
    const { events, turn, next } = await turnThenNext(
      body,
      () => [
        {
          role: 'tool',
          results: [{ callId: 'toolu_01Omit', name: 'get_weather', output: '18 °C' }],
        },
      ],
      { question: [question], options: { tools } },
    )
    const call = { id: 'toolu_01Omit', name: 'get_weather', input: { city: 'Paris' } }
    expect(events.slice(0, -1)).toEqual([{ type: 'tool-call', call }])
    expect(turn).toMatchObject({ text: '', stopReason: 'tool-calls', toolCalls: [call] })
    const data = [OMITTED, { type: 'tool_use', ...call }]
    expect(turn.items?.data).toEqual(data)
    expect((next['messages'] as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: data },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01Omit', content: '18 °C' }],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('in a turn the output limit cut is kept ahead of its text, and left out when the turn ends with it', async () => {
    const answered = await turnThenNext(
      messageOf(
        [
          thinkingBlock('', OMITTED.signature),
          [{ type: 'text', text: '' }, [{ type: 'text_delta', text: 'Paris → 18' }]],
        ],
        'max_tokens',
      ),
      () => [more],
      { question: [question] },
    )
    expect(answered.turn.warnings).toBeUndefined()
    expect(answered.turn.items?.data).toEqual([OMITTED, { type: 'text', text: 'Paris → 18' }])
    expect((answered.next['messages'] as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [OMITTED, { type: 'text', text: 'Paris → 18' }],
    })

    const silent = await turnThenNext(
      messageOf([thinkingBlock('', OMITTED.signature)], 'max_tokens'),
      () => [more],
      { question: [question] },
    )
    expect(silent.events.map((event) => event.type)).toEqual(['done'])
    expect(silent.turn.items).toBeUndefined()
    expect(silent.next['messages']).toEqual([
      { role: 'user', content: `${question.content as string}\n\n${more.content as string}` },
    ])
  })
})
