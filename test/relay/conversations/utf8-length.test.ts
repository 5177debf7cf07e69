import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import { utf8Length } from '../../../src/relay/conversations/conversation-store.ts'

const encoded = (text: string) => new TextEncoder().encode(text).length

describe('the UTF-8 length of a stored text', () => {
  it('is the length TextEncoder gives, for ASCII, other scripts, emoji and lone surrogates', () => {
    for (const text of [
      '',
      '{"text":"plain ASCII"}',
      'café',
      'é at the start',
      'ends with 日本語',
      'emoji 😀 inside',
      'a lone high \ud83d at the end \ud83d',
      '\ude00 a lone low surrogate first',
    ]) {
      expect(utf8Length(text), text).toBe(encoded(text))
    }
  })

  it(
    'is the length TextEncoder gives, whatever the string',
    () => {
      const unit = fc.oneof(
        fc.constantFrom('a', '{', '"', 'é', '日', '😀', '\ud83d', '\ude00'),
        fc.string({ unit: 'binary', maxLength: 1 }),
      )
      fc.assert(
        fc.property(fc.string({ unit, maxLength: 200 }), (text) => {
          expect(utf8Length(text)).toBe(encoded(text))
        }),
        { numRuns: 500, seed: 20_261_203, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
