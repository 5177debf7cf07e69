import { describe, expect, it } from 'vitest'
import type { Turn } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { fixture, turnThenNext } from './harness.ts'

const question: Turn = { role: 'user', content: 'List the steps, then ###.' }
const again: Turn = { role: 'user', content: 'Now without the marker, s’il te plaît.' }

describe('anthropic: a text block that got no text', () => {
  it('is left out of the items; a stop sequence matched at once leaves only thinking, and so nothing to send back', async () => {
    const { events, turn, next } = await turnThenNext(
      fixture('stop-sequence-at-once.sse'),
      () => [again],
      { question: [question], options: { stop: ['###'] } },
    )
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'The list starts with “###” → stop there.' },
    ])
    expect(turn).toMatchObject({ text: '', stopReason: 'stop' })
    expect(turn.warnings).toEqual([
      'thinking left out of the items: the turn ended with it, and the API takes back no assistant message that ends with thinking',
    ])
    expect(turn.items).toBeUndefined()
    expect(next['messages']).toEqual([
      { role: 'user', content: `${question.content as string}\n\n${again.content as string}` },
    ])
    expect(JSON.stringify(next)).not.toContain('"text":""')
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('from a compatible server, ahead of a tool call, is left out and the call replays alone', async () => {
    const body = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_gw_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 12, output_tokens: 0 },
          },
        },
      ],
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_gw1', name: 'get_weather', input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: '{"city": "Kraków"}' },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 18 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ])
    const call = { id: 'toolu_gw1', name: 'get_weather', input: { city: 'Kraków' } }
    const { events, turn, next } = await turnThenNext(
      body,
      () => [{ role: 'tool', results: [{ callId: call.id, name: call.name, output: '9 °C' }] }],
      { options: { tools: [{ name: 'get_weather', parameters: { type: 'object' } }] } },
    )
    expect(events.slice(0, -1)).toEqual([{ type: 'tool-call', call }])
    expect(turn).toMatchObject({ text: '', stopReason: 'tool-calls', toolCalls: [call] })
    expect(turn.warnings).toBeUndefined()
    const kept = [{ type: 'tool_use', id: call.id, name: call.name, input: call.input }]
    expect(turn.items?.data).toEqual(kept)
    expect((next['messages'] as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: kept },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '9 °C' }] },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })
})
