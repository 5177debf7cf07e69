/**
 * thinkwire's SSE parser against eventsource-parser, the reference it replaced: random streams
 * (every field, comments, junk lines, every line ending, Unicode) cut into random chunks, including
 * between the CR and LF of a CRLF, must give the same events and comments. No vitest import:
 * `npm run stress` runs more cases.
 */
import { createParser } from 'eventsource-parser'
import fc from 'fast-check'
import { createSseParser, type EventSourceMessage } from '../../src/kit/sse-parser.ts'

/** What a parser saw: its events, and a `:` for each comment. */
type Seen = (EventSourceMessage | ':')[]

const text = fc.string({ unit: 'grapheme', maxLength: 12 })
/** Values as servers send them, and ones with the characters a field cares about. */
const value = fc.oneof(text, fc.constantFrom('', ' ', ':', ' : ', '{"a":1}', '[DONE]', 'a\0b'))
const line = fc.oneof(
  { weight: 4, arbitrary: value.map((v) => `data: ${v}`) },
  value.map((v) => `data:${v}`),
  fc.constant('data'),
  value.map((v) => `event: ${v}`),
  fc.constant('event:'),
  value.map((v) => `id: ${v}`),
  value.map((v) => `: ${v}`),
  fc.constant(':'),
  fc.constantFrom('retry: 100', 'retry: soon', ' data: x', 'DATA: x', 'unknown: y', 'x'),
  { weight: 3, arbitrary: fc.constant('') },
)
const ending = fc.constantFrom('\n', '\r\n', '\r')

/** A stream: lines with random line endings (the last line may have none). */
export const sseStream: fc.Arbitrary<string> = fc
  .array(fc.tuple(line, ending), { maxLength: 30 })
  .chain((lines) =>
    fc.tuple(fc.constant(lines), fc.boolean()).map(([all, open]) => {
      const joined = all.map(([l, e]) => l + e).join('')
      return open && all.length > 0 ? joined.slice(0, -all.at(-1)![1].length) : joined
    }),
  )

/** Chunks of `stream` cut at `points` (as the network cuts decoded text). */
export function chunksOf(stream: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (stream.length + 1)))].toSorted((a, b) => a - b)
  const chunks: string[] = []
  let start = 0
  for (const point of [...at, stream.length]) {
    chunks.push(stream.slice(start, point))
    start = point
  }
  return chunks
}

/** What thinkwire's parser sees of `chunks`, ended as `readEventStream` ends a body. */
export function ownParse(chunks: string[]): Seen {
  const seen: Seen = []
  const parser = createSseParser({
    onEvent: (message) => seen.push(message),
    onComment: () => seen.push(':'),
    maxBufferSize: Number.MAX_SAFE_INTEGER,
    onOverflow() {
      throw new Error('no bound was set')
    },
  })
  for (const chunk of chunks) parser.feed(chunk)
  parser.feed('\n\n')
  return seen
}

/**
 * What eventsource-parser sees of `chunks`. It waits on a CR that ends the text (the first half of
 * a CRLF, or a line ending), so an LF goes after one before the closing blank line.
 */
export function referenceParse(chunks: string[]): Seen {
  const seen: Seen = []
  const parser = createParser({
    onEvent: ({ event, id, data }) => seen.push({ event, id, data }),
    onComment: () => seen.push(':'),
  })
  for (const chunk of chunks) parser.feed(chunk)
  parser.feed(chunks.join('').endsWith('\r') ? '\n\n\n' : '\n\n')
  return seen
}

/** The property: for any stream and any cuts, both parsers see the same. */
export const sameAsReference = fc.property(
  sseStream,
  fc.array(fc.nat(), { maxLength: 8 }),
  (stream, points) => {
    const chunks = chunksOf(stream, points)
    const own = JSON.stringify(ownParse(chunks))
    const reference = JSON.stringify(referenceParse([stream]))
    if (own !== reference) {
      throw new Error(`${JSON.stringify(chunks)}\nthinkwire:  ${own}\nreference:  ${reference}`)
    }
  },
)
