import { describe, expect, it } from 'vitest'
import { mergeProviderOptions } from '../../src/kit/provider-options.ts'

describe('mergeProviderOptions', () => {
  it("merges the provider's own options over the body and leaves other providers' alone", () => {
    const body: Record<string, unknown> = { model: 'm', top_k: 1 }
    const warnings: string[] = []
    mergeProviderOptions(
      body,
      { providerOptions: { p: { top_k: 5, extra: true }, q: { no: 1 } } },
      'p',
      warnings,
    )
    expect(body).toEqual({ model: 'm', top_k: 5, extra: true })
    expect(warnings).toEqual([])
  })

  it('drops the keys the model rejects, and a value that is not an object, with a warning each', () => {
    const body: Record<string, unknown> = {}
    const warnings: string[] = []
    mergeProviderOptions(
      body,
      { providerOptions: { p: { temperature: 1, seed: 2 } } },
      'p',
      warnings,
      ['temperature'],
    )
    expect(body).toEqual({ seed: 2 })
    mergeProviderOptions(body, { providerOptions: { p: ['x'] } }, 'p', warnings)
    expect(warnings).toEqual([
      'providerOptions.p.temperature dropped: the model rejects it',
      'providerOptions.p ignored: it must be an object',
    ])
  })

  it('does nothing without options for the provider', () => {
    const body = { a: 1 }
    const warnings: string[] = []
    mergeProviderOptions(body, {}, 'p', warnings)
    expect(body).toEqual({ a: 1 })
    expect(warnings).toEqual([])
  })
})

describe('mergeProviderOptions, deeply', () => {
  it("adds the caller's array entries to the adapter's instead of replacing them", () => {
    const body: Record<string, unknown> = {
      include: ['reasoning.encrypted_content'],
      tools: [{ type: 'function', name: 'weather' }],
    }
    mergeProviderOptions(
      body,
      {
        providerOptions: {
          p: {
            include: ['reasoning.encrypted_content', 'web_search_call.results'],
            tools: [{ type: 'web_search' }],
          },
        },
      },
      'p',
      [],
    )
    expect(body).toEqual({
      include: ['reasoning.encrypted_content', 'web_search_call.results'],
      tools: [{ type: 'function', name: 'weather' }, { type: 'web_search' }],
    })
  })

  it('merges objects key by key, and a caller value replaces a scalar', () => {
    const body: Record<string, unknown> = { reasoning: { effort: 'low', summary: 'auto' }, n: 1 }
    mergeProviderOptions(
      body,
      { providerOptions: { p: { reasoning: { effort: 'high' }, n: 2 } } },
      'p',
      [],
    )
    expect(body).toEqual({ reasoning: { effort: 'high', summary: 'auto' }, n: 2 })
  })

  it('never sets __proto__, constructor or prototype from the options', () => {
    const body: Record<string, unknown> = { nested: {} }
    const evil = JSON.parse('{"__proto__":{"polluted":1},"nested":{"__proto__":{"polluted":1}}}')
    mergeProviderOptions(body, { providerOptions: { p: evil } }, 'p', [])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(body['nested'])).toBe(Object.prototype)
  })
})
