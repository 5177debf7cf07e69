import { describe, expect, it } from 'vitest'
import { mapFinishReason, mapUsage } from '../../../src/providers/openai-compatible/map-finish.ts'
import { createReasoningDetails } from '../../../src/providers/openai-compatible/reasoning-details.ts'
import { reasoningFor } from '../../../src/providers/openai-compatible/models.ts'
import {
  createToolCallAssembler,
  parseArguments,
} from '../../../src/providers/openai-compatible/tool-calls.ts'

describe('tool call assembly', () => {
  it('continues the last call when fragments have no index and starts a new one on a new id', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([{ id: 'a', function: { name: 'f', arguments: '{"x":' } }])
    assembler.add([{ function: { arguments: '1}' } }])
    assembler.add([{ id: 'a', function: { name: 'f', arguments: '' } }])
    assembler.add([{ id: 'b', function: { name: 'g', arguments: { y: 2 } } }])
    expect(assembler.calls()).toEqual([
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{"y":2}' },
    ])
  })

  it('keeps the first id and name of an index and makes up an id when there is none', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([{ index: 3, function: { name: 'f', arguments: '{' } }])
    assembler.add([{ index: 3, id: '', function: { name: 'f', arguments: '}' } }])
    expect(assembler.calls()).toEqual([{ id: 'made_0', name: 'f', arguments: '{}' }])
  })

  it('parses empty arguments as an empty object', () => {
    const warnings: string[] = []
    expect(parseArguments({ id: 'c', name: 'f', arguments: ' ' }, warnings)).toEqual({})
    expect(warnings).toEqual([])
  })
})

describe('reasoning_details merging', () => {
  it('joins text and summaries per index and keeps the last signature', () => {
    const details = createReasoningDetails()
    expect(details.add([{ type: 'reasoning.summary', summary: 'Kurz', index: 0 }])).toBe('Kurz')
    expect(
      details.add([{ type: 'reasoning.summary', summary: 'fassung', index: 0, signature: null }]),
    ).toBe('fassung')
    expect(details.add([{ type: 'reasoning.text', signature: 'S', index: 0 }])).toBe('')
    expect(details.add([{ type: 'reasoning.encrypted', data: 'D' }])).toBe('')
    expect(details.entries()).toEqual([
      { type: 'reasoning.text', summary: 'Kurzfassung', index: 0, signature: 'S' },
      { type: 'reasoning.encrypted', data: 'D' },
    ])
  })
})

describe('usage and stop reasons', () => {
  it('counts reasoning in the output once, also when a server counts it apart', () => {
    expect(
      mapUsage({
        prompt_tokens: 10,
        completion_tokens: 30,
        total_tokens: 40,
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 30, reasoningTokens: 20 })
    // xAI: total = prompt + completion + reasoning, so completion leaves reasoning out.
    expect(
      mapUsage({
        prompt_tokens: 12,
        completion_tokens: 2,
        total_tokens: 354,
        completion_tokens_details: { reasoning_tokens: 340 },
        prompt_tokens_details: { cached_tokens: 11 },
      }),
    ).toEqual({ inputTokens: 12, outputTokens: 342, reasoningTokens: 340, cacheReadTokens: 11 })
    expect(
      mapUsage({ prompt_tokens: 5, completion_tokens: 1, prompt_cache_hit_tokens: 4 }),
    ).toEqual({
      inputTokens: 5,
      outputTokens: 1,
      cacheReadTokens: 4,
    })
    expect(mapUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0 })
  })

  it.each([
    ['stop', false, false, 'stop'],
    ['stop', true, false, 'tool-calls'],
    ['tool_calls', true, false, 'tool-calls'],
    ['length', true, false, 'length'],
    ['content_filter', false, false, 'refusal'],
    ['stop', false, true, 'refusal'],
    ['eos', false, false, 'other'],
  ] as const)(
    'maps finish_reason %s (calls: %s, refusal: %s) to %s',
    (reason, calls, refused, expected) => {
      expect(mapFinishReason(reason, calls, refused)).toBe(expected)
    },
  )
})

describe('per-model reasoning settings', () => {
  it('takes the exact model row first, then the longest prefix, over the server’s settings', () => {
    const models = [
      { id: 'qwen*', reasoning: { thinkTags: 'off' as const } },
      { id: 'qwen3*', reasoning: { thinkTags: 'starts-inside' as const } },
      { id: 'qwen3-exact', reasoning: { sendBack: ['reasoning' as const] } },
    ]
    const base = { thinkTags: 'tags' as const, control: { type: 'none' as const } }
    expect(reasoningFor('qwen3-8b', base, models)).toEqual({ ...base, thinkTags: 'starts-inside' })
    expect(reasoningFor('qwen3-exact', base, models)).toEqual({ ...base, sendBack: ['reasoning'] })
    expect(reasoningFor('llama', base, models)).toEqual(base)
  })
})
