/**
 * The load run: many concurrent streams through the Worker in workerd (test/load/fixtures/load-worker.ts),
 * a tenth of the clients leaving mid-way, on the mock model or on the OpenAI-compatible adapter
 * calling a loopback provider (test/load/upstream-server.ts). It checks that every stream that
 * stays completes byte-identical to what the relay writes for that request in-process, counts the
 * upstream calls still running once the clients are done, and reads the workerd process's memory.
 * Loopback only; every wait is bounded. No vitest import: `npm run stress` runs the full size.
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { Adapter } from '../../src/core/adapter.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { openaiCompatible } from '../../src/providers/openai-compatible/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { startTestWorker, type TestWorker } from '../worker/start-worker.ts'
import { LOAD_MODEL } from './load-model.ts'
import { questionOf, startUpstream, upstreamChunks, type Upstream } from './upstream-server.ts'

/** The mock model's counters in the load Worker. */
export type MockStats = { started: number; active: number; finished: number; aborted: number }

/** A running load Worker, its workerd process, and the loopback provider it calls. */
export type LoadWorker = { worker: TestWorker; pid: number | undefined; upstream: Upstream }

/** Which model a run streams from: the mock, or the real adapter on the loopback provider. */
export type LoadModel = 'mock' | 'upstream'

/** Figures of one run. */
export type LoadFigures = {
  model: LoadModel
  streams: number
  left: number
  completed: number
  /** Completed streams whose bytes differ from the in-process relay's for the same request. */
  mismatched: string[]
  /** Streams that failed or hung (each with why). */
  failed: string[]
  wallMs: number
  /**
   * Upstream calls once every client is done. For the loopback provider, `running` counts its
   * open connections. For the mock, it counts calls whose end the Worker never saw: workerd tears
   * down the request of a client that left, often without firing its signal, and then no code of
   * that request runs again (`aborted` counts the signals that did fire).
   */
  calls: { started: number; running: number; aborted: number | undefined }
}

const ENTRY = 'test/load/fixtures/load-worker.ts'
const STREAM_TIMEOUT_MS = 60_000
const LEAVE_AFTER_EVENTS = 5
const MODEL_ID: Record<LoadModel, string> = { mock: 'load/steady', upstream: 'upstream/steady' }

/** Starts the loopback provider and the load Worker (rate limits off), and finds workerd. */
export async function startLoadWorker(): Promise<LoadWorker> {
  const upstream = await startUpstream()
  const before = workerdChildren()
  const worker = await startTestWorker(
    {
      MOCK_MODELS: 'off',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
      RATE_LIMIT_TOKENS_PER_MINUTE: '0',
      HEARTBEAT_MS: '60000',
      UPSTREAM_URL: upstream.baseURL,
    },
    ENTRY,
  )
  const started = workerdChildren().filter((pid) => !before.includes(pid))
  return { worker, pid: started.length === 1 ? started[0] : undefined, upstream }
}

/** Stops the Worker and the loopback provider. */
export async function stopLoadWorker(load: LoadWorker | undefined): Promise<void> {
  await load?.worker.dispose()
  await load?.upstream.close()
}

/** Pids of the workerd processes this process started. */
export function workerdChildren(): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'))
      if (match?.[1] === 'workerd' && Number(match[2]) === process.pid) pids.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return pids
}

/** Resident memory of a process in bytes, from /proc (undefined where there is no /proc). */
export function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match === null ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

async function mockStats(worker: TestWorker): Promise<MockStats> {
  return (await (await worker.fetch('/v1/__load/stats')).json()) as MockStats
}

function bodyOf(model: LoadModel, label: string, i: number): string {
  const question = `Load ${label} #${i}: ${'é🙂x'.repeat(i % 17)}`
  return JSON.stringify({
    model: MODEL_ID[model],
    conversation: { turns: [{ role: 'user', content: question }] },
  })
}

/** The same model as the Worker's, in-process, without pauses (and the provider without HTTP). */
function referenceAdapter(model: LoadModel): Adapter {
  if (model === 'mock')
    return mock({ provider: 'load', model: 'steady', ...LOAD_MODEL, delayMs: 0 })
  const fetch = async (_: RequestInfo | URL, init?: RequestInit) => {
    const question = questionOf(JSON.parse(String(init?.body)))
    return new Response(upstreamChunks(question).join(''), {
      headers: { 'content-type': 'text/event-stream' },
    })
  }
  return openaiCompatible({
    provider: 'upstream',
    baseURL: 'http://upstream.test/v1',
    model: 'steady',
    fetch,
  })
}

/** What the relay writes for `body`, in-process, on the same model. */
async function expectedBytes(model: LoadModel, body: string): Promise<Uint8Array> {
  const adapter = referenceAdapter(model)
  const relay = createRelay({ providers: { [adapter.provider]: [adapter] }, heartbeatMs: 0 })
  const response = await relay.fetch(
    new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  )
  return new Uint8Array(await response.arrayBuffer())
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

/** One client: reads the whole stream, or leaves after a few events. */
async function client(worker: TestWorker, body: string, leave: boolean): Promise<Uint8Array> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new Error('stream timed out')), STREAM_TIMEOUT_MS)
  try {
    const response = await worker.fetch('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: controller.signal,
    })
    if (response.status !== 200 || response.body === null) {
      throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`)
    }
    const reader = response.body.getReader()
    const chunks: Uint8Array[] = []
    let events = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      for (const byte of value) if (byte === 0x0a) events++
      // Each event is four lines (id, event, data, blank): leave once a few have arrived.
      if (leave && events >= LEAVE_AFTER_EVENTS * 4) {
        controller.abort()
        break
      }
    }
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    let offset = 0
    for (const chunk of chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    return out
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Runs `streams` concurrent clients on `model`, every `leaveEvery`-th of them leaving after a few
 * events, then waits (at most 10 s) for the upstream calls to end.
 */
export async function runLoad(
  load: LoadWorker,
  options: { model: LoadModel; streams: number; leaveEvery?: number; label?: string },
): Promise<LoadFigures> {
  const { worker, upstream } = load
  const { model, streams, leaveEvery = 10, label = 'run' } = options
  const mockBefore = await mockStats(worker)
  const connectionsBefore = upstream.total()
  const bodies = Array.from({ length: streams }, (_, i) => bodyOf(model, label, i))
  const expected = await Promise.all(bodies.map((body) => expectedBytes(model, body)))
  const leaving = (i: number) => i % leaveEvery === leaveEvery - 1
  const mismatched: string[] = []
  const failed: string[] = []
  let completed = 0
  const started = Date.now()
  await Promise.all(
    bodies.map(async (body, i) => {
      try {
        const bytes = await client(worker, body, leaving(i))
        if (leaving(i)) return
        completed++
        if (!equalBytes(bytes, expected[i]!)) mismatched.push(`stream ${i}`)
      } catch (error) {
        failed.push(`stream ${i}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }),
  )
  const wallMs = Date.now() - started

  let calls: LoadFigures['calls']
  const until = Date.now() + 10_000
  if (model === 'upstream') {
    while (upstream.open() > 0 && Date.now() < until) await pause(50)
    calls = {
      started: upstream.total() - connectionsBefore,
      running: upstream.open(),
      aborted: undefined,
    }
  } else {
    let after = await mockStats(worker)
    while (
      after.finished + after.active - mockBefore.finished - mockBefore.active < streams &&
      Date.now() < until
    ) {
      await pause(50)
      after = await mockStats(worker)
    }
    // Calls that end on their own (their client stayed, or left too late) finish within a second.
    while (
      after.active > mockBefore.active &&
      Date.now() < Math.min(until, started + wallMs + 1_000)
    ) {
      await pause(50)
      after = await mockStats(worker)
    }
    calls = {
      started: after.started - mockBefore.started,
      running: after.active - mockBefore.active,
      aborted: after.aborted - mockBefore.aborted,
    }
  }
  return {
    model,
    streams,
    left: bodies.filter((_, i) => leaving(i)).length,
    completed,
    mismatched,
    failed,
    wallMs,
    calls,
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
