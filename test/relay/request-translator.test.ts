import { describe, expect, it } from 'vitest'
import { fieldUses } from '../../src/relay/request-translator.ts'

describe('fieldUses', () => {
  it('gives each listed field the use of its group', () => {
    expect(
      fieldUses({ mapped: ['model', 'messages'], ignored: ['user'], refused: ['prompt'] }),
    ).toEqual({ model: 'mapped', messages: 'mapped', user: 'ignored', prompt: 'refused' })
  })

  it('throws for a field listed twice, in one group or in two', () => {
    expect(() => fieldUses({ mapped: ['model', 'model'] })).toThrow('model is listed twice')
    expect(() => fieldUses({ mapped: ['store'], ignored: ['store'] })).toThrow(
      'store is listed twice',
    )
  })
})
