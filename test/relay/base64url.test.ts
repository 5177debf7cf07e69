import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromBase64Url, toBase64Url } from '../../src/relay/base64url.ts'

describe('base64url', () => {
  it('encodes as Node’s own base64url does, at every length remainder', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = toBase64Url(bytes)
        expect(text).toBe(Buffer.from(bytes).toString('base64url'))
        expect(fromBase64Url(text)).toEqual(bytes)
      }),
      { numRuns: 300 },
    )
  })

  it('reads padded text, and refuses what no encoder writes', () => {
    expect(fromBase64Url('aGk=')).toEqual(new TextEncoder().encode('hi'))
    expect(fromBase64Url('aGk')).toEqual(new TextEncoder().encode('hi'))
    expect(fromBase64Url('')).toEqual(new Uint8Array(0))
    // A character of standard base64, of neither, a stray length, padding in the middle or too much.
    const bad = [
      'a+b/',
      'ab c',
      'abcde',
      'ab=c',
      'a===',
      'aé==',
      '😀',
      'abcé',
      'abc\u0100',
      'QUJD😀',
    ]
    for (const text of bad) {
      expect(fromBase64Url(text), text).toBeUndefined()
    }
  })
})
