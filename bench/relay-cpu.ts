/**
 * What the relay costs, in-process, at two read sizes (16 KiB reads, and one SSE event per read as
 * a model streaming tokens delivers them):
 * 2. the whole path for every provider: provider bytes → adapter → `createRelay` → SSE bytes out,
 *    drained, beside the adapter alone and beside the floor of parsing the same bytes
 *    (eventsource-parser + `JSON.parse`) and re-encoding each delta as the relay's SSE with
 *    `JSON.stringify`, with no async step per event (target: the relay at most 1.5x that floor);
 * 2a. the relay's own share, from pre-made events, beside the floor of encoding them;
 * 2b. one whole request for a 1,000-token answer per provider, one event per token, against the
 *    Workers Free plan's 10 ms of CPU (target: under 3 ms).
 * Numbers only. Run alone: `node --expose-gc --import tsx bench/relay-cpu.ts`.
 */
import { createParser } from 'eventsource-parser'
import type { Adapter } from '../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../src/core/conversation.ts'
import type { Event } from '../src/core/events.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { gemini } from '../src/providers/gemini/index.ts'
import { deepseek } from '../src/providers/openai-compatible/index.ts'
import { openai } from '../src/providers/openai/index.ts'
import { createRelay, type Relay } from '../src/relay/index.ts'
import {
  fmt,
  isMain,
  measure,
  printTable,
  ratio,
  targetNote,
  type Measured,
  type Row,
  type Variant,
} from './harness.ts'
import {
  anthropicRecording,
  chatCompletionsRecording,
  geminiRecording,
  openaiRecording,
  READ_SIZES,
  readLabel,
  recordedFetch,
  textDelta,
  thinkingDelta,
  type ReadSize,
  type Recording,
} from './recordings.ts'

const KEY = 'bench-key'
/** Thinking deltas, then as many text deltas, for the per-event figures. */
const DELTAS = 5_000
const ROUNDS = 11
/** The relay over the parse-and-re-encode floor, and its own share over the encode floor. */
const FLOOR_TARGET = 1.5
/** A 1,000-token answer's request, in ms of CPU, against the Free plan's 10 ms. */
const REQUEST_TARGET_MS = 3
const FREE_PLAN_MS = 10
/** Requests timed together for one figure of 2b, so that their GC is shared out among them. */
const REQUESTS_PER_SAMPLE = 10
/** The relay writes a chunk at about this many characters; so does the floor. */
const BATCH_CHARS = 16 * 1024
const ask: Conversation = { turns: [{ role: 'user', content: 'Think, then answer at length.' }] }
const utf8 = new TextEncoder()

type Dict = { [key: string]: unknown }
const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null
type Push = (type: 'text' | 'thinking', text: string) => void

/** One provider path: its recording, how the floor finds its deltas, and its adapter. */
type Path = {
  name: string
  /** The model id, `provider/model`, the relay serves it under. */
  id: string
  record(thinking: number, text: number): Recording
  /** Pushes the visible deltas of one parsed SSE event, for the floor. */
  deltasOf(data: Dict, push: Push): void
  adapter(fetch: typeof globalThis.fetch): Adapter
}

const PATHS: readonly Path[] = [
  {
    name: 'anthropic',
    id: 'anthropic/claude-sonnet-5',
    record: anthropicRecording,
    deltasOf(data, push) {
      const delta = data['delta']
      if (data['type'] !== 'content_block_delta' || !isDict(delta)) return
      if (delta['type'] === 'text_delta') push('text', String(delta['text']))
      else if (delta['type'] === 'thinking_delta') push('thinking', String(delta['thinking']))
    },
    adapter: (fetch) => anthropic({ apiKey: KEY, model: 'claude-sonnet-5', fetch }),
  },
  {
    name: 'openai responses',
    id: 'openai/gpt-5.4',
    record: openaiRecording,
    deltasOf(data, push) {
      if (data['type'] === 'response.output_text.delta') push('text', String(data['delta']))
      else if (data['type'] === 'response.reasoning_summary_text.delta')
        push('thinking', String(data['delta']))
    },
    adapter: (fetch) => openai({ apiKey: KEY, model: 'gpt-5.4', fetch }),
  },
  {
    name: 'gemini',
    id: 'gemini/gemini-3-flash-preview',
    record: geminiRecording,
    deltasOf(data, push) {
      const candidates = data['candidates']
      const content = Array.isArray(candidates) && isDict(candidates[0]) && candidates[0]['content']
      const parts = isDict(content) ? content['parts'] : undefined
      if (!Array.isArray(parts)) return
      for (const part of parts) {
        if (!isDict(part) || typeof part['text'] !== 'string' || part['text'] === '') continue
        push(part['thought'] === true ? 'thinking' : 'text', part['text'])
      }
    },
    adapter: (fetch) => gemini({ apiKey: KEY, model: 'gemini-3-flash-preview', fetch }),
  },
  {
    name: 'openai-compatible (deepseek)',
    id: 'deepseek/deepseek-reasoner',
    record: chatCompletionsRecording,
    deltasOf(data, push) {
      const choices = data['choices']
      const delta = Array.isArray(choices) && isDict(choices[0]) && choices[0]['delta']
      if (!isDict(delta)) return
      const reasoning = delta['reasoning_content']
      if (typeof reasoning === 'string' && reasoning !== '') push('thinking', reasoning)
      const content = delta['content']
      if (typeof content === 'string' && content !== '') push('text', content)
    },
    adapter: (fetch) => deepseek({ apiKey: KEY, model: 'deepseek-reasoner', fetch }),
  },
]

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

/** SSE text of one event, as the relay writes it. */
function frameEvent(type: string, id: number, data: string): string {
  return `id: ${id}\nevent: ${type}\ndata: ${data}\n\n`
}

/**
 * Floor of the full path: the provider's SSE bytes parsed (eventsource-parser + `JSON.parse`), each
 * visible delta re-encoded as the relay's SSE (`JSON.stringify`), written about 16 KiB to a chunk
 * as the relay writes them, through a drained ReadableStream. The only async steps are the reads.
 */
async function parseAndReencode(fetch: typeof globalThis.fetch, path: Path): Promise<number> {
  const response = await fetch('http://bench.invalid/', { method: 'POST' })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let id = 0
  let out = ''
  const push: Push = (type, text) => {
    out += frameEvent(type, ++id, JSON.stringify({ text }))
  }
  const parser = createParser({
    onEvent(message) {
      if (message.data === '[DONE]') return
      const data: unknown = JSON.parse(message.data)
      if (isDict(data)) path.deltasOf(data, push)
    },
  })
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (out.length < BATCH_CHARS) {
          const { done, value } = await reader.read()
          if (done) {
            if (out !== '') controller.enqueue(utf8.encode(out))
            return controller.close()
          }
          parser.feed(decoder.decode(value, { stream: true }))
        }
        controller.enqueue(utf8.encode(out))
        out = ''
      },
    },
    { highWaterMark: 1 },
  )
  await drainBody(stream)
  return id
}

/** Drains an adapter alone; returns its visible events. */
async function drainAdapter(adapter: Adapter): Promise<number> {
  let count = 0
  for await (const event of adapter.stream(ask)) if (event.type !== 'done') count++
  return count
}

const perK = (m: Measured) => `${fmt(m.usPerEvent, 2)} ms/1k events`

/** Row 2's variants for one provider at one read size: floor, adapter alone, the whole path. */
async function pathVariants(path: Path, recording: Recording, reads: ReadSize): Promise<Variant[]> {
  const fetch = recordedFetch(recording, reads)
  const adapter = path.adapter(fetch)
  const relay = createRelay({ providers: { [path.id.split('/')[0]!]: [adapter] } })
  await verify(relay, path.id, recording.deltas)
  return [
    { name: 'floor', run: () => parseAndReencode(fetch, path) },
    { name: 'adapter', run: () => drainAdapter(adapter) },
    {
      name: 'relay',
      run: async () => {
        await relayRequest(relay, path.id)
        return recording.deltas
      },
    },
  ]
}

/**
 * Runs every provider's variants a few times before anything is timed, so that the provider
 * measured first does not pay for compiling the shared code (the relay, the kit) while it is
 * timed, and every provider is measured with the code in the same state, as a relay that serves
 * them all runs it.
 */
async function warmUp(): Promise<void> {
  for (const path of PATHS) {
    const recording = path.record(DELTAS / 5, DELTAS / 5)
    for (const reads of READ_SIZES) {
      const variants = await pathVariants(path, recording, reads)
      for (let i = 0; i < 5; i++) for (const variant of variants) await variant.run()
    }
  }
}

/** Row 2 for one provider: floor, adapter alone and the whole relay path, at both read sizes. */
async function benchPath(path: Path, section: string): Promise<Row[]> {
  const recording = path.record(DELTAS, DELTAS)
  const n = recording.deltas
  const results = new Map<ReadSize, Measured[]>()
  for (const reads of READ_SIZES) {
    const measured = await measure(await pathVariants(path, recording, reads), ROUNDS, 2)
    const wrong = measured.filter((m) => m.events !== n)
    if (wrong.length > 0)
      throw new Error(`${path.name}: ${wrong.map((m) => `${m.name} ${m.events}`).join(', ')}`)
    results.set(reads, measured)
  }
  const both = <T>(f: (m: Measured[]) => T): T[] =>
    READ_SIZES.map((reads) => f(results.get(reads)!))
  return [
    {
      section,
      name: `floor: parse ${path.name} SSE + re-encode as SSE`,
      value: both(([floor]) => perK(floor!)),
    },
    {
      section,
      name: `${path.name} adapter alone, drained`,
      value: both(([, alone]) => perK(alone!)),
      note: `${both(([floor, alone]) => `${fmt(ratio(alone!, floor!))}x`).join(', ')} the floor`,
    },
    {
      section,
      name: `createRelay: ${path.name} bytes → SSE out`,
      value: both(([, , full]) => perK(full!)),
      note:
        targetNote(
          'relay/floor',
          both(([floor, , full]) => ratio(full!, floor!)),
          FLOOR_TARGET,
        ) +
        `; relay adds ${both(([, alone, full]) => fmt(full!.usPerEvent - alone!.usPerEvent)).join(', ')} ms/1k over the adapter`,
    },
  ]
}

const premadeTurn: AssistantTurn = {
  role: 'assistant',
  text: 'answer',
  thinking: 'thoughts',
  usage: { inputTokens: 12, outputTokens: 2 * DELTAS },
  stopReason: 'stop',
  items: { provider: 'premade', model: 'events', thinkingMode: 'default', data: [] },
}

/** Pre-made events: `count` thinking deltas, `count` text deltas and `done`. */
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
            out += frameEvent(event.type, id, JSON.stringify({ text: event.text }))
          else if (event.type === 'done')
            out += frameEvent('done', id, JSON.stringify({ turn: event.turn }))
          if (out.length >= BATCH_CHARS) break
        }
        controller.enqueue(utf8.encode(out))
      },
    },
    { highWaterMark: 1 },
  )
  await drainBody(stream)
  return id - 1
}

/** Row 2a: the relay's own share, from pre-made events (no bytes read: one figure). */
async function benchOwnShare(): Promise<Row[]> {
  const section = `2a. relay's own share (${2 * DELTAS} pre-made events/request)`
  const events = premadeEvents(DELTAS)
  const relay = createRelay({ providers: { premade: [premadeAdapter(events)] } })
  const n = 2 * DELTAS
  await verify(relay, 'premade/events', n)
  const [floor, own] = await measure(
    [
      { name: 'floor', run: () => encodeOnly(events) },
      {
        name: 'relay',
        run: async () => {
          await relayRequest(relay, 'premade/events')
          return n
        },
      },
    ],
    ROUNDS,
    2,
  )
  return [
    { section, name: 'floor: encode pre-made events as SSE', value: perK(floor!) },
    {
      section,
      name: 'createRelay: pre-made events → SSE out',
      value: perK(own!),
      note: targetNote('relay/floor', [ratio(own!, floor!)], FLOOR_TARGET),
    },
  ]
}

/**
 * Row 2b: one whole request for a 1,000-token answer (500 thinking + 500 text deltas, one token
 * each: the heavy case) per provider, through one relay: request checks, adapter set-up, the stream
 * and the SSE out; beside it, the parse-and-re-encode floor of the same bytes. Wall time in one
 * thread with no I/O wait, so it stands for CPU time; each figure is the median over rounds of ten
 * requests timed together (so that their GC is shared out among them).
 */
async function benchFreePlan(): Promise<Row[]> {
  const section = `2b. one 1,000-token answer per request (Workers Free plan: ${FREE_PLAN_MS} ms CPU)`
  const half = 500
  const events = premadeEvents(half)
  const recordings = PATHS.map((path) => path.record(half, half))
  /** Per read size: the relay request, then the floor, of each provider; the pre-made relay last. */
  const variants: Variant[] = []
  const times = (run: () => Promise<unknown>) => async () => {
    for (let i = 0; i < REQUESTS_PER_SAMPLE; i++) await run()
    return REQUESTS_PER_SAMPLE
  }
  for (const reads of READ_SIZES) {
    const providers: { [name: string]: Adapter[] } = { premade: [premadeAdapter(events)] }
    const fetches = recordings.map((recording) => recordedFetch(recording, reads))
    PATHS.forEach((path, i) => (providers[path.id.split('/')[0]!] = [path.adapter(fetches[i]!)]))
    const relay = createRelay({ providers })
    for (const [i, path] of PATHS.entries()) {
      await verify(relay, path.id, 2 * half)
      variants.push(
        { name: path.id, run: times(() => relayRequest(relay, path.id)) },
        { name: 'floor', run: times(() => parseAndReencode(fetches[i]!, path)) },
      )
    }
    await verify(relay, 'premade/events', 2 * half)
    variants.push({ name: 'premade', run: times(() => relayRequest(relay, 'premade/events')) })
  }
  const measured = await measure(variants, ROUNDS, 2)
  const perReads = measured.length / READ_SIZES.length
  /** The figures in ms of variant `i` (of one read size), at every read size. */
  const ms = (i: number) => READ_SIZES.map((_, r) => measured[r * perReads + i]!.usPerEvent / 1000)
  const share = (figures: number[]) =>
    `${figures.map((f) => `${fmt((100 * f) / FREE_PLAN_MS, 0)}%`).join(', ')} of ${FREE_PLAN_MS} ms`
  const rows: Row[] = [{ section, name: 'per request, at', value: READ_SIZES.map(readLabel) }]
  for (const [i, path] of PATHS.entries()) {
    const figures = ms(2 * i)
    const verdicts = figures.map((f) => `${fmt(f)} ms ${f < REQUEST_TARGET_MS ? 'ok' : 'MISSED'}`)
    rows.push(
      {
        section,
        name: `createRelay: ${path.id}`,
        value: figures.map((f) => `${fmt(f)} ms`),
        note: `${verdicts.join(', ')} (target < ${REQUEST_TARGET_MS} ms); ${share(figures)}`,
      },
      {
        section,
        name: `  floor: parse + re-encode the same bytes`,
        value: ms(2 * i + 1).map((f) => `${fmt(f)} ms`),
      },
    )
  }
  const premade = ms(perReads - 1)
  rows.push({
    section,
    name: 'createRelay: pre-made events (the relay alone)',
    value: premade.map((f) => `${fmt(f)} ms`),
    note: `${share(premade)} (reads no bytes: the same work twice)`,
  })
  return rows
}

/** Row 2: the relay per event for every provider, its own share, and a Free-plan request. */
export async function benchRelayCpu(): Promise<Row[]> {
  const section = `2. relay full path vs parse + re-encode floor (${2 * DELTAS} events/request)`
  const rows: Row[] = [{ section, name: 'per 1,000 events, at', value: READ_SIZES.map(readLabel) }]
  await warmUp()
  for (const path of PATHS) rows.push(...(await benchPath(path, section)))
  rows.push(...(await benchOwnShare()))
  rows.push(...(await benchFreePlan()))
  return rows
}

if (isMain(import.meta.url)) printTable(await benchRelayCpu())
