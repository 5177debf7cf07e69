import { describe, expect, it } from 'vitest'
import {
  createOpenAICompatible,
  presets,
  type PresetName,
} from '../../../src/providers/openai-compatible/index.ts'
import { compatibleModel } from '../../../src/providers/openai-compatible/models.ts'

const all = ['low', 'medium', 'high', 'max']
const capabilitiesOf = (name: PresetName, model: string) =>
  createOpenAICompatible(presets[name])(model).capabilities

describe('openai-compatible model rows', () => {
  it.each([
    ['groq', 'qwen/qwen3-32b', { mode: 'effort', levels: all, canDisable: true }],
    ['groq', 'openai/gpt-oss-120b', { mode: 'effort', levels: all, canDisable: false }],
    ['groq', 'llama-3.3-70b-versatile', { mode: 'none' }],
    [
      'openrouter',
      'anthropic/claude-sonnet-4.5',
      { mode: 'effort', levels: all, canDisable: true },
    ],
    ['deepseek', 'deepseek-reasoner', { mode: 'effort', levels: all, canDisable: true }],
    ['xai', 'grok-3-mini', { mode: 'effort', levels: all, canDisable: false }],
    ['xai', 'grok-4', { mode: 'none' }],
    ['mistral', 'magistral-medium-latest', { mode: 'none' }],
    [
      'fireworks',
      'accounts/fireworks/models/gpt-oss-20b',
      { mode: 'effort', levels: all, canDisable: false },
    ],
    ['ollama', 'qwen3:8b', { mode: 'none' }],
  ] as const)(
    'reports the thinking %s %s takes from its reasoning control',
    (name, model, thinking) => {
      expect(capabilitiesOf(name, model)?.thinking).toEqual(thinking)
    },
  )

  it('gives each DeepSeek model its own limits over what all of them share', () => {
    const flash = { input: 0.3, cachedInput: 0.006, output: 1.2 }
    expect(capabilitiesOf('deepseek', 'deepseek-v4-flash')).toEqual({
      thinking: { mode: 'effort', levels: all, canDisable: true },
      tools: true,
      json: false,
      contextTokens: 1_000_000,
      pricing: flash,
    })
    // The retired names are the model they stand for.
    for (const alias of ['deepseek-chat', 'deepseek-reasoner'])
      expect(capabilitiesOf('deepseek', alias)).toEqual(
        capabilitiesOf('deepseek', 'deepseek-v4-flash'),
      )
    expect(capabilitiesOf('deepseek', 'deepseek-flash')).toMatchObject({ pricing: flash })
    expect(capabilitiesOf('deepseek', 'deepseek-v4-pro')).toMatchObject({
      json: false,
      contextTokens: 1_000_000,
      pricing: { input: 1.32, cachedInput: 0.044, output: 3.96 },
    })
    // An unlisted model gets what every DeepSeek model shares, and no output limit.
    expect(capabilitiesOf('deepseek', 'deepseek-v9')).toEqual({
      thinking: { mode: 'effort', levels: all, canDisable: true },
      tools: true,
      json: false,
      contextTokens: 128_000,
    })
  })

  it.each([
    [
      { baseURL: 'https://llm.test/v1' },
      'settings.provider must be a non-empty string, got undefined',
    ],
    [
      { provider: '', baseURL: 'https://llm.test/v1' },
      'settings.provider must be a non-empty string, got an empty string',
    ],
    [{ provider: 'mine' }, 'settings.baseURL must be a non-empty string, got undefined'],
  ])('refuses settings %j, naming the field', (settings, message) => {
    expect(() => createOpenAICompatible(settings as never)).toThrow(
      expect.objectContaining({ kind: 'invalid-request', message: `openaiCompatible: ${message}` }),
    )
  })

  it('gives a model of a server without rows the server row: its reasoning, tools and JSON', () => {
    const factory = createOpenAICompatible({ provider: 'mine', baseURL: 'https://llm.test/v1' })
    expect(factory('anything').capabilities).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: true,
    })
    expect(factory.models).toEqual([])
  })

  it('takes the exact id over a family, the longest family over a shorter one, in both forms', () => {
    const reasoning = { thinkTags: 'tags' as const, sendBack: ['reasoning' as const] }
    const table = {
      '*': { contextTokens: 1000 },
      'm*': { maxOutputTokens: 10, reasoning: { thinkTags: 'off' as const } },
      'm-long*': { maxOutputTokens: 20 },
      'm-1': { tools: false },
    }
    const defaults = {
      stopSequences: 4,
      cacheKey: false,
      temperature: true,
      maxTokensField: 'max_tokens',
    }
    expect(compatibleModel('m-1', reasoning, table)).toEqual({
      reasoning,
      tools: false,
      json: true,
      contextTokens: 1000,
      ...defaults,
    })
    expect(compatibleModel('m-longer', reasoning, table)).toMatchObject({ maxOutputTokens: 20 })
    expect(compatibleModel('m-2', reasoning, table)).toEqual({
      reasoning: { ...reasoning, thinkTags: 'off' },
      tools: true,
      json: true,
      contextTokens: 1000,
      maxOutputTokens: 10,
      ...defaults,
    })
    expect(compatibleModel('x', reasoning, table)).toEqual({
      reasoning,
      tools: true,
      json: true,
      contextTokens: 1000,
      ...defaults,
    })
    const list = Object.entries(table).map(([id, row]) => ({ id, ...row }))
    for (const model of ['m-1', 'm-longer', 'm-2', 'x'])
      expect(compatibleModel(model, reasoning, list)).toEqual(
        compatibleModel(model, reasoning, table),
      )
  })

  it('lists the current models of every hosted server and none for a local one', () => {
    for (const name of Object.keys(presets) as PresetName[]) {
      const preset = presets[name]
      const ids = 'modelIds' in preset ? preset.modelIds : []
      const local = preset.baseURL.startsWith('http://localhost')
      expect(ids.length > 0, name).toBe(!local)
      expect(createOpenAICompatible(preset).models).toEqual(ids)
    }
    expect(presets.deepseek.modelIds).toContain('deepseek-reasoner')
  })

  it.each([
    ['deepseek', 'deepseek-v4-flash', ['reasoning_content'], true, 16],
    ['deepseek', 'deepseek-v9', ['reasoning_content'], true, 16],
    ['deepseek', 'deepseek-reasoner', ['reasoning_content'], true, 16],
    ['deepseek', 'deepseek-chat', ['reasoning_content'], true, 16],
    ['openrouter', 'google/gemini-3-pro-preview', ['reasoning_details'], undefined, 4],
    ['xai', 'grok-4', undefined, undefined, 0],
    ['xai', 'grok-4-fast-non-reasoning', undefined, undefined, 4],
    ['openai-chat', 'gpt-5.4', undefined, undefined, 0],
    ['openai-chat', 'gpt-4.1', undefined, undefined, 4],
  ] as const)(
    'gives %s %s its own replay fields and stop limit',
    (name, model, sendBack, required, stopSequences) => {
      const preset = presets[name]
      const info = compatibleModel(
        model,
        preset.reasoning,
        'models' in preset ? preset.models : undefined,
      )
      expect(info.reasoning.sendBack).toEqual(sendBack)
      expect(info.reasoning.required).toBe(required)
      expect(info.stopSequences).toBe(stopSequences)
    },
  )

  it('marks only OpenAI itself as taking a cache key, with the cap as max_completion_tokens', () => {
    for (const name of Object.keys(presets) as PresetName[]) {
      const preset = presets[name]
      const model = 'modelIds' in preset ? (preset.modelIds[0] ?? 'm') : 'm'
      const info = compatibleModel(
        model,
        preset.reasoning,
        'models' in preset ? preset.models : undefined,
      )
      expect(info.cacheKey, name).toBe(name === 'openai-chat')
      expect(info.maxTokensField, name).toBe(
        name === 'openai-chat' ? 'max_completion_tokens' : 'max_tokens',
      )
    }
  })
})
