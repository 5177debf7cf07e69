/**
 * The relay's memory while it streams a 50 MB answer in-process: an adapter yields large text
 * events as fast as it can, `createRelay` encodes them, and the SSE body is drained. Heap and
 * buffer memory are sampled during the stream (after a full GC when node runs with `--expose-gc`,
 * as `npm run bench` does). A relay that buffers grows by the size of the answer; one that
 * streams stays flat. Run alone: `node --expose-gc --import tsx bench/memory.ts`.
 */
import type { Adapter } from '../src/core/adapter.ts'
import type { AssistantTurn } from '../src/core/conversation.ts'
import { createRelay } from '../src/relay/create-relay.ts'
import { isMain, printTable, type Row } from './harness.ts'

const MIB = 1024 * 1024
const TOTAL = 50 * MIB
const EVENT = 64 * 1024
/** Samples taken (with a GC before each) over the stream. */
const SAMPLES = 40

const gc: (() => void) | undefined =
  typeof globalThis.gc === 'function' ? (globalThis.gc as () => void) : undefined

/** Live memory: the JS heap plus buffers outside it (encoded chunks live there). */
function live(): number {
  gc?.()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external + usage.arrayBuffers
}

/**
 * Yields `count` text events of `EVENT` characters (fresh strings, as a provider's would be), then
 * `done`. It is not under `guardStream`, which (as the contract asks) keeps the whole answer to
 * build the `done` turn: the turn's text here is a short summary, so what is measured is what the
 * relay itself holds while streaming.
 */
function largeAnswer(count: number): Adapter {
  const block = 'x'.repeat(EVENT - 8)
  return {
    provider: 'large',
    model: 'answer',
    async *stream(_conversation, options) {
      for (let i = 0; i < count; i++) {
        if (options?.signal?.aborted === true) throw new Error('aborted')
        yield { type: 'text', text: `${i}`.padStart(8, '0') + block }
      }
      const turn: AssistantTurn = {
        role: 'assistant',
        text: `(${count} events of ${EVENT} characters)`,
        usage: { inputTokens: 1, outputTokens: (count * EVENT) / 4 },
        stopReason: 'stop',
      }
      yield { type: 'done', turn }
    },
  }
}

/** Row 6: baseline, peak and growth of live memory while 50 MB stream through the relay. */
export async function benchMemory(): Promise<Row[]> {
  const section = `6. relay memory, ${TOTAL / MIB} MB answer`
  const count = TOTAL / EVENT
  const relay = createRelay({ providers: { large: () => largeAnswer(count) } })
  live()
  const baseline = live()
  const response = await relay.fetch(
    new Request('http://relay.local/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'large/answer',
        conversation: { turns: [{ role: 'user', content: 'Go' }] },
      }),
    }),
  )
  const reader = response.body!.getReader()
  const every = Math.max(1, Math.floor(count / SAMPLES))
  const samples: number[] = []
  let firstAt = 0
  let bytes = 0
  let chunks = 0
  const started = performance.now()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (++chunks % every !== 0) continue
    samples.push(live())
    if (samples.length === 1) firstAt = bytes
  }
  const seconds = (performance.now() - started) / 1000
  const peak = Math.max(...samples)
  const early = samples[0]!
  const late = samples.at(-1)!
  const after = live()
  const mb = (n: number) => `${(n / MIB).toFixed(1)} MiB`
  const signed = (n: number) => `${n < 0 ? '-' : '+'}${mb(Math.abs(n))}`
  const rows: Row[] = [
    {
      section,
      name: 'SSE bytes out',
      value: mb(bytes),
      note: `${chunks} chunks in ${seconds.toFixed(2)} s (${(bytes / MIB / seconds).toFixed(0)} MiB/s)`,
    },
    { section, name: 'live memory before the request', value: mb(baseline) },
    {
      section,
      name: 'peak live memory while streaming',
      value: mb(peak),
      note: `${signed(peak - baseline)} over the baseline, ${SAMPLES} samples`,
    },
    {
      section,
      name: 'growth from the first sample to the last',
      value: signed(late - early),
      note: `${mb(early)} after ${mb(firstAt)} out, ${mb(late)} after ${mb(bytes)} (flat: nothing is buffered)`,
    },
    {
      section,
      name: 'live memory after the stream',
      value: mb(after),
      note: signed(after - baseline),
    },
  ]
  if (gc === undefined) {
    rows.push({
      section,
      name: 'note',
      value: '',
      note: 'run node with --expose-gc for exact figures',
    })
  }
  return rows
}

if (isMain(import.meta.url)) printTable(await benchMemory())
