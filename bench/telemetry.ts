/**
 * What tracing costs the relay: one whole request for a 1,000-token answer (500 thinking + 500
 * text deltas, one token each) from the Anthropic recording, through a relay with tracing on
 * (spans built, made into OTLP JSON and posted to a fetch that answers at once, as the Worker's
 * `OTEL_EXPORTER_OTLP_ENDPOINT` does) beside the same relay with tracing off. Both price the turn
 * (Claude Sonnet 5 has a price), so only the trace differs. Target: tracing on ≤ 1.05x off.
 *
 * Made to hold on a noisy shared machine: the figure is the CPU time of the thread that runs the
 * relay (the harness's `clock`: time spent descheduled by other load does not count, nor the
 * GC's and compiler's background threads, whose work lands on whichever run happens to be next),
 * every run starts from a collected heap (so neither side pays for the other's garbage), off and on run back to
 * back in every round with their order alternating, and the result is the median of the
 * per-round ratios over many rounds, with their spread (the middle half, p25–p75) beside it.
 * The earlier form of this bench (wall time, five variants in one rotation, no GC between runs)
 * read 1.16x-1.20x one run and 1.03x-1.06x the next on the same code.
 * Numbers only. Run alone: `node --expose-gc --import tsx bench/telemetry.ts`.
 */
import type { Conversation } from '../src/core/conversation.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { createRelay, otlpExporter, type Relay } from '../src/relay/index.ts'
import { callSpan } from '../src/relay/tracing.ts'
import {
  clock,
  fmt,
  isMain,
  measure,
  median,
  printTable,
  ratios,
  verdict,
  type Measured,
  type Row,
  type Variant,
} from './harness.ts'
import { anthropicRecording, READ_SIZES, readLabel, recordedFetch } from './recordings.ts'

const MODEL = 'anthropic/claude-sonnet-5'
const WARMUP = 6
const ROUNDS = 40
/**
 * Requests timed together for one figure: about 50-100 ms of CPU (8 read a middle half of the
 * ratios of 0.93-1.20x on a busy machine).
 */
const REQUESTS_PER_SAMPLE = 16
const TARGET = 1.05
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
const ask: Conversation = { turns: [{ role: 'user', content: 'Think, then answer at length.' }] }

// The collector answers at once: what is timed is the relay's own work, the JSON included.
const collector = otlpExporter({
  endpoint: 'http://collector.local',
  fetch: async () => new Response(null, { status: 200 }),
})

/** A relay serving the recorded 1,000-token answer, traced or not. */
function relayOf(fetch: typeof globalThis.fetch, traced: boolean): Relay {
  return createRelay({
    providers: { anthropic: [anthropic({ apiKey: 'bench-key', model: 'claude-sonnet-5', fetch })] },
    tracing: traced ? { exporter: collector } : undefined,
  })
}

/** One request, its SSE body drained and its `waitUntil` work (the export) awaited. */
async function request(relay: Relay, traceparent: string | undefined): Promise<void> {
  const pending: Promise<unknown>[] = []
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (traceparent !== undefined) headers['traceparent'] = traceparent
  const response = await relay.fetch(
    new Request('http://relay.local/v1/chat', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: MODEL, conversation: ask }),
    }),
    { waitUntil: (promise) => void pending.push(promise) },
  )
  if (response.status !== 200 || response.body === null) {
    throw new Error(`relay answered ${response.status}: ${await response.text()}`)
  }
  const reader = response.body.getReader()
  while (!(await reader.read()).done);
  await Promise.all(pending)
}

/** Each side's CPU ms per request, one figure a round, and the ratio on/off of every round. */
type Paired = { off: number[]; on: number[]; ratios: number[] }

/**
 * Runs `off` and `on` back to back, `WARMUP` rounds untimed then `ROUNDS` timed, swapping which
 * goes first every round, each from a collected heap.
 */
async function paired(off: Variant['run'], on: Variant['run']): Promise<Paired> {
  const [offM, onM] = await measure(
    [
      { name: 'off', run: off },
      { name: 'on', run: on },
    ],
    ROUNDS,
    WARMUP,
    { collect: 'each' },
  )
  const ms = (m: Measured) => m.samples.map((us) => us / 1000)
  return { off: ms(offM!), on: ms(onM!), ratios: ratios(onM!, offM!) }
}

/** The `p`th quantile (0..1) of `values`, interpolated. */
function quantile(values: readonly number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b)
  const at = (sorted.length - 1) * p
  const low = Math.floor(at)
  const high = Math.min(sorted.length - 1, low + 1)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low)
}

/** `1.02x ok (p25–p75 0.99–1.05)`. */
function ratioNote(values: readonly number[]): string {
  const spread = `${fmt(quantile(values, 0.25))}–${fmt(quantile(values, 0.75))}`
  return `${verdict(median([...values]), TARGET)} (p25–p75 ${spread})`
}

/** Row "telemetry": relay CPU per 1,000-token answer with tracing on, beside tracing off. */
export async function benchTelemetry(): Promise<Row[]> {
  const section = `telemetry. ${clock.name} per 1,000-token answer, tracing on vs off (median of ${ROUNDS} paired rounds; target ≤ ${TARGET}x)`
  const recording = anthropicRecording(500, 500)
  const results: Paired[] = []
  for (const reads of READ_SIZES) {
    const fetch = recordedFetch(recording, reads)
    const off = relayOf(fetch, false)
    const on = relayOf(fetch, true)
    const times = (relay: Relay, parent: string | undefined) => async () => {
      for (let i = 0; i < REQUESTS_PER_SAMPLE; i++) await request(relay, parent)
      return REQUESTS_PER_SAMPLE
    }
    results.push(await paired(times(off, undefined), times(on, TRACEPARENT)))
  }

  // The span alone, as the relay makes and exports it after a 1,000-token answer.
  const record = {
    provider: 'anthropic',
    model: 'claude-sonnet-5',
    options: {},
    conversation: ask,
    parent: { traceId: TRACEPARENT.slice(3, 35), spanId: TRACEPARENT.slice(36, 52), sampled: true },
    startMs: Date.now(),
    firstChunkMs: 1,
    durationMs: 3,
    streamed: true,
    turn: {
      role: 'assistant' as const,
      text: '',
      usage: { inputTokens: 12, outputTokens: 1000, reasoningTokens: 500, cost: 0.010024 },
      stopReason: 'stop' as const,
    },
  }
  const SPANS = 2000
  const [span] = await measure(
    [
      {
        name: 'span',
        run: async () => {
          for (let i = 0; i < SPANS; i++) await collector.export([callSpan(record, false)])
          return SPANS
        },
      },
    ],
    ROUNDS,
    WARMUP,
  )
  const spanUs = span!.usPerEvent

  const perRequest = (values: number[]) => `${fmt(median(values))} ms`
  return [
    { section, name: 'per request, at', value: READ_SIZES.map(readLabel) },
    { section, name: 'tracing off', value: results.map((r) => perRequest(r.off)) },
    {
      section,
      name: 'tracing on (OTLP JSON)',
      value: results.map((r) => perRequest(r.on)),
      note: `on/off ${results.map((r) => ratioNote(r.ratios)).join(', ')}`,
    },
    {
      section,
      name: '  the span alone: built, OTLP JSON, posted',
      value: `${fmt(spanUs)} µs`,
      note: `${results.map((r) => `${fmt((100 * spanUs) / 1000 / median(r.off), 1)}%`).join(', ')} of a request with tracing off`,
    },
  ]
}

if (isMain(import.meta.url)) printTable(await benchTelemetry())
