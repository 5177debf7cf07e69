import { describe, expect, it } from 'vitest'
import { parsePartialJson } from '../../src/kit/partial-json.ts'

/** A tool input with every kind of value, escapes and characters outside ASCII. */
const INPUT = JSON.stringify({
  city: 'Kraków "old town" \\ ☀',
  days: [1, 2.5, -3e-2, 40],
  flags: { ok: true, no: false, none: null },
  stops: [{ name: 'a', at: [] }, {}, [[]]],
  note: 'line\nbreak\tand \u0007',
})

/**
 * True when `part` is what a start of `whole`'s text can hold: every scalar whole and equal, every
 * object key one of `whole`'s, every array a start of `whole`'s array.
 */
function isStartOf(part: unknown, whole: unknown): boolean {
  if (Array.isArray(part)) {
    return (
      Array.isArray(whole) &&
      part.length <= whole.length &&
      part.every((item, i) => isStartOf(item, whole[i]))
    )
  }
  if (typeof part === 'object' && part !== null) {
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) return false
    const full = whole as Record<string, unknown>
    return Object.entries(part).every(([key, value]) => key in full && isStartOf(value, full[key]))
  }
  return part === whole
}

describe('parsePartialJson', () => {
  it('parses complete JSON as JSON.parse does, and says it was complete', () => {
    expect(parsePartialJson(INPUT)).toEqual({ value: JSON.parse(INPUT), complete: true })
    expect(parsePartialJson(' [1, "a"] ')).toEqual({ value: [1, 'a'], complete: true })
    expect(parsePartialJson('12')).toEqual({ value: 12, complete: true })
  })

  const cuts: [text: string, value: unknown][] = [
    ['{', {}],
    ['{"city": "Par', {}],
    ['{"city"', {}],
    ['{"city":', {}],
    ['{"city": "Paris"', { city: 'Paris' }],
    ['{"city": "Paris", ', { city: 'Paris' }],
    ['{"city": "Paris", "da', { city: 'Paris' }],
    ['{"days": [1, 2', { days: [1] }],
    ['{"days": [1, 2 ', { days: [1, 2] }],
    ['{"days": [1, -', { days: [1] }],
    ['{"n": 1.5e', {}],
    ['[1, 2, {"a": tr', [1, 2, {}]],
    ['[1, 2, {"a": true', [1, 2, { a: true }]],
    ['[null, fals', [null]],
    ['{"a": {"b": [', { a: { b: [] } }],
    ['{"a": {"b": [{}], "c": "d"}, "e": [[', { a: { b: [{}], c: 'd' }, e: [[]] }],
    ['["a", "b\\"', ['a']],
    ['["a", "say \\"hi\\"", "c', ['a', 'say "hi"']],
    ['["\\\\", "x', ['\\']],
    ['["\\u00e', []],
  ]
  for (const [text, value] of cuts) {
    it(`reads ${JSON.stringify(text)} as its last complete element with its brackets closed`, () => {
      expect(parsePartialJson(text)).toEqual({ value, complete: false })
    })
  }

  it('reads every start of a tool input as a part of the whole, complete only at its end', () => {
    const whole: unknown = JSON.parse(INPUT)
    for (let end = 1; end < INPUT.length; end++) {
      const read = parsePartialJson(INPUT.slice(0, end))
      expect(read, INPUT.slice(0, end)).toBeDefined()
      expect(read!.complete, INPUT.slice(0, end)).toBe(false)
      expect(isStartOf(read!.value, whole), INPUT.slice(0, end)).toBe(true)
    }
  })

  it('grows the value as more of the text arrives, never losing an element it had', () => {
    let previous = 0
    for (let end = 1; end <= INPUT.length; end++) {
      const size = JSON.stringify(parsePartialJson(INPUT.slice(0, end))!.value).length
      expect(size, INPUT.slice(0, end)).toBeGreaterThanOrEqual(previous)
      previous = size
    }
  })

  const notJson = ['hello', '{"a" 1}', '[1 2]', '{,}', '{} x', '[}', ']', '[1,]', '{"a": 1,}']
  for (const text of [...notJson, '[01]', '{"a": -}', '[1.]', '{"a": tru e}', '["a\u0001"']) {
    it(`refuses ${JSON.stringify(text)}, which is not a start of JSON`, () => {
      expect(parsePartialJson(text)).toBeUndefined()
    })
  }

  for (const text of ['', '  ', '"abc', '-', 'tru', '-1.5e']) {
    it(`gives nothing for ${JSON.stringify(text)}, which holds no complete element`, () => {
      expect(parsePartialJson(text)).toBeUndefined()
    })
  }

  it('reads a text nested far deeper than a recursive parser could', () => {
    const read = parsePartialJson('['.repeat(20_000))
    expect(read?.complete).toBe(false)
    let depth = 0
    for (let value = read?.value; Array.isArray(value); value = value[0]) depth++
    expect(depth).toBe(20_000)
  })
})
