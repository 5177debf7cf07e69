import type { AssistantTurn } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'

const encoder = new TextEncoder()

/** Every event of a stream that must succeed. */
export async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

/** Every event of a stream, and the error it ended with, if any. */
export async function run(
  stream: AsyncIterable<Event>,
): Promise<{ events: Event[]; error: unknown }> {
  const events: Event[] = []
  try {
    for await (const event of stream) events.push(event)
  } catch (error) {
    return { events, error }
  }
  return { events, error: undefined }
}

/** Drains a stream that must fail; returns what it yielded and what it threw. */
export async function failure(
  stream: AsyncIterable<Event>,
): Promise<{ events: Event[]; error: unknown }> {
  const result = await run(stream)
  if (result.error === undefined) {
    throw new Error(
      `expected the stream to fail, it yielded ${result.events.length} events and ended`,
    )
  }
  return result
}

/** The turn of the last event, which must be `done`. */
export function doneTurn(events: readonly Event[]): AssistantTurn {
  const last = events.at(-1)
  if (last?.type !== 'done') throw new Error(`expected done last, got ${last?.type ?? 'nothing'}`)
  return last.turn
}

/** One way to cut a body into network reads, named by what it cuts. */
export type Cut = { name: string; splitAt: number[] | 'bytes' }

/** Bodies up to this many bytes are also replayed one byte per read. */
const BYTE_READS_UP_TO = 4096

const CR = 13
const LF = 10

/**
 * The cuts an adapter's replay is checked at, each changing what the reads hold: every event in a
 * read of its own, every line cut in its middle, every character of several bytes cut after its
 * first byte, every CRLF cut between its CR and LF, and (for a short body) one byte per read.
 * Replaying the body whole, in one read, is what they are compared with. A cut that finds nothing
 * to cut in `body` (no CRLF, say) is left out. That the reader itself gives the same events at
 * every single byte offset is tested once, for every fixture, in `test/kit/fixture-splits.test.ts`.
 */
export function cutsOf(body: string): Cut[] {
  const bytes = encoder.encode(body)
  const events: number[] = []
  const lines: number[] = []
  const characters: number[] = []
  const crlf: number[] = []
  let lineStart = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    // The lead byte of a character of several bytes (0b11xxxxxx).
    if (byte >= 0xc0) characters.push(i + 1)
    if (byte !== CR && byte !== LF) continue
    // The line is bytes[lineStart, lineEnd); its ending is CR, LF or CRLF.
    const lineEnd = i
    if (byte === CR && bytes[i + 1] === LF) crlf.push(++i)
    // A blank line ends an event: the next event starts after it.
    if (lineEnd === lineStart) events.push(i + 1)
    else lines.push(middleOf(bytes, lineStart, lineEnd))
    lineStart = i + 1
  }
  const cuts: Cut[] = [
    { name: 'an event per read', splitAt: events },
    { name: 'each line cut in two', splitAt: lines },
    { name: 'each character of several bytes cut after its first byte', splitAt: characters },
    { name: 'each CRLF cut between CR and LF', splitAt: crlf },
  ]
  if (bytes.length <= BYTE_READS_UP_TO) cuts.push({ name: 'a byte per read', splitAt: 'bytes' })
  return cuts.filter(
    ({ splitAt }) => splitAt === 'bytes' || splitAt.some((at) => at > 0 && at < bytes.length),
  )
}

/** The character boundary nearest the middle of `bytes[start, end)`, past the start. */
function middleOf(bytes: Uint8Array, start: number, end: number): number {
  let at = start + Math.max(1, Math.floor((end - start) / 2))
  // Not inside a character: that is a cut of its own.
  while (at < end && (bytes[at]! & 0xc0) === 0x80) at++
  return at
}

/**
 * Replays `body` whole, then at each of {@link cutsOf} (all at once: the SDKs spend much of a
 * replay waiting), and returns the names of the cuts whose events or error differ from the whole
 * replay, and that replay.
 */
export async function cutsThatDiffer(
  body: string,
  replay: (splitAt?: number[] | 'bytes') => Promise<{ events: Event[]; error: unknown }>,
): Promise<{ cuts: string[]; differs: string[]; whole: { events: Event[]; error: unknown } }> {
  const summary = ({ events, error }: { events: Event[]; error: unknown }) =>
    JSON.stringify({
      events,
      error: isThinkwireError(error) ? { kind: error.kind, message: error.message } : error,
    })
  const whole = await replay()
  const expected = summary(whole)
  const cuts = cutsOf(body)
  const results = await Promise.all(cuts.map(({ splitAt }) => replay(splitAt)))
  const differs = cuts.filter((_, i) => summary(results[i]!) !== expected).map(({ name }) => name)
  return { cuts: cuts.map(({ name }) => name), differs, whole }
}
