/**
 * What the relay costs per event, in-process: `createRelay` answering `POST /v1/chat` with its
 * SSE body drained, (1) from provider bytes through the Anthropic adapter, beside the adapter alone
 * and the floor of parsing and re-encoding the same stream, and (2) from pre-made events (the
 * relay's own share), beside the floor of encoding them. Then the time one request for a
 * 1,000-token answer takes, as a share of a Workers Free-plan request's 10 ms of CPU. Numbers only.
 * Run alone: `npx tsx bench/relay-cpu.ts`.
 */
import { createParser } from 'eventsource-parser'
import type { Adapter } from '../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../src/core/conversation.ts'
import type { Event } from '../src/core/events.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { gemini } from '../src/providers/gemini/index.ts'
import { openai } from '../src/providers/openai/index.ts'
import { createRelay } from '../src/relay/create-relay.ts'
import type { Relay } from '../src/relay/options.ts'
import { fmt, isMain, measure, printTable, ratio, type Row, type Variant } from './harness.ts'
import {
  anthropicRecording,
  geminiRecording,
  openaiRecording,
  recordedFetch,
  textDelta,
  thinkingDelta,
} from './recordings.ts'

const KEY = 'bench-key'
/** Thinking deltas, then as many text deltas, for the per-event figures. */
const DELTAS = 10_000
const ask: Conversation = { turns: [{ role: 'user', content: 'Think, then answer at length.' }] }
const utf8 = new TextEncoder()

/** A chat request for `model`, as a browser sends it. */
function chatRequest(model: string): Request {
  return new Request('http://relay.local/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, conversation: ask }),
  })
}

/** Reads a body to its end; returns the bytes read. */
async function drainBody(body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = body.getReader()
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return bytes
    bytes += value.byteLength
  }
}

/** One request through the relay, its SSE body drained. */
async function relayRequest(relay: Relay, model: string): Promise<void> {
  const response = await relay.fetch(chatRequest(model))
  if (response.status !== 200 || response.body === null) {
    throw new Error(`relay answered ${response.status}: ${await response.text()}`)
  }
  await drainBody(response.body)
}

/**
 * Checks, outside any timing, that a relay answer holds `events` visible events and ends in `done`:
 * a figure for a stream that failed part-way would be meaningless.
 */
async function verify(relay: Relay, model: string, events: number): Promise<void> {
  const response = await relay.fetch(chatRequest(model))
  let seen = 0
  let last = ''
  const parser = createParser({
    onEvent(message) {
      last = message.event ?? 'message'
      if (last === 'text' || last === 'thinking') seen++
    },
  })
  parser.feed(await response.text())
  if (seen !== events || last !== 'done') {
    throw new Error(`${model}: relay sent ${seen} events ending in '${last}', not ${events} + done`)
  }
}

/** SSE text of one event, the way any relay must at least write it. */
function frameEvent(type: string, id: number, data: unknown): string {
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * Floor of the full path: the provider's SSE bytes parsed (eventsource-parser + `JSON.parse`), its
 * visible deltas re-encoded as SSE, one chunk per upstream read, through a drained ReadableStream.
 */
async function parseAndReencode(fetch: typeof globalThis.fetch): Promise<number> {
  const response = await fetch('http://bench.invalid/', { method: 'POST' })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let id = 0
  let out = ''
  const parser = createParser({
    onEvent(message) {
      const data = JSON.parse(message.data) as { delta?: { type?: string; [k: string]: unknown } }
      const delta = data.delta
      if (delta?.type === 'text_delta') out += frameEvent('text', ++id, { text: delta['text'] })
      else if (delta?.type === 'thinking_delta')
        out += frameEvent('thinking', ++id, { text: delta['thinking'] })
    },
  })
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return controller.close()
          parser.feed(decoder.decode(value, { stream: true }))
          if (out === '') continue
          controller.enqueue(utf8.encode(out))
          out = ''
          return
        }
      },
    },
    { highWaterMark: 1 },
  )
  await drainBody(stream)
  return id
}

const premadeTurn: AssistantTurn = {
  role: 'assistant',
  text: 'answer',
  thinking: 'thoughts',
  usage: { inputTokens: 12, outputTokens: 2 * DELTAS },
  stopReason: 'stop',
  items: { provider: 'premade', model: 'events', thinkingMode: 'default', data: [] },
}

/** Pre-made events: `DELTAS` thinking deltas, `DELTAS` text deltas and `done`. */
function premadeEvents(count: number): Event[] {
  const events: Event[] = []
  for (let i = 0; i < count; i++) events.push({ type: 'thinking', text: thinkingDelta(i) })
  for (let i = 0; i < count; i++) events.push({ type: 'text', text: textDelta(i) })
  events.push({ type: 'done', turn: premadeTurn })
  return events
}

/** An adapter that yields pre-made events as fast as it can: the relay's own share alone. */
function premadeAdapter(events: readonly Event[]): Adapter {
  return {
    provider: 'premade',
    model: 'events',
    async *stream() {
      yield* events
    },
  }
}

/**
 * Floor of the relay's own share: the same pre-made events encoded as SSE, about 16 KiB to a
 * chunk, through a drained ReadableStream (the least a relay can do to answer with a stream).
 */
async function encodeOnly(events: readonly Event[]): Promise<number> {
  const source = premadeAdapter(events).stream(ask)[Symbol.asyncIterator]()
  let id = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let out = ''
        for (;;) {
          const step = await source.next()
          if (step.done === true) {
            if (out !== '') controller.enqueue(utf8.encode(out))
            return controller.close()
          }
          const event = step.value
          id++
          if (event.type === 'text' || event.type === 'thinking')
            out += frameEvent(event.type, id, { text: event.text })
          else if (event.type === 'done') out += frameEvent('done', id, { turn: event.turn })
          if (out.length >= 16 * 1024) break
        }
        controller.enqueue(utf8.encode(out))
      },
    },
    { highWaterMark: 1 },
  )
  await drainBody(stream)
  return id - 1
}

function relayOf(name: string, create: (model: string) => Adapter): Relay {
  return createRelay({ registry: { [name]: create } })
}

/** Row 2: the relay's cost per 1,000 events, against its floors, and a Free-plan request. */
export async function benchRelayCpu(): Promise<Row[]> {
  const section = `2. relay CPU (${DELTAS * 2} events/request)`
  const recording = anthropicRecording(DELTAS, DELTAS)
  const fetch = recordedFetch(recording.bytes)
  const adapter = anthropic({ apiKey: KEY, model: 'claude-sonnet-5', fetch })
  const fullRelay = relayOf('anthropic', (model) => anthropic({ apiKey: KEY, model, fetch }))
  const events = premadeEvents(DELTAS)
  const ownRelay = relayOf('premade', () => premadeAdapter(events))
  const n = recording.deltas
  await verify(fullRelay, 'anthropic/claude-sonnet-5', n)
  await verify(ownRelay, 'premade/events', n)

  const variants: Variant[] = [
    {
      name: 'floor: parse Anthropic SSE + re-encode as SSE',
      run: () => parseAndReencode(fetch),
    },
    {
      name: 'anthropic() adapter alone, drained',
      run: async () => {
        let count = 0
        for await (const event of adapter.stream(ask)) if (event.type !== 'done') count++
        return count
      },
    },
    {
      name: 'createRelay: Anthropic bytes → SSE out (full path)',
      run: async () => {
        await relayRequest(fullRelay, 'anthropic/claude-sonnet-5')
        return n
      },
    },
    { name: 'floor: encode pre-made events as SSE', run: () => encodeOnly(events) },
    {
      name: "createRelay: pre-made events → SSE out (relay's own share)",
      run: async () => {
        await relayRequest(ownRelay, 'premade/events')
        return n
      },
    },
  ]
  const [floorFull, alone, full, floorOwn, own] = await measure(variants, 11, 2)
  const perK = (us: number) => `${fmt(us, 2)} ms/1k events`
  const rows: Row[] = [
    { section, name: floorFull!.name, value: perK(floorFull!.usPerEvent) },
    {
      section,
      name: alone!.name,
      value: perK(alone!.usPerEvent),
      note: `${fmt(ratio(alone!, floorFull!))}x the parse floor`,
    },
    {
      section,
      name: full!.name,
      value: perK(full!.usPerEvent),
      note:
        `${fmt(ratio(full!, floorFull!))}x the parse floor; ` +
        `relay adds ${fmt(full!.usPerEvent - alone!.usPerEvent)} ms/1k over the adapter alone`,
    },
    { section, name: floorOwn!.name, value: perK(floorOwn!.usPerEvent) },
    {
      section,
      name: own!.name,
      value: perK(own!.usPerEvent),
      note: `${fmt(ratio(own!, floorOwn!))}x the encode floor (target ≤ 1.5x)`,
    },
  ]
  rows.push(...(await freePlanShare()))
  return rows
}

/**
 * One whole request for a 1,000-token answer (500 thinking + 500 text deltas; real deltas carry a
 * token or more, so this is the heavy case) per provider: request checks, adapter set-up, the
 * stream and the SSE out. Wall time in one thread with no I/O wait, so it stands for CPU time.
 */
async function freePlanShare(): Promise<Row[]> {
  const section = '2b. one 1,000-token answer per request (Workers Free plan: 10 ms CPU)'
  const half = 500
  const anthropicFetch = recordedFetch(anthropicRecording(half, half).bytes)
  const openaiFetch = recordedFetch(openaiRecording(half, half).bytes)
  const geminiFetch = recordedFetch(geminiRecording(half, half).bytes)
  const events = premadeEvents(half)
  const relay = createRelay({
    registry: {
      anthropic: (model) => anthropic({ apiKey: KEY, model, fetch: anthropicFetch }),
      openai: (model) => openai({ apiKey: KEY, model, fetch: openaiFetch }),
      gemini: (model) => gemini({ apiKey: KEY, model, fetch: geminiFetch }),
      premade: () => premadeAdapter(events),
    },
  })
  const models = [
    'premade/events',
    'anthropic/claude-sonnet-5',
    'openai/gpt-5.4',
    'gemini/gemini-3-flash-preview',
  ]
  for (const model of models) await verify(relay, model, 2 * half)
  const measured = await measure(
    models.map((model) => ({
      name: model,
      run: async () => {
        await relayRequest(relay, model)
        return 1
      },
    })),
    15,
    3,
  )
  return measured.map((m) => ({
    section,
    name: m.name === 'premade/events' ? 'pre-made events (relay alone)' : m.name,
    value: `${fmt(m.usPerEvent / 1000, 2)} ms/request`,
    note: `${fmt(m.usPerEvent / 100, 0)}% of 10 ms`,
  }))
}

if (isMain(import.meta.url)) printTable(await benchRelayCpu())
