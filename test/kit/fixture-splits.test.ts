/**
 * Every recorded stream of `test/fixtures/` read by the kit's reader (`readEventStream` on
 * `createSseParser`), whole and then cut in two at every byte offset (mid-line, mid UTF-8
 * character, between the CR and LF of a line ending), and one byte per read: each reading must see
 * the events, comments and end of the whole one, and the whole one what eventsource-parser sees.
 *
 * Every adapter reads its body with this reader and maps what it decodes one event at a time, so
 * bytes reach no adapter code but the reader and Gemini's check for a JSON error body in place of
 * the stream (an `inspect` hook, run here too). The adapters' own tests replay each fixture at a
 * few cuts chosen to change what each read holds (`test/helpers/stream.ts`, `cutsOf`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../../src/core/errors.ts'
import {
  readEventStream,
  type EventSourceMessage,
  type ReadEventStreamOptions,
} from '../../src/kit/read-event-stream.ts'
import { createBareErrorCheck } from '../../src/providers/gemini/error-chunk.ts'
import { createErrorBodyCheck } from '../../src/providers/gemini/interactions/error-body.ts'
import { referenceParse } from '../fuzz/sse-parser.ts'
import { chunkBytes } from '../helpers/replay-fetch.ts'

const ROOT = join(import.meta.dirname, '../fixtures')

/** Every file under `test/fixtures/`, as `provider/name`. */
function fixtureFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? fixtureFiles(join(dir, entry.name))
        : [relative(ROOT, join(dir, entry.name))],
    )
    .toSorted()
}

/** The checks of a JSON error body sent in place of the stream, by provider. */
const INSPECT: Record<string, (() => (text: string) => void) | undefined> = {
  gemini: () => createBareErrorCheck('gemini', new Headers()),
  'gemini-interactions': () => createErrorBodyCheck('gemini-interactions'),
}

/** What one reading saw, in order (a `:` per comment), and how it ended. */
type Reading = { seen: (EventSourceMessage | ':')[]; end: unknown }

/**
 * Reads `bytes` delivered in `chunks`, as the adapter of `provider` would: the events and comments
 * in the order the parser gave them, then the reader's end (`'end'`, or the error it threw).
 */
async function read(provider: string, chunks: Uint8Array[]): Promise<Reading> {
  const seen: Reading['seen'] = []
  // Each chunk is one read, as a network delivers it.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
  const options: ReadEventStreamOptions<EventSourceMessage> = {
    provider,
    decode(message) {
      seen.push(message)
      return message
    },
    onComment: () => seen.push(':'),
    // Gemini may answer with a bare JSON error body; its adapters watch each read for one.
    inspect: INSPECT[provider]?.(),
  }
  try {
    for await (const batch of readEventStream(body, options)) void batch
  } catch (error) {
    return { seen, end: summary(error) }
  }
  return { seen, end: 'end' }
}

/** Whether two readings saw the same (cheaper than a deep comparison, run once per offset). */
function same(a: Reading, b: Reading): boolean {
  if (a.seen.length !== b.seen.length) return false
  const seenSame = a.seen.every((message, i) => {
    const other = b.seen[i]!
    if (message === ':' || other === ':') return message === other
    return message.data === other.data && message.event === other.event && message.id === other.id
  })
  return seenSame && JSON.stringify(a.end) === JSON.stringify(b.end)
}

/** An error as far as a reading can tell two apart. */
function summary(error: unknown): unknown {
  if (!isThinkwireError(error)) return { thrown: String(error) }
  const { kind, message, status, retryAfterMs } = error
  return { kind, message, status, retryAfterMs }
}

const files = fixtureFiles()

describe('every fixture, read by the kit at every byte offset', () => {
  it('finds the fixtures of every provider, the JSON error body included', () => {
    expect(new Set(files.map((file) => file.split('/')[0]))).toEqual(
      new Set(['anthropic', 'gemini', 'gemini-interactions', 'openai', 'openai-compatible']),
    )
    expect(files).toContain('gemini/rate-limit-429.json')
    expect(files).toContain('gemini-interactions/rate-limit-429.json')
    expect(files.length).toBeGreaterThan(60)
  })

  for (const file of files) {
    const provider = file.split('/')[0]!
    it(`reads ${file} cut at every byte offset, and a byte per read, as it reads it whole`, async () => {
      const bytes = new Uint8Array(readFileSync(join(ROOT, file)))
      const whole = await read(provider, [bytes])
      if (file.endsWith('.sse')) {
        expect(whole.seen.length).toBeGreaterThan(0)
        expect(whole.seen).toEqual(referenceParse([new TextDecoder().decode(bytes)]))
      } else {
        // Not a stream: the Gemini adapters' check turns it into the error it holds.
        expect(whole).toMatchObject({ seen: [], end: { kind: 'rate-limit', status: 429 } })
      }
      const cutAt = (at: number) => read(provider, [bytes.subarray(0, at), bytes.subarray(at)])
      const differs: number[] = []
      for (let at = 1; at < bytes.length; at++) {
        if (!same(await cutAt(at), whole)) differs.push(at)
      }
      // The first offset that reads otherwise, compared in full.
      const first = differs[0]
      if (first !== undefined) expect(await cutAt(first), `cut at byte ${first}`).toEqual(whole)
      expect(differs).toEqual([])
      expect(await read(provider, chunkBytes(bytes, 'bytes'))).toEqual(whole)
    })
  }
})
