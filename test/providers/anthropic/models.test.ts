import { describe, expect, it } from 'vitest'
import {
  anthropicModel,
  anthropicModels,
  unknownAnthropicModel,
} from '../../../src/providers/anthropic/models.ts'
import { anthropic } from '../../../src/providers/anthropic/index.ts'

const SAMPLING = ['temperature', 'top_p', 'top_k']

describe('anthropic models', () => {
  it('gives each family its thinking mode, limits and rejected options, for the bare and dated ids', () => {
    for (const id of ['claude-haiku-4-5', 'claude-haiku-4-5-20251001']) {
      expect(anthropicModel(id)).toEqual({
        id,
        known: true,
        row: {
          thinking: { mode: 'budget', min: 1024, max: 63_999, canDisable: true },
          tools: true,
          json: true,
          contextTokens: 200_000,
          maxOutputTokens: 64_000,
          rejects: SAMPLING,
        },
      })
    }
    expect(anthropicModel('claude-sonnet-4-6').row).toMatchObject({
      thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'max'], canDisable: true },
      maxOutputTokens: 64_000,
    })
    expect(anthropicModel('claude-opus-4-8').row.thinking).toEqual({
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
    })
    expect(anthropicModel('claude-sonnet-5').row.thinking).toMatchObject({
      canDisable: true,
      defaultOn: true,
    })
    expect(anthropicModel('claude-fable-5').row.thinking).toMatchObject({
      canDisable: false,
      defaultOn: true,
      hiddenByDefault: true,
    })
    expect(anthropicModel('claude-haiku-5-5').row).toMatchObject({
      thinking: { canDisable: true },
      maxOutputTokens: 64_000,
      rejects: SAMPLING,
    })
  })

  it('matches the longest family: Opus 5.5 refuses forced tool use, Opus 5 does not', () => {
    expect(anthropicModel('claude-opus-5-5').row.rejects).toEqual([
      ...SAMPLING,
      'forced-tool-choice',
    ])
    expect(anthropicModel('claude-opus-5').row.rejects).toEqual(SAMPLING)
    expect(anthropicModel('claude-opus-5-20260301').row.thinking).toMatchObject({
      canDisable: true,
    })
    expect(anthropicModel('claude-opus-5-5').row.thinking).toMatchObject({ canDisable: false })
    expect(anthropicModel('claude-fable-5-1').row.rejects).toContain('forced-tool-choice')
    expect(anthropicModel('claude-fable-5-2').row.rejects).toEqual(SAMPLING)
  })

  it('gives a model it does not know the conservative row, and says it does not know it', () => {
    expect(anthropicModel('claude-nova-9')).toEqual({
      id: 'claude-nova-9',
      known: false,
      row: unknownAnthropicModel,
    })
    expect(unknownAnthropicModel).toEqual({
      thinking: {
        mode: 'effort',
        levels: ['low', 'medium', 'high'],
        canDisable: false,
        hiddenByDefault: true,
      },
      tools: true,
      json: false,
      contextTokens: 200_000,
      maxOutputTokens: 32_000,
      rejects: SAMPLING,
    })
  })

  it('lists current models the table knows, and still knows the ones the design names', () => {
    expect(anthropicModels.length).toBeGreaterThan(0)
    expect(new Set(anthropicModels).size).toBe(anthropicModels.length)
    for (const id of anthropicModels) expect(anthropicModel(id).known).toBe(true)
    expect(anthropicModels).toEqual(expect.arrayContaining(['claude-sonnet-5', 'claude-haiku-4-5']))
    for (const id of ['claude-sonnet-5', 'claude-sonnet-4-5', 'claude-haiku-4-5'])
      expect(anthropicModel(id).known).toBe(true)
  })

  it('puts the model row on the adapter as its capabilities, without the request quirks', () => {
    const make = (model: string) => anthropic({ apiKey: 'sk-ant-test-key-0123456789', model })
    expect(make('claude-haiku-4-5').capabilities).toEqual({
      thinking: { mode: 'budget', min: 1024, max: 63_999, canDisable: true },
      tools: true,
      json: true,
      contextTokens: 200_000,
      maxOutputTokens: 64_000,
      pricing: { input: 1, cacheWrite: 1.25, cacheWrite1h: 2, cachedInput: 0.1, output: 5 },
    })
    expect(make('claude-opus-5-5').capabilities).not.toHaveProperty('rejects')
    expect(make('claude-nova-9').capabilities).toEqual({
      thinking: unknownAnthropicModel.thinking,
      tools: true,
      json: false,
      contextTokens: 200_000,
      maxOutputTokens: 32_000,
    })
  })
})
