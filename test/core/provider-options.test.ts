import { describe, expect, it } from 'vitest'
import { mergeProviderOptions } from '../../src/core/provider-options.ts'

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
