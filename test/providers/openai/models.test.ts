import { describe, expect, it } from 'vitest'
import { openai, openaiModels } from '../../../src/providers/openai/index.ts'
import {
  openaiModel,
  unknownOpenAIModel,
  type OpenAIModel,
} from '../../../src/providers/openai/models.ts'

const effort = (levels: string[], canDisable: boolean) => ({ mode: 'effort', levels, canDisable })

describe('openai models', () => {
  it('gives a model the line of the longest family it belongs to', () => {
    expect(openaiModel('gpt-5.4-2026-03-05').thinking).toEqual(
      effort(['low', 'medium', 'high', 'xhigh'], true),
    )
    expect(openaiModel('gpt-5.2-pro').thinking).toEqual(effort(['high'], false))
    expect(openaiModel('gpt-5.2-codex').thinking).toEqual(
      effort(['low', 'medium', 'high', 'xhigh'], true),
    )
    expect(openaiModel('gpt-5.1-codex-mini').thinking).toEqual(
      effort(['low', 'medium', 'high'], false),
    )
    expect(openaiModel('gpt-5.1-codex-max').thinking).toEqual(
      effort(['low', 'medium', 'high', 'xhigh'], false),
    )
    expect(openaiModel('gpt-5-mini-2025-08-07').thinking).toEqual(
      effort(['minimal', 'low', 'medium', 'high'], false),
    )
    expect(openaiModel('gpt-5.6-sol').thinking).toEqual(
      effort(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'], true),
    )
    expect(openaiModel('gpt-5-pro-2025-10-06')).toMatchObject({
      thinking: effort(['high'], false),
      maxOutputTokens: 272_000,
    })
    expect(openaiModel('o4-mini-2025-04-16')).toMatchObject({
      contextTokens: 200_000,
      maxOutputTokens: 100_000,
      rejects: ['temperature'],
    })
  })

  it('gives an exact id its own line, and a dated id of a chat model its family line', () => {
    const chat: Partial<OpenAIModel> = {
      thinking: { mode: 'none' },
      contextTokens: 128_000,
      maxOutputTokens: 16_384,
      rejects: ['temperature'],
    }
    expect(openaiModel('gpt-5-chat-latest')).toMatchObject(chat)
    expect(openaiModel('gpt-5.3-chat-latest')).toMatchObject(chat)
    expect(openaiModel('gpt-5.3-chat-latest-2026').thinking).toEqual(
      effort(['low', 'medium', 'high', 'xhigh'], false),
    )
    expect(openaiModel('codex-mini-latest')).toMatchObject({ contextTokens: 200_000 })
  })

  it('lets the GPT-4 line keep its sampling parameters and take no reasoning', () => {
    expect(openaiModel('gpt-4.1-mini')).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: true,
      contextTokens: 1_047_576,
      maxOutputTokens: 32_768,
      rejects: [],
      mayNotReason: false,
    })
    expect(openaiModel('gpt-4o')).toMatchObject({ rejects: [], contextTokens: 128_000 })
  })

  it('gives a model it does not know the conservative row', () => {
    expect(openaiModel('gpt-7-preview')).toBe(unknownOpenAIModel)
    expect(openaiModel('gpt-4-turbo')).toBe(unknownOpenAIModel)
    expect(unknownOpenAIModel).toEqual({
      thinking: effort(['low', 'medium', 'high'], false),
      tools: true,
      json: false,
      contextTokens: 128_000,
      maxOutputTokens: 16_384,
      rejects: ['temperature'],
      mayNotReason: true,
    })
  })

  it('lists current models that all have a line of their own in the table', () => {
    expect(openaiModels.length).toBeGreaterThan(0)
    expect(new Set(openaiModels).size).toBe(openaiModels.length)
    for (const model of openaiModels) expect(openaiModel(model)).not.toBe(unknownOpenAIModel)
  })
})

describe('openai capabilities', () => {
  const capabilitiesOf = (model: string) =>
    openai({ apiKey: 'sk-test-key-0123456789', model }).capabilities

  it("advertises a model's row without its request quirks", () => {
    expect(capabilitiesOf('gpt-5.4')).toEqual({
      thinking: effort(['low', 'medium', 'high', 'xhigh'], true),
      tools: true,
      json: true,
      contextTokens: 400_000,
      maxOutputTokens: 128_000,
      pricing: { input: 2.5, cachedInput: 0.25, output: 15 },
    })
    expect(capabilitiesOf('gpt-4.1')).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: true,
      contextTokens: 1_047_576,
      maxOutputTokens: 32_768,
    })
  })

  it('advertises the conservative row for a model it does not know', () => {
    expect(capabilitiesOf('gpt-7-preview')).toEqual({
      thinking: effort(['low', 'medium', 'high'], false),
      tools: true,
      json: false,
      contextTokens: 128_000,
      maxOutputTokens: 16_384,
    })
  })
})
