/**
 * What tracing costs the relay: one whole request for a 1,000-token answer (500 thinking + 500
 * text deltas, one token each) from the Anthropic recording, through a relay with tracing on
 * (spans built, made into OTLP JSON and posted to a fetch that answers at once, as the Worker's
 * `OTEL_EXPORTER_OTLP_ENDPOINT` does) beside the same relay with tracing off. Both price the turn
 * (Claude Sonnet 5 has a price), so only the trace differs. Target: tracing on ≤ 1.05x off.
 * Numbers only. Run alone: `node --expose-gc --import tsx bench/telemetry.ts`.
 */
import type { Conversation } from '../src/core/conversation.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { callSpan, createRelay, otlpExporter, type Relay } from '../src/relay/index.ts'
import {
  fmt,
  isMain,
  measure,
  printTable,
  ratio,
  targetNote,
  type Row,
  type Variant,
} from './harness.ts'
import { anthropicRecording, READ_SIZES, readLabel, recordedFetch } from './recordings.ts'

const MODEL = 'anthropic/claude-sonnet-5'
const ROUNDS = 15
/** Requests timed together for one figure, so that their GC is shared out among them. */
const REQUESTS_PER_SAMPLE = 10
const TARGET = 1.05
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

/** Row "telemetry": relay CPU per 1,000-token answer with tracing on, beside tracing off. */
export async function benchTelemetry(): Promise<Row[]> {
  const section = 'telemetry. one 1,000-token answer per request: tracing on vs off'
  const recording = anthropicRecording(500, 500)
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
  const variants: Variant[] = []
  for (const reads of READ_SIZES) {
    const fetch = recordedFetch(recording, reads)
    const off = relayOf(fetch, false)
    const on = relayOf(fetch, true)
    const times = (relay: Relay, parent: string | undefined) => async () => {
      for (let i = 0; i < REQUESTS_PER_SAMPLE; i++) await request(relay, parent)
      return REQUESTS_PER_SAMPLE
    }
    variants.push(
      { name: 'off', run: times(off, undefined) },
      { name: 'on', run: times(on, traceparent) },
    )
  }
  // The span alone, as the relay makes and exports it after a 1,000-token answer.
  const record = {
    provider: 'anthropic',
    model: 'claude-sonnet-5',
    options: {},
    conversation: ask,
    parent: { traceId: traceparent.slice(3, 35), spanId: traceparent.slice(36, 52), sampled: true },
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
  variants.push({
    name: 'span',
    run: async () => {
      for (let i = 0; i < REQUESTS_PER_SAMPLE; i++)
        await collector.export([callSpan(record, false)])
      return REQUESTS_PER_SAMPLE
    },
  })
  const measured = await measure(variants, ROUNDS, 3)
  const span = measured.at(-1)!
  const rows: Row[] = [{ section, name: 'per request, at', value: READ_SIZES.map(readLabel) }]
  const pairs = READ_SIZES.map((_, r) => [measured[2 * r]!, measured[2 * r + 1]!] as const)
  rows.push(
    {
      section,
      name: 'createRelay, tracing off',
      value: pairs.map(([off]) => `${fmt(off.usPerEvent / 1000)} ms`),
    },
    {
      section,
      name: 'createRelay, tracing on (OTLP JSON)',
      value: pairs.map(([, on]) => `${fmt(on.usPerEvent / 1000)} ms`),
      note: targetNote(
        'on/off',
        pairs.map(([off, on]) => ratio(on, off)),
        TARGET,
      ),
    },
    {
      section,
      name: '  the span alone: built, OTLP JSON, posted',
      value: `${fmt(span.usPerEvent)} µs`,
      note: `adds ${pairs.map(([off]) => `${fmt((100 * span.usPerEvent) / off.usPerEvent, 1)}%`).join(', ')} to a request with tracing off`,
    },
  )
  return rows
}

if (isMain(import.meta.url)) printTable(await benchTelemetry())
