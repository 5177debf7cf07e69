/**
 * What `/v1/chat/completions` costs beside `/v1/chat`, in-process, in CPU time (the harness's
 * `clock`), on the same upstream bytes: one request for a 1,000-token answer (500 thinking and 500
 * text deltas, one event per read, and token-paced, where the relay writes each event as a chunk
 * of its own), its body drained, the two routes timed back to back in each round. Target: the
 * OpenAI dialect at most 1.2x the relay's own. Numbers only. Run alone:
 * `node --expose-gc --import tsx bench/completions-cpu.ts`.
 */
import type { Adapter } from '../src/core/adapter.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { deepseek } from '../src/providers/openai-compatible/index.ts'
import { createRelay, type Relay } from '../src/relay/index.ts'
import { clock, fmt, isMain, measure, printTable, ratio, targetNote, type Row } from './harness.ts'
import {
  anthropicRecording,
  chatCompletionsRecording,
  readLabel,
  recordedFetch,
  type ReadSize,
  type Recording,
} from './recordings.ts'

const KEY = 'bench-key'
const ROUNDS = 11
const TARGET = 1.2
const READS: readonly ReadSize[] = ['event', 'paced']
/** Requests timed together for one figure, so that their GC is shared out among them. */
const REQUESTS = 10
const QUESTION = 'Think, then answer at length.'

type Path = {
  name: string
  model: string
  record(thinking: number, text: number): Recording
  adapter(fetch: typeof globalThis.fetch): Adapter
}

const PATHS: readonly Path[] = [
  {
    name: 'anthropic',
    model: 'anthropic/claude-sonnet-5',
    record: anthropicRecording,
    adapter: (fetch) => anthropic({ apiKey: KEY, model: 'claude-sonnet-5', fetch }),
  },
  {
    name: 'openai-compatible (deepseek)',
    model: 'deepseek/deepseek-reasoner',
    record: chatCompletionsRecording,
    adapter: (fetch) => deepseek({ apiKey: KEY, model: 'deepseek-reasoner', fetch }),
  },
]

function request(path: '/v1/chat' | '/v1/chat/completions', model: string): Request {
  const body =
    path === '/v1/chat'
      ? { model, conversation: { turns: [{ role: 'user', content: QUESTION }] } }
      : { model, messages: [{ role: 'user', content: QUESTION }], stream: true }
  return new Request(`http://relay.local${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function drained(relay: Relay, req: Request): Promise<number> {
  const response = await relay.fetch(req)
  if (response.status !== 200 || response.body === null) {
    throw new Error(`relay answered ${response.status}: ${await response.text()}`)
  }
  const reader = response.body.getReader()
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return bytes
    bytes += value.byteLength
  }
}

/** Checks outside any timing that the answer is whole: `[DONE]` or `done` at its end. */
async function verify(relay: Relay, req: Request, end: string): Promise<void> {
  const text = await (await relay.fetch(req)).text()
  if (!text.trimEnd().endsWith(end) && !text.includes(`event: ${end}`)) {
    throw new Error(`${req.url}: the answer did not end with ${end}`)
  }
}

export async function benchCompletionsCpu(): Promise<Row[]> {
  const rows: Row[] = []
  for (const path of PATHS) {
    for (const reads of READS) rows.push(await benchPath(path, reads))
  }
  return rows
}

/** One provider's answer at one read size, through both routes. */
async function benchPath(path: Path, reads: ReadSize): Promise<Row> {
  const recording = path.record(500, 500)
  const fetch = recordedFetch(recording, reads)
  const provider = path.model.split('/')[0]!
  const relay = createRelay({ providers: { [provider]: [path.adapter(fetch)] } })
  await verify(relay, request('/v1/chat', path.model), 'done')
  await verify(relay, request('/v1/chat/completions', path.model), 'data: [DONE]')
  const run = (route: '/v1/chat' | '/v1/chat/completions') => async () => {
    for (let i = 0; i < REQUESTS; i++) await drained(relay, request(route, path.model))
    return REQUESTS
  }
  const [chat, completions] = await measure(
    [
      { name: '/v1/chat', run: run('/v1/chat') },
      { name: '/v1/chat/completions', run: run('/v1/chat/completions') },
    ],
    ROUNDS,
    2,
  )
  const ms = (us: number) => `${fmt(us / 1000)} ms`
  const over = ratio(completions!, chat!)
  return {
    section: `completions: ${clock.name} of one 1,000-token answer`,
    name: `${path.name}, ${readLabel(reads)}`,
    value: [ms(chat!.usPerEvent), ms(completions!.usPerEvent)],
    note: `/v1/chat, /v1/chat/completions; ${targetNote('completions over chat', [over], TARGET)}`,
  }
}

if (isMain(import.meta.url)) printTable(await benchCompletionsCpu())
