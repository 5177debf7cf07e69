import { describe, expect, it } from 'vitest'
import { keepStopSequences } from '../../src/kit/index.ts'

describe('keepStopSequences', () => {
  it('keeps what the limit allows, in order, and warns about nothing', () => {
    const warnings: string[] = []
    expect(keepStopSequences(['a', 'b'], 2, 'Acme', warnings)).toEqual(['a', 'b'])
    expect(keepStopSequences([], 0, 'Acme', warnings)).toEqual([])
    expect(warnings).toEqual([])
  })

  it('drops the sequences past the limit and names each in one warning', () => {
    const warnings: string[] = []
    const given = ['a', 'b', 'c "quoted"', '\n']
    expect(keepStopSequences(given, 2, 'Acme', warnings)).toEqual(['a', 'b'])
    expect(warnings).toEqual([
      'stop: Acme takes at most 2 stop sequences; dropped "c \\"quoted\\"", "\\n"',
    ])
    // The caller's list is left as it was.
    expect(given).toHaveLength(4)
  })

  it('says so when a model takes none', () => {
    const warnings: string[] = []
    expect(keepStopSequences(['END'], 0, 'the Responses API', warnings)).toEqual([])
    expect(warnings).toEqual(['stop dropped: the Responses API takes no stop sequences ("END")'])
  })
})
