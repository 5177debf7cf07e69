/**
 * What the relay costs, in-process, in CPU time (the harness's `clock`), at three read sizes: 16
 * KiB reads; one SSE event per read, each ready at once (the relay still writes about 16 KiB to a
 * chunk); and token-paced reads, one event per read a turn of the event loop later, as a model
 * streaming tokens delivers them (the relay writes every event as a chunk of its own, which this
 * bench counts):
 * 2. the whole path for every provider: provider bytes → adapter → `createRelay` → SSE bytes out,
 *    drained, beside the adapter alone and beside the floor of parsing the same bytes
 *    (eventsource-parser + `JSON.parse`) and writing the relay's SSE (each delta and the `done`
 *    turn with `JSON.stringify`), chunk for chunk as the relay writes it, with no async step per
 *    event but the reads (target: the relay at most 1.5x that floor);
 * 2a. the relay's own share, from pre-made events, beside the floor of encoding them;
 * 2b. one whole request for a 1,000-token answer per provider, one event per token, against the
 *    Workers Free plan's 10 ms of CPU (target: under 3 ms).
 * Before anything is timed, each floor is checked to write the bytes the relay writes, in as many
 * chunks. Numbers only. Run alone: `node --expose-gc --import tsx bench/relay-cpu.ts [provider]`.
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
  clock,
  fmt,
  isMain,
  measure,
  median,
  middleHalf,
  printTable,
  ratio,
  ratios,
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

/** The read sizes of rows 2 and 2b: the per-event ones, and token-paced reads. */
const READS: readonly ReadSize[] = [...READ_SIZES, 'paced']

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

/** What a drained body held: its bytes, and the chunks they came in. */
type Drained = { bytes: number; chunks: number }

/** Reads a body to its end. */
async function drainBody(body: ReadableStream<Uint8Array>): Promise<Drained> {
  const reader = body.getReader()
  let bytes = 0
  let chunks = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { bytes, chunks }
    bytes += value.byteLength
    chunks++
  }
}

/** One request through the relay, its SSE body drained. */
async function relayRequest(relay: Relay, model: string): Promise<Drained> {
  const response = await relay.fetch(chatRequest(model))
  if (response.status !== 200 || response.body === null) {
    throw new Error(`relay answered ${response.status}: ${await response.text()}`)
  }
  return drainBody(response.body)
}

/** A relay answer, as {@link verify} found it: its `done` turn, bytes and chunks. */
type Answer = Drained & { turn: AssistantTurn }

/**
 * Checks, outside any timing, that a relay answer holds `events` visible events and ends in `done`
 * (a figure for a stream that failed part-way would be meaningless); returns the answer.
 */
async function verify(relay: Relay, model: string, events: number): Promise<Answer> {
  const response = await relay.fetch(chatRequest(model))
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let chunks = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    chunks++
  }
  let seen = 0
  let last = ''
  let turn: AssistantTurn | undefined
  const parser = createParser({
    onEvent(message) {
      last = message.event ?? 'message'
      if (last === 'text' || last === 'thinking') seen++
      if (last === 'done') turn = (JSON.parse(message.data) as { turn: AssistantTurn }).turn
    },
  })
  parser.feed(text)
  if (seen !== events || last !== 'done' || turn === undefined) {
    throw new Error(`${model}: relay sent ${seen} events ending in '${last}', not ${events} + done`)
  }
  return { turn, bytes: utf8.encode(text).byteLength, chunks }
}

/**
 * Checks, outside any timing, that a floor writes what the relay wrote: as many bytes (the `done`
 * turn included), and at token-paced reads as many chunks (one per event: the relay flushed each).
 */
function checkFloor(what: string, relay: Answer, floor: Drained, events: number, paced: boolean) {
  const wrong: string[] = []
  if (floor.bytes !== relay.bytes) wrong.push(`${floor.bytes} bytes, the relay ${relay.bytes}`)
  if (paced && floor.chunks !== relay.chunks)
    wrong.push(`${floor.chunks} chunks, the relay ${relay.chunks}`)
  if (paced && relay.chunks < events)
    wrong.push(`the relay wrote ${relay.chunks} chunks for ${events} events: it batched them`)
  if (wrong.length > 0) throw new Error(`${what}: the floor wrote ${wrong.join('; ')}`)
}

/** SSE text of one event, as the relay writes it. */
function frameEvent(type: string, id: number, data: string): string {
  return `id: ${id}\nevent: ${type}\ndata: ${data}\n\n`
}

/**
 * A copy of the relay's `done` turn with the floor's own thinking and text in it where the relay's
 * were (in the items too), so that stringifying it costs what the relay's costs: the floor's
 * strings are built of its deltas, as the relay's are, and are flattened as they are written.
 */
function filledTurn(template: AssistantTurn, thinking: string, text: string): unknown {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value === template.thinking ? thinking : value === template.text ? text : value
    if (Array.isArray(value)) return value.map(fill)
    if (!isDict(value)) return value
    const copy: Dict = {}
    for (const key in value) copy[key] = fill(value[key])
    return copy
  }
  return fill(template)
}

/** A floor's answer: its visible events, and its body as drained. */
type FloorAnswer = Drained & { events: number }

/**
 * Floor of the full path: the provider's SSE bytes parsed (eventsource-parser + `JSON.parse`), each
 * visible delta re-encoded as the relay's SSE (`JSON.stringify`) and the thinking and text added
 * up, then the `done` event the relay writes (`done`: the turn of the relay's answer with the
 * floor's thinking and text, `JSON.stringify`d), written through a drained ReadableStream about 16
 * KiB to a chunk, or at token-paced reads a chunk per read that made output, as the relay writes
 * them. The only async steps are the reads.
 */
async function parseAndReencode(
  fetch: typeof globalThis.fetch,
  path: Path,
  done: AssistantTurn,
  paced: boolean,
): Promise<FloorAnswer> {
  const response = await fetch('http://bench.invalid/', { method: 'POST' })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let id = 0
  let out = ''
  let thinking = ''
  let text = ''
  const push: Push = (type, delta) => {
    out += frameEvent(type, ++id, JSON.stringify({ text: delta }))
    if (type === 'text') text += delta
    else thinking += delta
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
          const { done: ended, value } = await reader.read()
          if (ended) {
            const turn = filledTurn(done, thinking, text)
            out += frameEvent('done', id + 1, JSON.stringify({ turn }))
            controller.enqueue(utf8.encode(out))
            return controller.close()
          }
          parser.feed(decoder.decode(value, { stream: true }))
          if (paced && out !== '') break
        }
        controller.enqueue(utf8.encode(out))
        out = ''
      },
    },
    { highWaterMark: 1 },
  )
  const drained = await drainBody(stream)
  return { ...drained, events: id }
}

/** Drains an adapter alone; returns its visible events. */
async function drainAdapter(adapter: Adapter): Promise<number> {
  let count = 0
  for await (const event of adapter.stream(ask)) if (event.type !== 'done') count++
  return count
}

const perK = (m: Measured) => `${fmt(m.usPerEvent, 2)} ms/1k events`

/** Row 2's variants for one provider at one read size, and the chunks the relay wrote. */
type PathVariants = { variants: Variant[]; chunks: number }

/** Row 2's variants for one provider at one read size: floor, adapter alone, the whole path. */
async function pathVariants(
  path: Path,
  recording: Recording,
  reads: ReadSize,
): Promise<PathVariants> {
  const fetch = recordedFetch(recording, reads)
  const adapter = path.adapter(fetch)
  const relay = createRelay({ providers: { [path.id.split('/')[0]!]: [adapter] } })
  const answer = await verify(relay, path.id, recording.deltas)
  const paced = reads === 'paced'
  const floor = () => parseAndReencode(fetch, path, answer.turn, paced)
  checkFloor(`${path.name}, ${readLabel(reads)}`, answer, await floor(), recording.deltas, paced)
  const variants: Variant[] = [
    { name: 'floor', run: async () => (await floor()).events },
    { name: 'adapter', run: () => drainAdapter(adapter) },
    {
      name: 'relay',
      run: async () => {
        await relayRequest(relay, path.id)
        return recording.deltas
      },
    },
    {
      name: 'reads',
      run: async () => {
        await drainBody((await fetch('http://bench.invalid/')).body!)
        return recording.deltas
      },
    },
  ]
  return { variants, chunks: answer.chunks }
}

/**
 * Runs every provider's variants a few times before anything is timed, so that the provider
 * measured first does not pay for compiling the shared code (the relay, the kit) while it is
 * timed, and every provider is measured with the code in the same state, as a relay that serves
 * them all runs it.
 */
async function warmUp(paths: readonly Path[]): Promise<void> {
  for (const path of paths) {
    const recording = path.record(DELTAS / 5, DELTAS / 5)
    for (const reads of READS) {
      const { variants } = await pathVariants(path, recording, reads)
      for (let i = 0; i < 5; i++) for (const variant of variants) await variant.run()
    }
  }
}

/** Row 2's figures at one read size. */
type PathFigures = { floor: Measured; adapter: Measured; relay: Measured; reads: Measured }

/**
 * `a` over `b` in each round once the reads alone are taken from both: at token-paced reads, the
 * turns of the event loop that deliver each event weigh as much as the rest of the work.
 */
function netRatio(a: Measured, b: Measured, base: Measured): number {
  return median(
    a.samples.map((v, r) => (v - base.samples[r]!) / (b.samples[r]! - base.samples[r]!)),
  )
}

/** Row 2 for one provider: floor, adapter alone and the whole relay path, at each read size. */
async function benchPath(path: Path, section: string): Promise<Row[]> {
  const recording = path.record(DELTAS, DELTAS)
  const n = recording.deltas
  const results = new Map<ReadSize, PathFigures>()
  const chunks = new Map<ReadSize, number>()
  for (const reads of READS) {
    const made = await pathVariants(path, recording, reads)
    const measured = await measure(made.variants, ROUNDS, 2)
    const wrong = measured.filter((m) => m.events !== n)
    if (wrong.length > 0)
      throw new Error(`${path.name}: ${wrong.map((m) => `${m.name} ${m.events}`).join(', ')}`)
    const [floor, adapter, relay, readsAlone] = measured
    results.set(reads, { floor: floor!, adapter: adapter!, relay: relay!, reads: readsAlone! })
    chunks.set(reads, made.chunks)
  }
  const each = <T>(f: (m: PathFigures) => T): T[] => READS.map((reads) => f(results.get(reads)!))
  const times = (f: (m: PathFigures) => number) =>
    each(f)
      .map((x) => `${fmt(x)}x`)
      .join(', ')
  return [
    {
      section,
      name: `floor: parse ${path.name} SSE + re-encode as SSE`,
      value: each(({ floor }) => perK(floor)),
      note: `the relay's bytes, in ${READS.map((reads) => chunks.get(reads)!).join(', ')} chunks`,
    },
    {
      section,
      name: `${path.name} adapter alone, drained`,
      value: each(({ adapter }) => perK(adapter)),
      note: `${times(({ floor, adapter }) => ratio(adapter, floor))} the floor`,
    },
    {
      section,
      name: `createRelay: ${path.name} bytes → SSE out`,
      value: each(({ relay }) => perK(relay)),
      note:
        targetNote(
          'relay/floor',
          each(({ floor, relay }) => ratio(relay, floor)),
          FLOOR_TARGET,
        ) +
        ` (middle half ${each(({ floor, relay }) => middleHalf(ratios(relay, floor))).join(', ')})` +
        `; net of the reads ${times(({ floor, relay, reads }) => netRatio(relay, floor, reads))}` +
        `; relay adds ${each(({ adapter, relay }) => fmt(relay.usPerEvent - adapter.usPerEvent)).join(', ')} ms/1k over the adapter`,
    },
    {
      section,
      name: `  the reads alone (the stand-in upstream, drained)`,
      value: each(({ reads }) => perK(reads)),
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
async function encodeOnly(events: readonly Event[]): Promise<FloorAnswer> {
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
  return { ...(await drainBody(stream)), events: id - 1 }
}

/** Row 2a: the relay's own share, from pre-made events (no bytes read: one figure). */
async function benchOwnShare(): Promise<Row[]> {
  const section = `2a. relay's own share (${2 * DELTAS} pre-made events/request; ${clock.name})`
  const events = premadeEvents(DELTAS)
  const relay = createRelay({ providers: { premade: [premadeAdapter(events)] } })
  const n = 2 * DELTAS
  const answer = await verify(relay, 'premade/events', n)
  checkFloor('pre-made events', answer, await encodeOnly(events), n, false)
  const [floor, own] = await measure(
    [
      { name: 'floor', run: async () => (await encodeOnly(events)).events },
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
 * and the SSE out; beside it, the parse-and-re-encode floor of the same bytes. Each figure is the
 * median over rounds of ten requests timed together (so that their GC is shared out among them).
 */
async function benchFreePlan(paths: readonly Path[]): Promise<Row[]> {
  const section = `2b. one 1,000-token answer per request, ${clock.name} (Workers Free plan: ${FREE_PLAN_MS} ms CPU)`
  const half = 500
  const events = premadeEvents(half)
  const recordings = paths.map((path) => path.record(half, half))
  /**
   * Per read size: the relay request, the floor and the reads alone of each provider; the
   * pre-made relay last.
   */
  const variants: Variant[] = []
  const times = (run: () => Promise<unknown>) => async () => {
    for (let i = 0; i < REQUESTS_PER_SAMPLE; i++) await run()
    return REQUESTS_PER_SAMPLE
  }
  for (const reads of READS) {
    const providers: { [name: string]: Adapter[] } = { premade: [premadeAdapter(events)] }
    const fetches = recordings.map((recording) => recordedFetch(recording, reads))
    paths.forEach((path, i) => (providers[path.id.split('/')[0]!] = [path.adapter(fetches[i]!)]))
    const relay = createRelay({ providers })
    const paced = reads === 'paced'
    for (const [i, path] of paths.entries()) {
      const answer = await verify(relay, path.id, 2 * half)
      const floor = () => parseAndReencode(fetches[i]!, path, answer.turn, paced)
      checkFloor(`${path.name}, ${readLabel(reads)}`, answer, await floor(), 2 * half, paced)
      const fetch = fetches[i]!
      variants.push(
        { name: path.id, run: times(() => relayRequest(relay, path.id)) },
        { name: 'floor', run: times(floor) },
        {
          name: 'reads',
          run: times(async () => drainBody((await fetch('http://b.invalid/')).body!)),
        },
      )
    }
    await verify(relay, 'premade/events', 2 * half)
    variants.push({ name: 'premade', run: times(() => relayRequest(relay, 'premade/events')) })
  }
  const measured = await measure(variants, ROUNDS, 2)
  const perReads = measured.length / READS.length
  /** Variant `i` (of one read size) at every read size. */
  const at = (i: number) => READS.map((_, r) => measured[r * perReads + i]!)
  /** The figures in ms of variant `i` (of one read size), at every read size. */
  const ms = (i: number) => at(i).map((m) => m.usPerEvent / 1000)
  const share = (figures: number[]) =>
    `${figures.map((f) => `${fmt((100 * f) / FREE_PLAN_MS, 0)}%`).join(', ')} of ${FREE_PLAN_MS} ms`
  const rows: Row[] = [{ section, name: 'per request, at', value: READS.map(readLabel) }]
  for (const [i, path] of paths.entries()) {
    const figures = ms(3 * i)
    // The stand-in upstream's reads are the bench's, not the relay's: a Worker reads a socket.
    const reads = ms(3 * i + 2)
    const net = figures.map((f, r) => f - reads[r]!)
    const verdicts = net.map((f) => `${fmt(f)} ms ${f < REQUEST_TARGET_MS ? 'ok' : 'MISSED'}`)
    rows.push(
      {
        section,
        name: `createRelay: ${path.id}`,
        value: figures.map((f) => `${fmt(f)} ms`),
        note: `net of the reads ${verdicts.join(', ')} (target < ${REQUEST_TARGET_MS} ms); ${share(net)}`,
      },
      {
        section,
        name: `  floor: parse + re-encode the same bytes`,
        value: ms(3 * i + 1).map((f) => `${fmt(f)} ms`),
        note:
          `relay/floor ${at(3 * i)
            .map((relay, r) => `${fmt(ratio(relay, at(3 * i + 1)[r]!))}x`)
            .join(', ')}; ` +
          `the reads alone (the stand-in upstream) ${reads.map((f) => fmt(f)).join(', ')} ms`,
      },
    )
  }
  const premade = ms(perReads - 1)
  rows.push({
    section,
    name: 'createRelay: pre-made events (the relay alone)',
    value: premade.map((f) => `${fmt(f)} ms`),
    note: `${share(premade)} (reads no bytes: the same work in each column)`,
  })
  return rows
}

/**
 * Row 2: the relay per event for every provider (or those whose name contains `only`), its own
 * share, and a Free-plan request.
 */
export async function benchRelayCpu(only?: string): Promise<Row[]> {
  const paths = PATHS.filter((path) => only === undefined || path.name.includes(only))
  const section = `2. relay full path vs parse + re-encode floor (${2 * DELTAS} events/request; ${clock.name})`
  const rows: Row[] = [{ section, name: 'per 1,000 events, at', value: READS.map(readLabel) }]
  await warmUp(paths)
  for (const path of paths) rows.push(...(await benchPath(path, section)))
  rows.push(...(await benchOwnShare()))
  rows.push(...(await benchFreePlan(paths)))
  return rows
}

if (isMain(import.meta.url)) printTable(await benchRelayCpu(process.argv[2]))
