/**
 * SSE parsing under random chunk boundaries, on both sides of the wire: (1) random events through
 * the relay's encoder, read back by `relay()` from bytes cut at random points; (2) every provider
 * fixture read by its adapter from bytes cut at many random points at once (the kit's reader is
 * cut at each single point in test/kit/fixture-splits.test.ts). Both must give exactly the events
 * of the uncut bytes. No
 * vitest import: `npm run stress` runs more cases.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { relay } from '../../src/client/index.ts'
import type { Adapter } from '../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { gemini, geminiInteractions } from '../../src/providers/gemini/index.ts'
import { openaiCompatible, presets } from '../../src/providers/openai-compatible/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { replayFetch } from '../helpers/replay-fetch.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Découpe-moi ça.' }] }
const utf8 = new TextEncoder()

/** Cut points for a body of `length` bytes: up to `max` of them, anywhere (mid-line, mid-UTF-8). */
export function cuts(length: number, max = 60): fc.Arbitrary<number[]> {
  return fc.array(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: max })
}

/** What a stream did, comparable across runs: its events and how it failed. */
type Result = { events: Event[]; error: { kind: string; message: string } | undefined }

async function drain(stream: AsyncIterable<Event>): Promise<Result> {
  const events: Event[] = []
  try {
    for await (const event of stream) events.push(event)
  } catch (error) {
    if (!isThinkwireError(error)) throw error
    return { events, error: { kind: error.kind, message: error.message } }
  }
  return { events, error: undefined }
}

function same(a: Result, b: Result, what: string): void {
  const left = JSON.stringify(a)
  const right = JSON.stringify(b)
  if (left !== right) {
    throw new Error(
      `${what}: chunked bytes gave a different result\nuncut: ${left.slice(0, 600)}\ncut:   ${right.slice(0, 600)}`,
    )
  }
}

// ---------------------------------------------------------------------------------------------
// 1. The relay's encoder, read by relay()

/** Text that stresses SSE framing: line endings of every kind, colons, field names, any Unicode. */
const tricky = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
      fc.constantFrom(
        '\n',
        '\r',
        '\r\n',
        '\n\n',
        'data: x',
        'event: done',
        ': ping',
        'id: 7',
        '\u2028',
        '🎉',
        'é',
        '\uFEFF',
      ),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(''))

const json = fc.jsonValue({ maxDepth: 3 })

const events = fc
  .record({
    deltas: fc.array(
      fc.oneof(
        tricky.map((text): Event => ({ type: 'thinking', text })),
        tricky.map((text): Event => ({ type: 'text', text })),
        fc
          .record({
            id: fc.string({ minLength: 1, maxLength: 8 }),
            name: fc.string({ minLength: 1, maxLength: 8 }),
            input: json,
          })
          .map((call): Event => ({ type: 'tool-call', call })),
      ),
      { minLength: 1, maxLength: 12 },
    ),
    data: fc.array(json, { maxLength: 3 }),
  })
  .map(({ deltas, data }): Event[] => {
    // The done turn agrees with the deltas, as every adapter's does (the guard builds it so).
    const thinking = deltas.map((e) => (e.type === 'thinking' ? e.text : '')).join('')
    const calls = deltas.flatMap((e) => (e.type === 'tool-call' ? [e.call] : []))
    const turn: AssistantTurn = {
      role: 'assistant',
      text: deltas.map((e) => (e.type === 'text' ? e.text : '')).join(''),
      ...(thinking === '' ? {} : { thinking }),
      ...(calls.length === 0 ? {} : { toolCalls: calls }),
      usage: { inputTokens: 1, outputTokens: 2 },
      stopReason: 'stop',
      items: { provider: 'script', model: 'm', thinkingMode: 'default', data },
    }
    // What crosses the wire is JSON: compare with what JSON keeps (no -0, no undefined).
    return JSON.parse(JSON.stringify([...deltas, { type: 'done', turn }])) as Event[]
  })

function scripted(script: Event[]): Adapter {
  return {
    provider: 'script',
    model: 'm',
    async *stream() {
      yield* script
    },
  }
}

/** The relay's bytes for `script`, read by `relay()` uncut and under each of `chunkings`. */
async function relayRoundTrip(script: Event[], chunkings: number[][]): Promise<void> {
  const server = createRelay({ providers: { script: [scripted(script)] }, heartbeatMs: 0 })
  const response = await server.fetch(
    new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'script/m', conversation: ask }),
    }),
  )
  const body = await response.text()
  const read = (splitAt?: number[]) => {
    const replay = replayFetch([{ body, splitAt }])
    return drain(
      relay({ url: 'http://relay.test', model: 'script/m', fetch: replay.fetch }).stream(ask),
    )
  }
  const uncut = await read()
  same({ events: script, error: undefined }, uncut, 'relay encoder → relay()')
  const length = utf8.encode(body).length
  for (const seeds of chunkings) {
    // The body's length is known only now: fold the generated offsets into it.
    const splitAt = seeds.map((n) => 1 + (n % Math.max(1, length - 1)))
    same(uncut, await read(splitAt), `relay bytes cut at ${splitAt.join(',')}`)
  }
}

/** Property 1: random events survive the relay's encoder and `relay()`'s parser, however cut. */
export function relayChunkingProperty(chunkingsPerCase: number) {
  const offsets = fc.array(fc.nat(), { maxLength: 60 })
  return fc.asyncProperty(
    events,
    fc.array(offsets, { minLength: chunkingsPerCase, maxLength: chunkingsPerCase }),
    relayRoundTrip,
  )
}

// ---------------------------------------------------------------------------------------------
// 2. Provider fixtures, read by their adapters

const fixtures = join(import.meta.dirname, '../fixtures')

type Fixture = { name: string; body: string; adapter(fetch: typeof globalThis.fetch): Adapter }

/** A Monday at noon UTC, outside DeepSeek's peak hours. */
const offPeak = (): number => Date.parse('2026-12-07T12:00:00Z')

/** Adapter settings that give a compatible fixture its meaning (e.g. where reasoning comes from). */
const COMPATIBLE: Record<string, Partial<Parameters<typeof openaiCompatible>[0]>> = {
  'think-tags.sse': { ...presets.groq, model: 'qwen/qwen3-32b' },
  'implicit-think-open.sse': { reasoning: { thinkTags: 'starts-inside' } },
  // DeepSeek prices a turn by the hour it is sent: a clock that never moves keeps every
  // chunking's turn alike.
  'deepseek-answer.sse': { ...presets.deepseek, model: 'deepseek-v4-flash', now: offPeak },
  'deepseek-final.sse': { ...presets.deepseek, model: 'deepseek-v4-flash', now: offPeak },
  'deepseek-tool-call.sse': { ...presets.deepseek, model: 'deepseek-v4-flash', now: offPeak },
  'openrouter-reasoning-details.sse': {
    ...presets.openrouter,
    model: 'anthropic/claude-sonnet-4.5',
  },
  'mistral-thinking.sse': { ...presets.mistral, model: 'magistral-medium-latest' },
}

const FACTORIES: Record<string, (name: string) => Fixture['adapter']> = {
  // One recorded message per fixture: a paused one ends the stream rather than being continued.
  anthropic: () => (fetch) =>
    anthropic({
      apiKey: 'sk-ant-chunks-000000000',
      model: 'claude-sonnet-5',
      fetch,
      pauseContinuations: 0,
    }),
  openai: () => (fetch) => openai({ apiKey: 'sk-chunks-000000000', model: 'gpt-5.4', fetch }),
  gemini: () => (fetch) =>
    gemini({
      apiKey: 'AIzaChunks000000000000000000000',
      model: 'gemini-3-flash-preview',
      baseURL: 'https://gemini.test',
      fetch,
    }),
  'gemini-interactions': () => (fetch) =>
    geminiInteractions({
      apiKey: 'AIzaChunks000000000000000000000',
      model: 'gemini-3-flash-preview',
      baseURL: 'https://interactions.test',
      fetch,
    }),
  'openai-compatible': (name) => (fetch) =>
    openaiCompatible({
      provider: 'compat',
      baseURL: 'https://llm.test/v1',
      model: 'any-model',
      apiKey: 'sk-chunks-000000000',
      ...COMPATIBLE[name],
      fetch,
    }),
}

/** Every `.sse` fixture of every provider, with the adapter that reads it. */
export function providerFixtures(): Fixture[] {
  return Object.entries(FACTORIES).flatMap(([provider, factory]) =>
    readdirSync(join(fixtures, provider))
      .filter((file) => file.endsWith('.sse'))
      .toSorted()
      .map((file) => ({
        name: `${provider}/${file}`,
        body: readFileSync(join(fixtures, provider, file), 'utf8'),
        adapter: factory(file),
      })),
  )
}

/**
 * Property 2 for one fixture: its adapter gives the uncut result under any multi-point chunking.
 * `plugins` go to fast-check (a time limit, say).
 */
export async function fixtureChunkingProperty(
  fixture: Fixture,
  numRuns: number,
  seed: number,
  plugins: fc.Plugin<unknown>[] = [],
): Promise<void> {
  const read = (splitAt?: number[]) => {
    const replay = replayFetch([{ body: fixture.body, splitAt }])
    return drain(fixture.adapter(replay.fetch).stream(ask))
  }
  const uncut = await read()
  if (uncut.events.length === 0 && uncut.error === undefined)
    throw new Error(`${fixture.name} yields nothing`)
  const length = utf8.encode(fixture.body).length
  await fc.assert(
    fc.asyncProperty(cuts(length, 80), async (splitAt) =>
      same(uncut, await read(splitAt), `${fixture.name} cut at ${splitAt.join(',')}`),
    ),
    { numRuns, seed, endOnFailure: true, plugins },
  )
}
