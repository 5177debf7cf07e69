import { describe, expect, it } from 'vitest'
import { runTools } from '../../../src/core/tools.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { awkwardSplits, fixture, sentBody, setup } from './harness.ts'

/** The input Ollama sent whole in the call's `content_block_start`. */
const INPUT = { city: 'Zürich', days: [1, 2], units: { temp: '°C' } }

describe('anthropic: an Anthropic-compatible server', () => {
  it('that sends a tool call’s whole input at its start, with no delta, has the call run with that input', async () => {
    const body = fixture('compatible-tool-input.sse')
    const { adapter, replay } = setup(
      [{ body, splitAt: awkwardSplits(body) }, { body: fixture('answer-after-tool.sse') }],
      { baseURL: 'http://localhost:11434', model: 'qwen3' },
    )
    const seen: unknown[] = []
    const events: unknown[] = []
    const result = await runTools(
      adapter,
      { turns: [{ role: 'user', content: 'Wetter in Zürich?' }] },
      {
        tools: {
          get_weather: {
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            execute: (input) => {
              seen.push(input)
              return '14 °C'
            },
          },
        },
        onEvent: (event) => events.push(event),
      },
    )
    expect(seen).toEqual([INPUT])
    const call = { id: 'call_k2x9', name: 'get_weather', input: INPUT }
    const turn = result.conversation.turns[1]
    expect(events.slice(0, 3)).toEqual([
      { type: 'text', text: 'Je regarde → Zürich 🌤' },
      { type: 'tool-call', call },
      { type: 'done', turn },
    ])
    expect(turn).toMatchObject({
      text: 'Je regarde → Zürich 🌤',
      stopReason: 'tool-calls',
      toolCalls: [call],
      items: {
        provider: 'anthropic',
        model: 'qwen3',
        // The empty text block ahead of the answer is left out; the call keeps its input.
        data: [
          { type: 'text', text: 'Je regarde → Zürich 🌤' },
          { type: 'tool_use', id: 'call_k2x9', name: 'get_weather', input: INPUT },
        ],
      },
    })
    const next = sentBody(replay, 1)
    expect((next['messages'] as unknown[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Je regarde → Zürich 🌤' },
          { type: 'tool_use', id: 'call_k2x9', name: 'get_weather', input: INPUT },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_k2x9', content: '14 °C' }],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })
})
