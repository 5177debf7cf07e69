/**
 * End to end on loopback: a Node HTTP server replays an Anthropic stream at full speed; the
 * Worker runs under `wrangler dev` with `ANTHROPIC_BASE_URL` pointing at that server; `relay()`
 * in this process reads from the Worker. Beside it, the Anthropic adapter calls the same server
 * directly. Reported: the time to the first event that the relay adds, and events per second.
 * Everything listens on 127.0.0.1, starts on free ports and is stopped here, within set times.
 * Run alone: `npx tsx bench/end-to-end.ts`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { relay } from '../src/client/index.ts'
import type { Adapter } from '../src/core/adapter.ts'
import type { Conversation } from '../src/core/conversation.ts'
import OpenAI from 'openai'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { fmt, isMain, median, printTable, type Row } from './harness.ts'
import { anthropicRecording, startAnthropicUpstream } from './recordings.ts'
import { startWranglerDev } from '../test/wrangler-dev.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const KEY = 'bench-key'
/** The short answer whose first event is timed, and the long one whose rate is. */
const SHORT_MODEL = 'claude-haiku-4-5'
const LONG_MODEL = 'claude-sonnet-5'
const LONG_DELTAS = 10_000
const FIRST_EVENT_ROUNDS = 25
const RATE_ROUNDS = 3
const STARTUP_MS = 90_000
const ask: Conversation = { turns: [{ role: 'user', content: 'Think, then answer.' }] }

/** The stand-in provider: the long recording for the long model, the short one for any other. */
const startUpstream = () =>
  startAnthropicUpstream(
    { [LONG_MODEL]: anthropicRecording(LONG_DELTAS, LONG_DELTAS) },
    anthropicRecording(5, 20),
  )

/** A Worker under `wrangler dev`. */
export type Worker = { url: string; stop(): Promise<void> }

/**
 * `wrangler dev` on free ports, its Anthropic provider pointed at `upstream`, with `extra` settings
 * over the bench's own (and the `headers` its readiness check needs, such as a token); stopped by
 * `stop`.
 */
export async function startWorker(
  upstream: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Worker> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-bench-e2e-'))
  const assets = join(dir, 'assets')
  await mkdir(assets)
  await writeFile(join(assets, 'index.html'), '<!doctype html><title>bench</title>')
  // An empty env file: a developer's .dev.vars (real keys) never reaches the bench.
  const envFile = join(dir, 'empty.env')
  await writeFile(envFile, '')
  try {
    const worker = await startWranglerDev({
      args: [
        '--config',
        join(root, 'wrangler.toml'),
        '--assets',
        assets,
        '--persist-to',
        join(dir, 'state'),
        '--env-file',
        envFile,
        '--log-level',
        'error',
      ],
      vars: {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: upstream,
        ANTHROPIC_MODELS: `${SHORT_MODEL},${LONG_MODEL}`,
        // The offline mock, without its demo pause: a chat request that makes no subrequest.
        MOCK_MODELS: 'on',
        MOCK_DELAY_MS: '0',
        RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
        RATE_LIMIT_TOKENS_PER_MINUTE: '0',
        ...extra,
      },
      headers,
      startupMs: STARTUP_MS,
    })
    return {
      url: worker.base,
      stop: async () => {
        await worker.stop()
        await rm(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

const signedMs = (ms: number) => `${ms < 0 ? '-' : '+'}${fmt(Math.abs(ms))} ms`

/** Milliseconds for `GET /v1/models` and its body: the cost of the hop itself. */
export async function modelsRoundTripMs(url: string, init?: RequestInit): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${url}/v1/models`, init)
  await response.arrayBuffer()
  return performance.now() - started
}

/** Milliseconds from the call to the first event; the rest of the stream is drained. */
async function firstEventMs(adapter: Adapter): Promise<number> {
  const started = performance.now()
  let first = -1
  for await (const event of adapter.stream(ask)) {
    if (first < 0) first = performance.now() - started
    if (event.type === 'done') break
  }
  return first
}

/** Milliseconds from the call to the first chunk of `/v1/chat/completions`, through the openai SDK. */
async function firstChunkMs(url: string, model: string): Promise<number> {
  const client = new OpenAI({ apiKey: 'bench', baseURL: `${url}/v1`, maxRetries: 0 })
  const started = performance.now()
  let first = -1
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
  })
  for await (const _ of stream) if (first < 0) first = performance.now() - started
  return first
}

/** Events per second over a whole long stream. */
async function eventsPerSecond(adapter: Adapter): Promise<number> {
  const started = performance.now()
  let events = 0
  for await (const event of adapter.stream(ask)) if (event.type !== 'done') events++
  if (events !== 2 * LONG_DELTAS) throw new Error(`${adapter.provider}: ${events} events`)
  return events / ((performance.now() - started) / 1000)
}

/** Row 3: the relay under `wrangler dev` against calling the upstream directly. */
export async function benchEndToEnd(): Promise<Row[]> {
  const section = '3. end to end on loopback (Anthropic wire → wrangler dev → relay())'
  const upstream = await startUpstream()
  let worker: Worker | undefined
  try {
    worker = await startWorker(upstream.url)
    const direct = (model: string) => anthropic({ apiKey: KEY, model, baseURL: upstream.url })
    const viaRelay = (model: string) => relay({ url: worker!.url, model: `anthropic/${model}` })
    // Warm both paths (JIT, connections, the Worker's first request) before timing.
    const completions = () => firstChunkMs(worker!.url, `anthropic/${SHORT_MODEL}`)
    for (let i = 0; i < 3; i++) {
      await firstEventMs(direct(SHORT_MODEL))
      await firstEventMs(viaRelay(SHORT_MODEL))
      await completions()
    }
    const paths = {
      direct: () => firstEventMs(direct(SHORT_MODEL)),
      relay: () => firstEventMs(viaRelay(SHORT_MODEL)),
      completions,
      mock: () => firstEventMs(relay({ url: worker!.url, model: 'mock/echo' })),
    }
    const names = Object.keys(paths) as (keyof typeof paths)[]
    const first = {
      direct: [] as number[],
      relay: [] as number[],
      completions: [] as number[],
      mock: [] as number[],
    }
    const roundTrip: number[] = []
    for (let round = 0; round < FIRST_EVENT_ROUNDS; round++) {
      roundTrip.push(await modelsRoundTripMs(worker.url))
      for (let k = 0; k < names.length; k++) {
        const path = names[(k + round) % names.length]!
        first[path].push(await paths[path]())
      }
    }
    const rate = { direct: [] as number[], relay: [] as number[] }
    for (let round = 0; round < RATE_ROUNDS; round++) {
      const order =
        round % 2 === 0 ? (['direct', 'relay'] as const) : (['relay', 'direct'] as const)
      for (const path of order) {
        const adapter = path === 'direct' ? direct(LONG_MODEL) : viaRelay(LONG_MODEL)
        rate[path].push(await eventsPerSecond(adapter))
      }
    }
    const hop = median(roundTrip)
    const firstDirect = median(first.direct)
    const firstRelay = median(first.relay)
    const firstMock = median(first.mock)
    const firstCompletions = median(first.completions)
    const rateDirect = median(rate.direct)
    const rateRelay = median(rate.relay)
    const perSecond = (n: number) => `${Math.round(n).toLocaleString('en')} events/s`
    return [
      {
        section,
        name: 'first event, adapter → upstream directly',
        value: `${fmt(firstDirect)} ms`,
        note: `median of ${FIRST_EVENT_ROUNDS}`,
      },
      {
        section,
        name: 'first event, relay() → wrangler dev → upstream',
        value: `${fmt(firstRelay)} ms`,
        note: `${signedMs(firstRelay - firstDirect)} added by the relay hop`,
      },
      {
        section,
        name: 'first chunk, openai SDK → /v1/chat/completions → upstream',
        value: `${fmt(firstCompletions)} ms`,
        note: `${signedMs(firstCompletions - firstRelay)} over relay() and /v1/chat`,
      },
      {
        section,
        name: 'for comparison: GET /v1/models through wrangler dev',
        value: `${fmt(hop)} ms`,
        note: 'the round trip any request through wrangler dev pays',
      },
      {
        section,
        name: 'for comparison: first event from the mock model (no subrequest)',
        value: `${fmt(firstMock)} ms`,
        note: `${signedMs(firstMock - hop)} over that: the chat route itself`,
      },
      {
        section,
        name: `rate, adapter → upstream directly (${2 * LONG_DELTAS} events)`,
        value: perSecond(rateDirect),
        note: `median of ${RATE_ROUNDS}`,
      },
      {
        section,
        name: `rate, relay() → wrangler dev → upstream`,
        value: perSecond(rateRelay),
        note: `${fmt(rateRelay / rateDirect)}x the direct rate (three processes share 2 cores)`,
      },
    ]
  } finally {
    await worker?.stop()
    await upstream.close()
  }
}

if (isMain(import.meta.url)) printTable(await benchEndToEnd())
