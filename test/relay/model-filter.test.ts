import { describe, expect, it } from 'vitest'
import { modelFilter } from '../../src/relay/model-filter.ts'

describe('modelFilter', () => {
  it('serves every model without a list, and none with an empty one', () => {
    expect(modelFilter(undefined)('mock/echo')).toBe(true)
    expect(modelFilter([])('mock/echo')).toBe(false)
  })

  it('serves the models of the list, by id or by provider', () => {
    const allows = modelFilter(['mock/echo', 'anthropic/*'])
    expect(allows('mock/echo')).toBe(true)
    expect(allows('mock/other')).toBe(false)
    expect(allows('anthropic/claude-sonnet-5')).toBe(true)
    // A provider's wildcard covers that provider only, not one whose name it begins.
    expect(modelFilter(['mo/*'])('mock/echo')).toBe(false)
    expect(modelFilter(['anthropic/*'])('anthropic-proxy/claude')).toBe(false)
  })
})
