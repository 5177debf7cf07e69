import { describe, expect, it } from 'vitest'
import {
  capabilitiesOf,
  geminiModel,
  geminiModels,
  UNKNOWN_GEMINI_MODEL,
} from '../../../src/providers/gemini/models.ts'
import { geminiWith } from './harness.ts'

const effort = (...levels: string[]) => ({ mode: 'effort', levels, canDisable: false })

describe('the gemini model table', () => {
  it.each([
    ['gemini-3-flash-preview', effort('minimal', 'low', 'medium', 'high')],
    ['gemini-3-pro-preview', effort('low', 'high')],
    ['gemini-3.1-pro-preview', effort('low', 'medium', 'high')],
    ['gemini-3.1-flash-lite-preview', effort('minimal', 'low', 'medium', 'high')],
    ['gemini-3.5-flash', effort('minimal', 'low', 'medium', 'high')],
    ['gemini-3.5-flash-lite', effort('minimal', 'low', 'medium', 'high')],
    ['gemini-3.6-flash', effort('minimal', 'low', 'medium', 'high')],
    ['gemini-3.7-flash', effort('low', 'medium', 'high')],
    ['gemini-3.8-flash', effort('low', 'high')],
    ['gemini-4-argon', effort('low', 'high')],
  ])(
    'gives %s its thinking levels and asks for signatures on replayed calls',
    (model, thinking) => {
      expect(geminiModel(model)).toEqual({
        thinking,
        tools: true,
        json: true,
        contextTokens: 1_048_576,
        maxOutputTokens: 65_536,
        requiresToolCallSignature: true,
      })
    },
  )

  it.each([
    ['gemini-2.5-pro', { min: 128, max: 32_768, canDisable: false }],
    ['gemini-2.5-flash', { min: 1, max: 24_576, canDisable: true }],
    ['gemini-2.5-flash-preview-09-2025', { min: 1, max: 24_576, canDisable: true }],
    ['gemini-2.5-flash-lite', { min: 512, max: 24_576, canDisable: true }],
  ])('gives %s a thinking budget and no signature rule', (model, limits) => {
    expect(geminiModel(model)).toMatchObject({
      thinking: { mode: 'budget', ...limits },
      maxOutputTokens: 65_536,
      requiresToolCallSignature: false,
    })
  })

  it.each(['gemini-2.0-flash', 'gemini-2.0-flash-lite-001', 'gemini-1.5-pro'])(
    'gives %s no thinking setting and its smaller output limit',
    (model) => {
      expect(geminiModel(model)).toMatchObject({
        thinking: { mode: 'none' },
        maxOutputTokens: 8_192,
        requiresToolCallSignature: false,
      })
    },
  )

  it('gives a model of no known family the conservative row: no thinking setting, no limits', () => {
    expect(geminiModel('gemma-3-27b-it')).toBe(UNKNOWN_GEMINI_MODEL)
    expect(UNKNOWN_GEMINI_MODEL).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: true,
      requiresToolCallSignature: false,
    })
  })

  it('lists current models that all have a row of their own family', () => {
    expect(geminiModels).toContain('gemini-3-flash-preview')
    expect(geminiModels).not.toContain('gemini-3-pro-preview')
    expect(new Set(geminiModels).size).toBe(geminiModels.length)
    for (const model of geminiModels) expect(geminiModel(model)).not.toBe(UNKNOWN_GEMINI_MODEL)
  })
})

describe('gemini capabilities', () => {
  it('are the model row without the Gemini-only signature rule', () => {
    expect(geminiWith([], 'gemini-3.1-pro-preview').adapter.capabilities).toEqual({
      thinking: effort('low', 'medium', 'high'),
      tools: true,
      json: true,
      contextTokens: 1_048_576,
      maxOutputTokens: 65_536,
    })
    expect(geminiWith([], 'gemini-2.5-flash').adapter.capabilities).toEqual(
      capabilitiesOf(geminiModel('gemini-2.5-flash')),
    )
  })

  it('are the unknown-model row for an unlisted model', () => {
    expect(geminiWith([], 'learnlm-2.0-flash-experimental').adapter.capabilities).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: true,
    })
  })
})
