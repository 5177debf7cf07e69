import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../src/core/errors.ts'
import type { Adapter } from '../src/core/adapter.ts'
import { createRegistry } from '../src/core/registry.ts'
import { mock } from '../src/providers/mock/index.ts'

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('createRegistry', () => {
  it('resolves a provider/model id through a factory, building the adapter of that model', () => {
    const registry = createRegistry({ acme: (model) => mock({ provider: 'acme', model }) })
    const adapter = registry.resolve('acme/big-1')
    expect(adapter.provider).toBe('acme')
    expect(adapter.model).toBe('big-1')
  })

  it('keeps every slash after the first in the model id', () => {
    const registry = createRegistry({ router: (model) => mock({ provider: 'router', model }) })
    expect(registry.resolve('router/meta/llama-3').model).toBe('meta/llama-3')
  })

  it('names an unknown provider and lists the known ones, as a 404 invalid-request', () => {
    const registry = createRegistry({ mock: (model) => mock({ model }), acme: () => mock() })
    const error = thrown(() => registry.resolve('nope/x'))
    expect(isThinkwireError(error)).toBe(true)
    if (!isThinkwireError(error)) return
    expect(error.kind).toBe('invalid-request')
    expect(error.status).toBe(404)
    expect(error.message).toBe("Unknown provider 'nope' in 'nope/x'; known: mock, acme")
  })

  it('resolves only the listed models of a provider and names the others', () => {
    const registry = createRegistry({
      mock: { create: (model) => mock({ model }), models: ['echo', 'other'] },
    })
    expect(registry.resolve('mock/other').model).toBe('other')
    const error = thrown(() => registry.resolve('mock/missing'))
    expect(isThinkwireError(error) && error.message).toBe(
      "Unknown model 'missing' of 'mock'; known: mock/echo, mock/other",
    )
  })

  it('refuses an id without a provider or a model', () => {
    const registry = createRegistry({ mock: (model) => mock({ model }) })
    for (const id of ['echo', '/echo', 'mock/', '']) {
      const error = thrown(() => registry.resolve(id))
      expect(isThinkwireError(error) && error.message).toMatch(/must be 'provider\/model'/)
    }
  })

  it('serves an adapter, or a list of adapters, under exactly their models', () => {
    const one = mock({ provider: 'groq', model: 'llama' })
    const registry = createRegistry({
      groq: one,
      local: [mock({ provider: 'local', model: 'a' }), mock({ provider: 'local', model: 'b' })],
    })
    expect(registry.resolve('groq/llama')).toBe(one)
    expect(registry.resolve('local/b').model).toBe('b')
    expect(() => registry.resolve('groq/other')).toThrow(/Unknown model 'other'/)
    expect(registry.models().map((m) => m.id)).toEqual(['groq/llama', 'local/a', 'local/b'])
  })

  it('lists served models with the capabilities their adapters report', () => {
    const plain: Adapter = { provider: 'mock', model: 'plain', stream: mock().stream }
    const registry = createRegistry({
      mock: {
        create: (model) => (model === 'plain' ? plain : mock({ model })),
        models: ['echo', 'plain'],
      },
    })
    const [echo, bare] = registry.models()
    expect(echo).toMatchObject({
      id: 'mock/echo',
      provider: 'mock',
      model: 'echo',
      tools: true,
      json: true,
      contextTokens: 200_000,
    })
    expect(echo?.thinking).toMatchObject({ mode: 'effort' })
    expect(bare).toEqual({ id: 'mock/plain', provider: 'mock', model: 'plain' })
  })

  it("advertises a factory's own models and still resolves any other model", () => {
    const factory = Object.assign((model: string) => mock({ model }), { models: ['echo', 'b'] })
    const registry = createRegistry({ mock: factory })
    expect(registry.models().map((m) => m.id)).toEqual(['mock/echo', 'mock/b'])
    expect(registry.resolve('mock/unlisted').model).toBe('unlisted')
    expect(registry.providers).toEqual(['mock'])
  })

  it('advertises nothing for a bare factory without models', () => {
    const registry = createRegistry({ mock: (model) => mock({ model }) })
    expect(registry.models()).toEqual([])
    expect(registry.resolve('mock/echo').model).toBe('echo')
  })

  it('builds each model once, so adapters (and their SDK clients) are not made per request', () => {
    let built = 0
    const registry = createRegistry({
      mock: (model) => {
        built++
        return mock({ model })
      },
    })
    const first = registry.resolve('mock/a')
    expect(registry.resolve('mock/a')).toBe(first)
    registry.resolve('mock/b')
    expect(built).toBe(2)
  })

  it('keeps a bounded number of adapters, so client-chosen model ids cannot grow memory', () => {
    let built = 0
    const registry = createRegistry({
      mock: (model) => {
        built++
        return mock({ model })
      },
    })
    const first = registry.resolve('mock/m0')
    for (let i = 1; i <= 64; i++) registry.resolve(`mock/m${i}`)
    expect(built).toBe(65)
    expect(registry.resolve('mock/m0')).not.toBe(first)
    expect(built).toBe(66)
  })

  it('refuses a provider name with a slash', () => {
    expect(() => createRegistry({ 'a/b': () => mock() })).toThrow(/must be non-empty without '\/'/)
  })
})
