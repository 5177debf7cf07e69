/** A JSON text read as far as it goes; see {@link parsePartialJson}. */
export type PartialJson = {
  /** The value of the text, or of its complete start with the brackets still open closed. */
  value: unknown
  /** The text was complete JSON. */
  complete: boolean
}

/**
 * Parses JSON that may have been cut off, such as the streamed input of a tool call whose
 * answer was stopped. A text `JSON.parse` takes is parsed as it is; any other text is cut back to
 * its last complete element, and the brackets still open are closed: `{"city": "Par` reads as
 * `{}` and `[1, 2, {"a": tr` as `[1, 2, {}]`. A key whose value has not begun, a string without
 * its closing quote, a literal cut short, and a number that runs to the end of the text (more
 * digits may follow) are dropped. Undefined when the text is not a start of JSON (a word or
 * character outside a string that JSON has no place for, a closing bracket that closes nothing)
 * or holds no complete element at all. Linear in the text's length; no recursion.
 */
export function parsePartialJson(text: string): PartialJson | undefined {
  try {
    return { value: JSON.parse(text), complete: true }
  } catch {
    const start = completeStart(text)
    if (start === undefined) return undefined
    try {
      return { value: JSON.parse(start), complete: false }
    } catch {
      // Something the scan lets through but JSON does not: a control character in a string.
      return undefined
    }
  }
}

/** What may come next: `first-*` right after an opening bracket, `next` after an element. */
type Expect = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'next' | 'end'

const LITERALS = ['true', 'false', 'null']
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/
/** The run of characters a number or a literal is made of. */
const WORD = /[-+.\w]*/y

/**
 * The text up to the end of its last complete element, with the closers of the brackets open
 * there; undefined when the text is not a start of JSON or has no complete element. The closers
 * are kept as a string, innermost first, so the scan notes a cut point without copying a stack.
 */
function completeStart(text: string): string | undefined {
  let expect: Expect = 'value'
  let closers = ''
  let cut: { end: number; closers: string } | undefined
  let i = 0

  /** A value just ended at `i`: the text so far is complete once its brackets are closed. */
  const valueEnded = (): Expect => {
    cut = { end: i, closers }
    return closers === '' ? 'end' : 'next'
  }
  /** A bracket opens at `i`: the text up to it is complete with the bracket closed at once. */
  const open = (closer: '}' | ']'): Expect => {
    closers = closer + closers
    i++
    cut = { end: i, closers }
    return closer === '}' ? 'first-key' : 'first-value'
  }

  while (i < text.length) {
    const char = text[i]!
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      i++
      continue
    }
    const closes = char === '}' || char === ']'
    if (closes && (expect === 'next' || expect === 'first-key' || expect === 'first-value')) {
      if (closers[0] !== char) return undefined
      closers = closers.slice(1)
      i++
      expect = valueEnded()
      continue
    }
    switch (expect) {
      case 'end':
        return undefined
      case 'colon':
        if (char !== ':') return undefined
        i++
        expect = 'value'
        continue
      case 'next':
        if (char !== ',') return undefined
        i++
        expect = closers[0] === '}' ? 'key' : 'value'
        continue
      case 'key':
      case 'first-key': {
        if (char !== '"') return undefined
        const end = stringEnd(text, i)
        if (end === undefined) return finish(text, cut)
        i = end
        expect = 'colon'
        continue
      }
      case 'value':
      case 'first-value': {
        if (char === '{' || char === '[') {
          expect = open(char === '{' ? '}' : ']')
          continue
        }
        if (char === '"') {
          const end = stringEnd(text, i)
          if (end === undefined) return finish(text, cut)
          i = end
          expect = valueEnded()
          continue
        }
        WORD.lastIndex = i
        const word = WORD.exec(text)?.[0] ?? ''
        const runsToEnd = i + word.length >= text.length
        if (LITERALS.includes(word) || (NUMBER.test(word) && !runsToEnd)) {
          i += word.length
          expect = valueEnded()
          continue
        }
        // A number or literal the text ends inside is dropped; anything else is not JSON.
        const cutShort = /^-?[\d.eE+-]*$/.test(word) || LITERALS.some((l) => l.startsWith(word))
        return runsToEnd && word !== '' && cutShort ? finish(text, cut) : undefined
      }
    }
  }
  return finish(text, cut)
}

/** The text up to the last cut point, with its brackets closed. */
function finish(
  text: string,
  cut: { end: number; closers: string } | undefined,
): string | undefined {
  return cut === undefined ? undefined : text.slice(0, cut.end) + cut.closers
}

/** The index just past the string that opens at `start`; undefined when the text ends inside it. */
function stringEnd(text: string, start: number): number | undefined {
  let quote = text.indexOf('"', start + 1)
  while (quote !== -1) {
    // A quote closes the string after an even number of backslashes (each pair is one escape).
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    quote = text.indexOf('"', quote + 1)
  }
  return undefined
}

const BACKSLASH = 0x5c
