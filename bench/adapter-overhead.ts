/**
 * What each adapter costs per event, in CPU time (the harness's `clock`), at two read sizes (16
 * KiB reads, and one SSE event per read) and two answer sizes (a 1,000-token answer, where what
 * an answer costs once weighs, and a 10,000-event one, where it does not), beside:
 * (a) the floor, parsing the same bytes with eventsource-parser and `JSON.parse` (target: the
 *     adapter at most 1.5x this), measured in its own run of floor and adapter alone;
 * (s) at 1,000 tokens, the SDK's request path alone, as the adapter calls it (the same body and a
 *     signal), answered with an empty body: what the SDK costs an answer before any byte of it
 *     is read; and (a+s), the floor reading the body that request returns: the least an adapter
 *     that lets its SDK send the request can cost (the request costs more there than alone).
 *     `c/(a+s)` and `c − (a+s)` are what the adapter itself adds;
 * (b) the provider SDK's own stream, and (d) the AI SDK's `streamText` with its provider package,
 *     measured on a shorter stream (they cost up to 60 µs an event) with the adapter run beside
 *     them for their ratios.
 * Every variant reads the same generated recording through the same injected fetch; runs alternate
 * and the median is reported. Numbers only: nothing here asserts a time.
 * Run alone: `node --expose-gc --import tsx bench/adapter-overhead.ts [provider]`.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { GoogleGenAI } from '@google/genai'
import { streamText, type LanguageModel } from 'ai'
import { createParser } from 'eventsource-parser'
import OpenAI from 'openai'
import type { Adapter } from '../src/core/adapter.ts'
import type { Conversation } from '../src/core/conversation.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { gemini } from '../src/providers/gemini/index.ts'
import { deepseek } from '../src/providers/openai-compatible/index.ts'
import { openai } from '../src/providers/openai/index.ts'
import { sendRequest } from '../src/providers/gemini/send-request.ts'
import {
  clock,
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
  type ReadSize,
  type Recording,
} from './recordings.ts'

/**
 * The answers the floor and the adapter (the target) read: thinking deltas, then as many text
 * deltas; short ones timed several to a figure, so that each figure is some 10 ms of CPU or more.
 */
const SIZES = [
  { name: '1,000-token answer', deltas: 500, answers: 10 },
  { name: '10,000-event answer', deltas: 5_000, answers: 1 },
] as const
type Size = (typeof SIZES)[number]
const ROUNDS = 15
/** SDK requests (s) timed together for one figure. */
const SDK_REQUESTS = 40
/** The same, for the provider SDKs and the AI SDK beside the adapter. */
const COMPARE_DELTAS = 3_000
const COMPARE_ROUNDS = 5
/** The adapter over the parse floor. */
const FLOOR_TARGET = 1.5
/** The adapter over the provider SDK's stream, and the AI SDK over the adapter. */
const SDK_TARGET = 1.25
const AI_SDK_TARGET = 5

const KEY = 'bench-key'
const PROMPT = 'Think, then answer at length.'
const ask: Conversation = { turns: [{ role: 'user', content: PROMPT }] }

// The AI SDK logs a line per warning (e.g. an unknown model id); the figures want none of it.
Reflect.set(globalThis, 'AI_SDK_LOG_WARNINGS', false)

type Dict = { [key: string]: unknown }
const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null

/** (a) The floor: fetch, decode, eventsource-parser and `JSON.parse`, counting visible deltas. */
async function parseFloor(
  fetch: typeof globalThis.fetch,
  countDeltas: (data: Dict) => number,
): Promise<number> {
  const response = await fetch('http://bench.invalid/', { method: 'POST' })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let n = 0
  const parser = createParser({
    onEvent(message) {
      if (message.data === '[DONE]') return
      const data: unknown = JSON.parse(message.data)
      if (isDict(data)) n += countDeltas(data)
    },
  })
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parser.feed(decoder.decode(value, { stream: true }))
  }
  return n
}

/** (c) The thinkwire adapter: every visible event until `done`. */
async function drainAdapter(adapter: Adapter): Promise<number> {
  let n = 0
  for await (const event of adapter.stream(ask)) if (event.type !== 'done') n++
  return n
}

/** Reads a response body to its end. */
async function drain(response: Response): Promise<void> {
  const reader = response.body!.getReader()
  while (!(await reader.read()).done);
}

/** (d) The AI SDK: `streamText`'s full stream, counting reasoning and text deltas. */
async function drainAiSdk(model: LanguageModel): Promise<number> {
  const result = streamText({ model, prompt: PROMPT, maxRetries: 0 })
  let n = 0
  for await (const part of result.fullStream) {
    // A signature arrives as an empty reasoning delta that carries it as metadata: not visible.
    if ((part.type === 'reasoning-delta' || part.type === 'text-delta') && part.text !== '') n++
    else if (part.type === 'error') throw part.error
  }
  return n
}

/** One provider: its recording, how the floor counts its deltas, and its contenders. */
type Contender = {
  name: string
  record(thinking: number, text: number): Recording
  /** Visible deltas in one parsed SSE event, for the floor. */
  countDeltas(data: Dict): number
  adapter: { name: string; create(fetch: typeof globalThis.fetch): Adapter }
  /**
   * (s) The SDK's request path as the adapter drives it (the same body, a signal), up to the raw
   * response, its body unread: `name` says which call.
   */
  sdkRequest: { name: string; create(fetch: typeof globalThis.fetch): () => Promise<Response> }
  /** (b) the provider SDK's own stream, and any helper measured beside it. */
  sdks(fetch: typeof globalThis.fetch): Variant[]
  /** (d) the AI SDK's model for this provider, when it has one that reads this stream. */
  aiSdk?: { name: string; create(fetch: typeof globalThis.fetch): LanguageModel } | undefined
  /** Why there is no (d) row. */
  noAiSdk?: string | undefined
}

const isNonEmpty = (value: unknown) => typeof value === 'string' && value !== ''

const anthropicContender: Contender = {
  name: 'anthropic',
  record: anthropicRecording,
  countDeltas(data) {
    const delta = data['delta']
    return data['type'] === 'content_block_delta' &&
      isDict(delta) &&
      (delta['type'] === 'text_delta' || delta['type'] === 'thinking_delta')
      ? 1
      : 0
  },
  adapter: {
    name: '(c) thinkwire anthropic()',
    create: (fetch) => anthropic({ apiKey: KEY, model: 'claude-sonnet-5', fetch }),
  },
  sdkRequest: {
    name: '(s) SDK request alone: messages.create().asResponse()',
    create(fetch) {
      const client = new Anthropic({ apiKey: KEY, fetch, maxRetries: 0 })
      return () => {
        const { signal } = new AbortController()
        const body = {
          model: 'claude-sonnet-5',
          max_tokens: 32_000,
          messages: [{ role: 'user' as const, content: PROMPT }],
          thinking: { type: 'adaptive' as const, display: 'summarized' as const },
          stream: true as const,
        }
        return client.messages.create(body, { signal }).asResponse()
      }
    },
  },
  sdks(fetch) {
    const client = new Anthropic({ apiKey: KEY, fetch, maxRetries: 0 })
    return [
      {
        name: '(b) SDK helper: messages.stream() + finalMessage()',
        run: async () => {
          const stream = client.messages.stream({
            model: 'claude-sonnet-5',
            max_tokens: 64_000,
            messages: [{ role: 'user', content: PROMPT }],
          })
          let n = 0
          for await (const event of stream)
            if (
              event.type === 'content_block_delta' &&
              (event.delta.type === 'text_delta' || event.delta.type === 'thinking_delta')
            )
              n++
          await stream.finalMessage()
          return n
        },
      },
    ]
  },
  aiSdk: {
    name: '(d) AI SDK streamText + @ai-sdk/anthropic',
    create: (fetch) => createAnthropic({ apiKey: KEY, fetch })('claude-sonnet-5'),
  },
}

const isResponsesDelta = (type: unknown) =>
  type === 'response.output_text.delta' || type === 'response.reasoning_summary_text.delta'

const openaiContender: Contender = {
  name: 'openai responses',
  record: openaiRecording,
  countDeltas: (data) => (isResponsesDelta(data['type']) ? 1 : 0),
  adapter: {
    name: '(c) thinkwire openai()',
    create: (fetch) => openai({ apiKey: KEY, model: 'gpt-5.4', fetch }),
  },
  sdkRequest: {
    name: '(s) SDK request alone: responses.create().asResponse()',
    create(fetch) {
      const client = new OpenAI({ apiKey: KEY, fetch, maxRetries: 0 })
      return () => {
        const { signal } = new AbortController()
        const body = {
          model: 'gpt-5.4',
          input: [{ role: 'user' as const, content: PROMPT }],
          store: false,
          reasoning: { summary: 'auto' as const },
          include: ['reasoning.encrypted_content' as const],
          stream: true as const,
        }
        return client.responses.create(body, { signal }).asResponse()
      }
    },
  },
  sdks(fetch) {
    const client = new OpenAI({ apiKey: KEY, fetch, maxRetries: 0 })
    return [
      {
        // The raw event iterator is what the adapter reads (the `responses.stream()` helper's
        // accumulator refuses unknown events); the helper is measured beside it.
        name: '(b) SDK: responses.create({ stream: true })',
        run: async () => {
          const stream = await client.responses.create({
            model: 'gpt-5.4',
            input: PROMPT,
            store: false,
            stream: true,
          })
          let n = 0
          for await (const event of stream) if (isResponsesDelta(event.type)) n++
          return n
        },
      },
      {
        name: '(b2) SDK helper: responses.stream() + finalResponse()',
        run: async () => {
          const stream = client.responses.stream({ model: 'gpt-5.4', input: PROMPT, store: false })
          let n = 0
          for await (const event of stream) if (isResponsesDelta(event.type)) n++
          await stream.finalResponse()
          return n
        },
      },
    ]
  },
  aiSdk: {
    name: '(d) AI SDK streamText + @ai-sdk/openai',
    create: (fetch) => createOpenAI({ apiKey: KEY, fetch }).responses('gpt-5.4'),
  },
}

/** Visible parts of a Gemini chunk (an SDK chunk has the same shape). */
function geminiParts(data: unknown): number {
  if (!isDict(data) || !Array.isArray(data['candidates'])) return 0
  const content: unknown = isDict(data['candidates'][0]) ? data['candidates'][0]['content'] : {}
  const parts: unknown = isDict(content) ? content['parts'] : []
  if (!Array.isArray(parts)) return 0
  let n = 0
  for (const part of parts) if (isDict(part) && isNonEmpty(part['text'])) n++
  return n
}

const geminiContender: Contender = {
  name: 'gemini',
  record: geminiRecording,
  countDeltas: geminiParts,
  adapter: {
    name: '(c) thinkwire gemini()',
    create: (fetch) => gemini({ apiKey: KEY, model: 'gemini-3-flash-preview', fetch }),
  },
  sdkRequest: {
    // The adapter's own helper: the SDK's generator is made, its request sent, and closed unread.
    name: '(s) SDK request alone: models.generateContentStream()',
    create(fetch) {
      const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { fetch } })
      return () => {
        const { signal } = new AbortController()
        const request = {
          model: 'gemini-3-flash-preview',
          contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
          config: { thinkingConfig: { includeThoughts: true }, abortSignal: signal },
        }
        return sendRequest(client, request, fetch, 'gemini')
      }
    },
  },
  sdks(fetch) {
    const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { fetch } })
    return [
      {
        name: '(b) SDK: models.generateContentStream()',
        run: async () => {
          const stream = await client.models.generateContentStream({
            model: 'gemini-3-flash-preview',
            contents: PROMPT,
          })
          let n = 0
          for await (const chunk of stream) n += geminiParts(chunk)
          return n
        },
      },
    ]
  },
  aiSdk: {
    name: '(d) AI SDK streamText + @ai-sdk/google',
    create: (fetch) => createGoogleGenerativeAI({ apiKey: KEY, fetch })('gemini-3-flash-preview'),
  },
}

/** Visible deltas of a Chat Completions chunk: DeepSeek's `reasoning_content`, then `content`. */
function chatDeltas(data: unknown): number {
  if (!isDict(data) || !Array.isArray(data['choices']) || !isDict(data['choices'][0])) return 0
  const delta = data['choices'][0]['delta']
  if (!isDict(delta)) return 0
  return (isNonEmpty(delta['reasoning_content']) ? 1 : 0) + (isNonEmpty(delta['content']) ? 1 : 0)
}

const compatibleContender: Contender = {
  name: 'openai-compatible (deepseek preset, Chat Completions)',
  record: chatCompletionsRecording,
  countDeltas: chatDeltas,
  adapter: {
    name: '(c) thinkwire deepseek() (openaiCompatible)',
    create: (fetch) => deepseek({ apiKey: KEY, model: 'deepseek-reasoner', fetch }),
  },
  sdkRequest: {
    name: '(s) SDK request alone: chat.completions.create().asResponse()',
    create(fetch) {
      const client = new OpenAI({
        apiKey: KEY,
        baseURL: 'https://api.deepseek.com',
        fetch,
        maxRetries: 0,
      })
      return () => {
        const { signal } = new AbortController()
        const body = {
          model: 'deepseek-reasoner',
          messages: [{ role: 'user' as const, content: PROMPT }],
          stream: true as const,
          stream_options: { include_usage: true },
        }
        return client.chat.completions.create(body, { signal }).asResponse()
      }
    },
  },
  sdks(fetch) {
    const client = new OpenAI({
      apiKey: KEY,
      baseURL: 'https://api.deepseek.com',
      fetch,
      maxRetries: 0,
    })
    return [
      {
        name: '(b) SDK: chat.completions.create({ stream: true })',
        run: async () => {
          const stream = await client.chat.completions.create({
            model: 'deepseek-reasoner',
            messages: [{ role: 'user', content: PROMPT }],
            stream: true,
            stream_options: { include_usage: true },
          })
          let n = 0
          for await (const chunk of stream) n += chatDeltas(chunk)
          return n
        },
      },
    ]
  },
  // @ai-sdk/openai's Chat Completions model drops `reasoning_content`, so it would do less work;
  // the package that reads it (@ai-sdk/deepseek, @ai-sdk/openai-compatible) is not installed.
  noAiSdk: 'not measured: @ai-sdk/openai .chat() drops reasoning_content; no @ai-sdk/deepseek',
}

const CONTENDERS = [anthropicContender, openaiContender, geminiContender, compatibleContender]

/**
 * Measures `variants` alternately and checks that each one read every delta (`expected`, or per
 * variant).
 */
async function measureAll(
  what: string,
  variants: Variant[],
  rounds: number,
  expected: number | readonly number[],
): Promise<Measured[]> {
  const measured = await measure(variants, rounds, 2)
  const wrong = measured.filter(
    (m, i) => m.events !== (typeof expected === 'number' ? expected : expected[i]),
  )
  if (wrong.length > 0) {
    // Every variant must have read every delta, or the figures compare different work.
    const seen = wrong.map((m) => `${m.name}: ${m.events}`).join(', ')
    throw new Error(`${what}: variants counted other than ${expected} events (${seen})`)
  }
  return measured
}

const us = (m: Measured) => `${fmt(m.usPerEvent, 3)} µs`

/** An empty recording: the SDK's request path answered with a body that holds nothing. */
const EMPTY: Recording = { bytes: new Uint8Array(0), ends: [], deltas: 0 }

/** `run` `times` times over; returns the events of all. */
const repeated = (times: number, run: () => Promise<number>) => async (): Promise<number> => {
  let events = 0
  for (let i = 0; i < times; i++) events += await run()
  return events
}

/**
 * The target figures at one answer size and read size; at 1,000 tokens also (s) the SDK's request
 * alone, per answer, and (a+s) the floor reading the body that request returns, per event.
 */
type Target = {
  floor: Measured
  adapter: Measured
  sdk?: Measured | undefined
  onSdk?: Measured | undefined
  events: number
}

/** (a) and (c), and at 1,000 tokens (s) and (a+s), for one provider and size, alternating. */
async function measureTarget(c: Contender, size: Size, reads: ReadSize): Promise<Target> {
  const recording = c.record(size.deltas, size.deltas)
  const fetch = recordedFetch(recording, reads)
  const adapter = c.adapter.create(fetch)
  const events = recording.deltas * size.answers
  const variants: Variant[] = [
    { name: 'floor', run: repeated(size.answers, () => parseFloor(fetch, c.countDeltas)) },
    { name: 'adapter', run: repeated(size.answers, () => drainAdapter(adapter)) },
  ]
  const expected = [events, events]
  if (size.answers > 1) {
    const emptyRequest = c.sdkRequest.create(recordedFetch(EMPTY, reads))
    const request = c.sdkRequest.create(fetch)
    // The SDK's request stands in for the fetch: the floor reads the body it returns.
    const throughSdk: typeof globalThis.fetch = () => request()
    variants.push(
      {
        name: 'sdk',
        run: repeated(SDK_REQUESTS, async () => {
          await drain(await emptyRequest())
          return 1
        }),
      },
      { name: 'on sdk', run: repeated(size.answers, () => parseFloor(throughSdk, c.countDeltas)) },
    )
    expected.push(SDK_REQUESTS, events)
  }
  const [floor, alone, sdk, onSdk] = await measureAll(
    `${c.name}, ${size.name}, ${readLabel(reads)}`,
    variants,
    ROUNDS,
    expected,
  )
  return { floor: floor!, adapter: alone!, sdk, onSdk, events: recording.deltas }
}

const ms = (micros: number) => `${fmt(micros / 1000)} ms`

/** One provider at both answer and read sizes: the target figures, then the comparisons. */
async function benchContender(c: Contender): Promise<Row[]> {
  const section = `1. adapter vs parse floor (${clock.name}): ${c.name}`
  const both = <T>(f: (reads: ReadSize) => T): T[] => READ_SIZES.map(f)
  const rows: Row[] = [{ section, name: 'per event, at', value: both(readLabel) }]
  for (const size of SIZES) {
    const targets = new Map<ReadSize, Target>()
    for (const reads of READ_SIZES) targets.set(reads, await measureTarget(c, size, reads))
    const t = (reads: ReadSize) => targets.get(reads)!
    rows.push(
      { section, name: `${size.name} (${2 * size.deltas} deltas)`, value: [] },
      {
        section,
        name: '  (a) floor: eventsource-parser + JSON.parse',
        value: both((reads) => us(t(reads).floor)),
      },
      {
        section,
        name: `  ${c.adapter.name}`,
        value: both((reads) => us(t(reads).adapter)),
        note: targetNote(
          'c/a',
          both((reads) => ratio(t(reads).adapter, t(reads).floor)),
          FLOOR_TARGET,
        ),
      },
    )
    if (size.answers === 1) continue
    // What the SDK's request costs an answer: alone, and as the floor that reads its body pays it.
    const perAnswer = (reads: ReadSize, m: Measured) => m.usPerEvent * t(reads).events
    const added = both((reads) =>
      ms(perAnswer(reads, t(reads).adapter) - perAnswer(reads, t(reads).onSdk!)),
    )
    rows.push(
      {
        section,
        name: `  ${c.sdkRequest.name}`,
        value: both((reads) => ms(t(reads).sdk!.usPerEvent)),
        note: 'per answer, alone, its (empty) body drained',
      },
      {
        section,
        name: '  (a+s) the floor, reading the body of the SDK request',
        value: both((reads) => us(t(reads).onSdk!)),
        note:
          `c/(a+s) ${both((reads) => `${fmt(ratio(t(reads).adapter, t(reads).onSdk!))}x`).join(', ')}; ` +
          `c − (a+s) ${added.join(', ')} per answer`,
      },
    )
  }

  const short = c.record(COMPARE_DELTAS, COMPARE_DELTAS)
  const compare = new Map<ReadSize, { adapter: Measured; others: Measured[] }>()
  for (const reads of READ_SIZES) {
    const shortFetch = recordedFetch(short, reads)
    const shortAdapter = c.adapter.create(shortFetch)
    const variants: Variant[] = [
      { name: 'adapter', run: () => drainAdapter(shortAdapter) },
      ...c.sdks(shortFetch),
    ]
    if (c.aiSdk !== undefined) {
      const model = c.aiSdk.create(shortFetch)
      variants.push({ name: c.aiSdk.name, run: () => drainAiSdk(model) })
    }
    const [adapterBeside, ...others] = await measureAll(
      `${c.name} comparisons, ${readLabel(reads)}`,
      variants,
      COMPARE_ROUNDS,
      short.deltas,
    )
    compare.set(reads, { adapter: adapterBeside!, others })
  }
  const k = (reads: ReadSize) => compare.get(reads)!
  rows.push({
    section,
    name: `beside the SDKs (${2 * COMPARE_DELTAS} deltas)`,
    value: both((reads) => us(k(reads).adapter)),
    note: 'the adapter (c), run beside them',
  })
  k('16k').others.forEach(({ name }, i) => {
    // `(b) SDK: ...` → `b`: the ratio is named by the letters of the rows it compares.
    const letter = name.slice(1, name.indexOf(')'))
    const other = (reads: ReadSize) => k(reads).others[i]!
    const note =
      name === c.aiSdk?.name
        ? targetNote(
            `${letter}/c`,
            both((reads) => ratio(other(reads), k(reads).adapter)),
            AI_SDK_TARGET,
            'least',
          )
        : targetNote(
            `c/${letter}`,
            both((reads) => ratio(k(reads).adapter, other(reads))),
            SDK_TARGET,
          )
    rows.push({ section, name: `  ${name}`, value: both((reads) => us(other(reads))), note })
  })
  if (c.noAiSdk !== undefined)
    rows.push({ section, name: '  (d) AI SDK', value: both(() => '-'), note: c.noAiSdk })
  return rows
}

/**
 * Runs every floor and adapter a few times before anything is timed, so that the provider measured
 * first does not pay for compiling the shared code (the kit's reader and guard) while it is timed.
 */
async function warmUp(): Promise<void> {
  for (const c of CONTENDERS) {
    const recording = c.record(1_000, 1_000)
    for (const reads of READ_SIZES) {
      const fetch = recordedFetch(recording, reads)
      const adapter = c.adapter.create(fetch)
      const request = c.sdkRequest.create(fetch)
      for (let i = 0; i < 5; i++) {
        await parseFloor(fetch, c.countDeltas)
        await drainAdapter(adapter)
        await parseFloor(() => request(), c.countDeltas)
      }
    }
  }
}

/**
 * Row 1: the four adapters against their parse floors, their SDKs and the AI SDK; only those whose
 * name contains `only`, when given.
 */
export async function benchAdapterOverhead(only?: string): Promise<Row[]> {
  await warmUp()
  const rows: Row[] = []
  for (const contender of CONTENDERS) {
    if (only === undefined || contender.name.includes(only))
      rows.push(...(await benchContender(contender)))
  }
  return rows
}

if (isMain(import.meta.url)) printTable(await benchAdapterOverhead(process.argv[2]))
