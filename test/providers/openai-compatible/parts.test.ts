import { describe, expect, it } from 'vitest'
import {
  mapFinishReason,
  mapStopDetails,
  mapUsage,
} from '../../../src/providers/openai-compatible/map-finish.ts'
import { createReasoningDetails } from '../../../src/providers/openai-compatible/reasoning-details.ts'
import { reasoningFor } from '../../../src/providers/openai-compatible/models.ts'
import {
  createToolCallAssembler,
  parseArguments,
  withoutCutCall,
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

  it('starts a new call on a new id at an index that has a call with another id', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([
      { index: 0, id: 'a', function: { name: 'f', arguments: '{"x":1}' } },
      { index: 0, id: 'b', function: { name: 'g', arguments: '{' } },
    ])
    assembler.add([{ index: 0, function: { arguments: '"y":' } }])
    assembler.add([{ index: 0, id: '', function: { arguments: '2}' } }])
    assembler.add([{ index: 0, id: 'b', function: { name: 'g' } }])
    expect(assembler.calls()).toEqual([
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{"y":2}' },
    ])
  })

  it('gives a call without an id the id that arrives later at its index', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([{ index: 0, function: { name: 'f', arguments: '{' } }])
    assembler.add([{ index: 0, id: 'late', function: { arguments: '}' } }])
    expect(assembler.calls()).toEqual([{ id: 'late', name: 'f', arguments: '{}' }])
  })

  it('keeps the last extra_content object of a call', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([
      { index: 0, id: 'a', function: { name: 'f' }, extra_content: { google: { n: 1 } } },
      { index: 0, function: { arguments: '{}' }, extra_content: 'not an object' },
    ])
    assembler.add([{ index: 0, extra_content: { google: { n: 2 } } }])
    expect(assembler.calls()).toEqual([
      { id: 'a', name: 'f', arguments: '{}', extraContent: { google: { n: 2 } } },
    ])
  })

  it('keeps the first id and name of an index and makes up an id when there is none', () => {
    const assembler = createToolCallAssembler((position) => `made_${position}`)
    assembler.add([{ index: 3, function: { name: 'f', arguments: '{' } }])
    assembler.add([{ index: 3, id: '', function: { name: 'f', arguments: '}' } }])
    expect(assembler.calls()).toEqual([{ id: 'made_0', name: 'f', arguments: '{}' }])
  })

  it.each([
    ['length', false, '{"city":"Ber', ['a'], 'the output limit'],
    ['length', false, '', ['a'], 'the output limit'],
    ['length', false, '{"city":"Bern"}', ['a', 'b'], undefined],
    ['content_filter', false, '{"q":', ['a'], 'the content filter'],
    ['stop', true, '{"q":', ['a'], 'a refusal'],
    ['tool_calls', false, '{"q":', ['a', 'b'], undefined],
  ] as const)(
    'after finish_reason %s (refusal: %s), a last call with arguments %j leaves %j',
    (reason, refused, args, kept, cause) => {
      const warnings: string[] = []
      const calls = [
        { id: 'a', name: 'f', arguments: '{}' },
        { id: 'b', name: 'g', arguments: args },
      ]
      const left = withoutCutCall(calls, reason, refused, warnings)
      expect(left.map((call) => call.id)).toEqual(kept)
      expect(warnings).toEqual(
        cause === undefined
          ? []
          : [
              `tool call b (g) dropped: ${cause} cut off its arguments, so it is neither run nor replayed`,
            ],
      )
    },
  )

  it('parses empty arguments as an empty object', () => {
    const warnings: string[] = []
    expect(parseArguments({ id: 'c', name: 'f', arguments: ' ' }, warnings)).toEqual({})
    expect(warnings).toEqual([])
  })
})

describe('reasoning_details merging', () => {
  it('joins text and summaries of one index and type and keeps the last non-null signature', () => {
    const details = createReasoningDetails()
    expect(details.add([{ type: 'reasoning.summary', summary: 'Kurz', index: 0 }])).toBe('Kurz')
    expect(
      details.add([{ type: 'reasoning.summary', summary: 'fassung', index: 0, signature: null }]),
    ).toBe('fassung')
    expect(details.add([{ index: 0, signature: 'S' }])).toBe('')
    expect(details.entries()).toEqual([
      { type: 'reasoning.summary', summary: 'Kurzfassung', index: 0, signature: 'S' },
    ])
  })

  it('starts a new entry for another type at an index, and for every entry without an index', () => {
    const details = createReasoningDetails()
    details.add([{ type: 'reasoning.text', text: 'A', index: 0 }])
    details.add([{ type: 'reasoning.encrypted', data: 'D0', index: 0 }])
    details.add([{ type: 'reasoning.text', text: 'B', index: 0 }])
    details.add([
      { type: 'reasoning.encrypted', data: 'D1' },
      { type: 'reasoning.encrypted', data: 'D2' },
    ])
    details.add([{ type: 'reasoning.text', text: 'C' }])
    expect(details.entries()).toEqual([
      { type: 'reasoning.text', text: 'A', index: 0 },
      { type: 'reasoning.encrypted', data: 'D0', index: 0 },
      { type: 'reasoning.text', text: 'B', index: 0 },
      { type: 'reasoning.encrypted', data: 'D1' },
      { type: 'reasoning.encrypted', data: 'D2' },
      { type: 'reasoning.text', text: 'C' },
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

  it.each([
    ['refusal', 'content_filter', '', { category: 'content_filter' }],
    ['refusal', 'content_filter', 'Nein.', { category: 'content_filter', explanation: 'Nein.' }],
    ['refusal', 'stop', 'Nein.', { category: 'refusal', explanation: 'Nein.' }],
    ['length', 'length', 'Nein.', undefined],
    ['stop', 'stop', '', undefined],
  ] as const)(
    'says why a %s stop (finish_reason %s, refusal %j) happened: %j',
    (stopReason, reason, refusal, details) => {
      expect(mapStopDetails(stopReason, reason, refusal)).toEqual(details)
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
