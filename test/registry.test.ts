import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../src/core/errors.ts'
import { createRegistry, isRegistry } from '../src/core/registry.ts'
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

  it('lists served models with their capabilities from the model table', () => {
    const registry = createRegistry({
      mock: { create: (model) => mock({ model }), models: ['echo', 'unlisted'] },
    })
    const [echo, unlisted] = registry.models()
    expect(echo).toMatchObject({
      id: 'mock/echo',
      provider: 'mock',
      model: 'echo',
      tools: true,
      json: true,
      contextTokens: 200_000,
    })
    expect(echo?.thinking).toMatchObject({ mode: 'effort' })
    expect(unlisted).toEqual({ id: 'mock/unlisted', provider: 'mock', model: 'unlisted' })
  })

  it('advertises the table models of a provider served by a bare factory', () => {
    const registry = createRegistry({ mock: (model) => mock({ model }) })
    expect(registry.models().map((m) => m.id)).toContain('mock/echo')
    expect(registry.providers).toEqual(['mock'])
  })

  it('refuses a provider name with a slash', () => {
    expect(() => createRegistry({ 'a/b': () => mock() })).toThrow(/must be non-empty without '\/'/)
  })

  it('is recognised as a registry, and plain entries are not', () => {
    expect(isRegistry(createRegistry({}))).toBe(true)
    expect(isRegistry({ resolve: () => mock(), models: () => [] })).toBe(false)
  })
})
