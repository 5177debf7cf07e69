import { describe, expect, it, vi } from 'vitest'
import type { AdapterFactory } from '../../src/core/registry.ts'
import { complete } from '../../src/core/complete.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { createAnthropic } from '../../src/providers/anthropic/index.ts'
import { createGemini } from '../../src/providers/gemini/index.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createOpenAICompatible, presets } from '../../src/providers/openai-compatible/index.ts'
import { createOpenAI } from '../../src/providers/openai/index.ts'
import { lazyFactory } from '../../worker/lazy-factory.ts'
import { registryFromEnv } from '../../worker/registry.ts'

const ask = { turns: [{ role: 'user' as const, content: 'Hi' }] }

/** A factory of scripted models that answer with their own id. */
const scripted: AdapterFactory = Object.assign(
  (model: string) => mock({ provider: 'acme', model, script: [{ text: `I am ${model}` }] }),
  { models: ['one', 'two'] },
)

const capabilities = () => ({ thinking: { mode: 'none' as const }, tools: true, json: false })

/** The error `run` rejects with. */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('lazyFactory', () => {
  it('makes adapters with their provider, model and capabilities without loading', () => {
    const load = vi.fn(async () => scripted)
    const factory = lazyFactory({ provider: 'acme', models: ['one'], capabilities, load })
    const adapter = factory('one')
    expect(adapter).toMatchObject({ provider: 'acme', model: 'one', capabilities: capabilities() })
    expect(factory.models).toEqual(['one'])
    expect(load).not.toHaveBeenCalled()
  })

  it('loads once, when the first adapter streams, and hands each call to the loaded model', async () => {
    const load = vi.fn(async () => scripted)
    const factory = lazyFactory({ provider: 'acme', models: [], capabilities, load })
    const [one, two] = [factory('one'), factory('two')]
    const answers = await Promise.all([complete(one, ask), complete(two, ask), complete(one, ask)])
    expect(answers.map((turn) => turn.text)).toEqual(['I am one', 'I am two', 'I am one'])
    expect(load).toHaveBeenCalledTimes(1)
  })

  it("passes the loaded adapter's errors on as they are", async () => {
    const failing = mock({ provider: 'acme', script: [{ fail: { kind: 'auth', status: 401 } }] })
    const factory = lazyFactory({
      provider: 'acme',
      models: [],
      capabilities,
      load: async () => () => failing,
    })
    const error = await rejection(() => complete(factory('one'), ask))
    expect(isThinkwireError(error) && [error.kind, error.status]).toEqual(['auth', 401])
  })

  it('fails a call whose load fails with a server error naming the provider, and loads again on the next', async () => {
    const load = vi
      .fn<() => Promise<AdapterFactory>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'))
      .mockResolvedValue(scripted)
    const adapter = lazyFactory({ provider: 'acme', models: [], capabilities, load })('one')
    const error = await rejection(() => complete(adapter, ask))
    expect(isThinkwireError(error) && [error.kind, error.provider, error.message]).toEqual([
      'server',
      'acme',
      'acme: its SDK could not be loaded',
    ])
    expect((await complete(adapter, ask)).text).toBe('I am one')
    expect(load).toHaveBeenCalledTimes(2)
  })
})

describe("the Worker's providers before their SDK loads", () => {
  const registry = registryFromEnv({
    ANTHROPIC_API_KEY: 'sk-ant-test',
    OPENAI_API_KEY: 'sk-test',
    GEMINI_API_KEY: 'gemini-test',
    OPENAI_COMPATIBLE: 'deepseek mine=https://llm.example/v1',
    DEEPSEEK_API_KEY: 'sk-deepseek-test',
  })
  const loaded: { readonly [provider: string]: AdapterFactory } = {
    anthropic: createAnthropic({ apiKey: 'sk-ant-test' }),
    openai: createOpenAI({ apiKey: 'sk-test' }),
    gemini: createGemini({ apiKey: 'gemini-test' }),
    deepseek: createOpenAICompatible({ ...presets.deepseek, apiKey: 'sk-deepseek-test' }),
    mine: createOpenAICompatible({ provider: 'mine', baseURL: 'https://llm.example/v1' }),
  }

  it('list the models their loaded factories list, in order', () => {
    for (const [provider, factory] of Object.entries(loaded)) {
      const listed = registry.models().filter((model) => model.provider === provider)
      expect(listed.map((model) => model.model)).toEqual(factory.models)
    }
  })

  it('give every model, listed or not, the capabilities its loaded adapter has', () => {
    for (const [provider, factory] of Object.entries(loaded)) {
      for (const model of [...(factory.models ?? []), 'not-a-listed-model']) {
        const lazy = registry.resolve(`${provider}/${model}`)
        expect([lazy.provider, lazy.model, lazy.capabilities]).toEqual([
          provider,
          model,
          factory(model).capabilities,
        ])
      }
    }
  })
})
