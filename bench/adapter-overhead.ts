/**
 * What each adapter costs per event, beside (a) the floor, parsing the SSE with eventsource-parser
 * and `JSON.parse`, (b) the provider SDK's own stream helper, and (d) the AI SDK's `streamText`
 * with its provider package. Every variant reads the same generated recording through the same
 * injected fetch; runs alternate and the median is reported. Numbers only: nothing here asserts a
 * time. Run alone: `npx tsx bench/adapter-overhead.ts`.
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
import { openai } from '../src/providers/openai/index.ts'
import { fmt, isMain, measure, printTable, ratio, type Row, type Variant } from './harness.ts'
import {
  anthropicRecording,
  geminiRecording,
  openaiRecording,
  recordedFetch,
  type Recording,
} from './recordings.ts'

/** Thinking deltas, then as many text deltas. */
const DELTAS = 20_000
const ROUNDS = 7
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
  isDelta: (data: Dict) => boolean,
): Promise<number> {
  const response = await fetch('http://bench.invalid/', { method: 'POST' })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let n = 0
  const parser = createParser({
    onEvent(message) {
      const data: unknown = JSON.parse(message.data)
      if (isDict(data) && isDelta(data)) n++
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

/** One provider's four variants: floor, SDK helper, adapter, AI SDK. */
type Contenders = { floor: Variant; sdk: Variant; adapter: Variant; aiSdk: Variant }

function anthropicContenders(recording: Recording): Contenders {
  const fetch = recordedFetch(recording.bytes)
  const client = new Anthropic({ apiKey: KEY, fetch, maxRetries: 0 })
  const adapter = anthropic({ apiKey: KEY, model: 'claude-sonnet-5', fetch })
  const aiModel = createAnthropic({ apiKey: KEY, fetch })('claude-sonnet-5')
  return {
    floor: {
      name: '(a) floor: eventsource-parser + JSON.parse',
      run: () =>
        parseFloor(fetch, (data) => {
          const delta = data['delta']
          return (
            data['type'] === 'content_block_delta' &&
            isDict(delta) &&
            (delta['type'] === 'text_delta' || delta['type'] === 'thinking_delta')
          )
        }),
    },
    sdk: {
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
    adapter: { name: '(c) thinkwire anthropic()', run: () => drainAdapter(adapter) },
    aiSdk: { name: '(d) AI SDK streamText + @ai-sdk/anthropic', run: () => drainAiSdk(aiModel) },
  }
}

function openaiContenders(recording: Recording): Contenders {
  const fetch = recordedFetch(recording.bytes)
  const client = new OpenAI({ apiKey: KEY, fetch, maxRetries: 0 })
  const adapter = openai({ apiKey: KEY, model: 'gpt-5.4', fetch })
  const aiModel = createOpenAI({ apiKey: KEY, fetch }).responses('gpt-5.4')
  const isDelta = (type: string) =>
    type === 'response.output_text.delta' || type === 'response.reasoning_summary_text.delta'
  return {
    floor: {
      name: '(a) floor: eventsource-parser + JSON.parse',
      run: () => parseFloor(fetch, (data) => isDelta(String(data['type']))),
    },
    sdk: {
      // The raw event iterator is what the adapter reads (the `responses.stream()` helper's
      // accumulator refuses unknown events); the helper is measured beside it below.
      name: '(b) SDK: responses.create({ stream: true })',
      run: async () => {
        const stream = await client.responses.create({
          model: 'gpt-5.4',
          input: PROMPT,
          store: false,
          stream: true,
        })
        let n = 0
        for await (const event of stream) if (isDelta(event.type)) n++
        return n
      },
    },
    adapter: { name: '(c) thinkwire openai()', run: () => drainAdapter(adapter) },
    aiSdk: { name: '(d) AI SDK streamText + @ai-sdk/openai', run: () => drainAiSdk(aiModel) },
  }
}

/** The OpenAI SDK's accumulating helper, measured beside the raw iterator. */
function openaiHelper(recording: Recording): Variant {
  const client = new OpenAI({ apiKey: KEY, fetch: recordedFetch(recording.bytes), maxRetries: 0 })
  return {
    name: '(b2) SDK helper: responses.stream() + finalResponse()',
    run: async () => {
      const stream = client.responses.stream({ model: 'gpt-5.4', input: PROMPT, store: false })
      let n = 0
      for await (const event of stream)
        if (
          event.type === 'response.output_text.delta' ||
          event.type === 'response.reasoning_summary_text.delta'
        )
          n++
      await stream.finalResponse()
      return n
    },
  }
}

function geminiContenders(recording: Recording): Contenders {
  const fetch = recordedFetch(recording.bytes)
  const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { fetch } })
  const adapter = gemini({ apiKey: KEY, model: 'gemini-3-flash-preview', fetch })
  const aiModel = createGoogleGenerativeAI({ apiKey: KEY, fetch })('gemini-3-flash-preview')
  const countParts = (data: unknown): number => {
    if (!isDict(data) || !Array.isArray(data['candidates'])) return 0
    const content: unknown = isDict(data['candidates'][0]) ? data['candidates'][0]['content'] : {}
    const parts: unknown = isDict(content) ? content['parts'] : []
    if (!Array.isArray(parts)) return 0
    let n = 0
    for (const part of parts) if (isDict(part) && part['text'] !== '') n++
    return n
  }
  return {
    floor: {
      name: '(a) floor: eventsource-parser + JSON.parse',
      run: () => parseFloor(fetch, (data) => countParts(data) > 0),
    },
    sdk: {
      name: '(b) SDK: models.generateContentStream()',
      run: async () => {
        const stream = await client.models.generateContentStream({
          model: 'gemini-3-flash-preview',
          contents: PROMPT,
        })
        let n = 0
        for await (const chunk of stream) n += countParts(chunk)
        return n
      },
    },
    adapter: { name: '(c) thinkwire gemini()', run: () => drainAdapter(adapter) },
    aiSdk: { name: '(d) AI SDK streamText + @ai-sdk/google', run: () => drainAiSdk(aiModel) },
  }
}

/** Runs one provider's variants alternately and words the ratios the targets speak of. */
async function compare(section: string, c: Contenders, extra: Variant[] = []): Promise<Row[]> {
  const variants = [c.floor, c.sdk, c.adapter, c.aiSdk, ...extra]
  const measured = await measure(variants, ROUNDS, 1)
  const counts = new Set(measured.map((m) => m.events))
  if (counts.size !== 1) {
    // Every variant must have read every delta, or the figures compare different work.
    const seen = measured.map((m) => `${m.name}: ${m.events}`).join(', ')
    throw new Error(`${section}: variants counted different events (${seen})`)
  }
  const [floor, sdk, adapter, aiSdk] = measured as [
    (typeof measured)[0],
    (typeof measured)[0],
    (typeof measured)[0],
    (typeof measured)[0],
  ]
  const us = (m: { usPerEvent: number }) => `${fmt(m.usPerEvent, 3)} µs/event`
  const rows: Row[] = [
    { section, name: floor.name, value: us(floor) },
    {
      section,
      name: sdk.name,
      value: us(sdk),
      note: `${fmt(ratio(sdk, floor))}x a`,
    },
    {
      section,
      name: adapter.name,
      value: us(adapter),
      note:
        `c/b ${fmt(ratio(adapter, sdk))}x (target ≤ 1.25x), ` +
        `c/a ${fmt(ratio(adapter, floor))}x`,
    },
    {
      section,
      name: aiSdk.name,
      value: us(aiSdk),
      note: `d/c ${fmt(ratio(aiSdk, adapter))}x (target ≥ 5x)`,
    },
  ]
  for (const m of measured.slice(4)) {
    rows.push({
      section,
      name: m.name,
      value: us(m),
      note: `${fmt(ratio(m, sdk))}x b; c/b2 ${fmt(ratio(adapter, m))}x`,
    })
  }
  return rows
}

/** Row 1: the three adapters against their floors, their SDKs and the AI SDK. */
export async function benchAdapterOverhead(): Promise<Row[]> {
  const label = (name: string) => `1. adapter overhead, ${name} (${DELTAS * 2} deltas)`
  const anthropicStream = anthropicRecording(DELTAS, DELTAS)
  const openaiStream = openaiRecording(DELTAS, DELTAS)
  const geminiStream = geminiRecording(DELTAS, DELTAS)
  return [
    ...(await compare(label('anthropic'), anthropicContenders(anthropicStream))),
    ...(await compare(label('openai responses'), openaiContenders(openaiStream), [
      openaiHelper(openaiStream),
    ])),
    ...(await compare(label('gemini'), geminiContenders(geminiStream))),
  ]
}

if (isMain(import.meta.url)) printTable(await benchAdapterOverhead())
