/**
 * Fuzzes the relay at the HTTP level: method, path, origin, authorization, content-type,
 * content-length and body together, each request with the status a small independent model of
 * the relay's rules predicts. Every answer must be that status; refusals are 4xx JSON naming
 * their kind; no answer is a 500; the model is called exactly for the requests that should reach
 * it, with data the contract allows; no token, seal key or API key appears in any answer, header
 * or log line. No vitest import: `npm run stress` runs it too, with more cases.
 */
import fc from 'fast-check'
import { createRelay } from '../../src/relay/index.ts'
import type { RelayLogEntry } from '../../src/relay/options.ts'
import type { AssistantTurn, OpaqueItems } from '../../src/core/conversation.ts'
import { createSealer } from '../../src/relay/seal.ts'
import { parseSse } from '../relay/sse-reader.ts'
import { raw, turnsOf, type Json } from './relay-bodies.ts'
import { anyRequest, type Case } from './relay-cases.ts'
import {
  API_KEYS,
  BODY_LIMIT,
  MAX_TURNS,
  ORIGIN,
  SEAL_KEY,
  SECRETS,
  TOKENS,
} from './relay-config.ts'
import { predict, urlOf } from './relay-oracle.ts'
import { validatingAdapter } from './validating-adapter.ts'

const utf8 = new TextEncoder()

/** A relay set up for fuzzing, with its validating model and its log. */
export function createFuzzTarget() {
  const sealer = createSealer([SEAL_KEY])
  const adapter = validatingAdapter(sealer, API_KEYS)
  const logs: RelayLogEntry[] = []
  const relay = createRelay({
    providers: { fuzz: [adapter] },
    auth: TOKENS,
    cors: { origins: [ORIGIN] },
    sealKeys: [SEAL_KEY],
    limits: { bodyBytes: BODY_LIMIT, turns: MAX_TURNS },
    heartbeatMs: 5_000,
    idleTimeoutMs: 5_000,
    log: (entry) => logs.push(entry),
  })
  return { relay, adapter, sealer, logs }
}

type Target = ReturnType<typeof createFuzzTarget>

/** What a run saw, for the report. */
export type FuzzStats = { cases: number; statuses: Record<number, number>; modelCalls: number }

async function bodyBytes(c: Case, target: Target): Promise<Uint8Array<ArrayBuffer>> {
  const { value, seal } = c.body
  if (value instanceof Uint8Array) return new Uint8Array(value)
  if (seal !== 'none') {
    for (const turn of turnsOf(value as Record<string, Json>)) {
      const items = turn['items'] as OpaqueItems | undefined
      if (items === undefined) continue
      items.seal = await target.sealer.seal(turn as unknown as AssistantTurn)
      if (seal === 'tamper') items.data = [...items.data, { tampered: true }]
    }
  }
  return utf8.encode(JSON.stringify(value))
}

function fail(c: Case, message: string): never {
  const shown = {
    ...c,
    body: { ...c.body, value: c.body.value instanceof Uint8Array ? '[bytes]' : c.body.value },
  }
  throw new Error(`${message}\nrequest: ${JSON.stringify(shown).slice(0, 1500)}`)
}

async function check(c: Case, target: Target, stats: FuzzStats): Promise<void> {
  const bytes = await bodyBytes(c, target)
  const headers = new Headers()
  if (c.origin !== undefined) headers.set('origin', c.origin)
  if (c.authorization !== undefined) headers.set('authorization', c.authorization)
  if (c.contentType !== undefined) headers.set('content-type', c.contentType)
  const length = {
    none: undefined,
    exact: bytes.length,
    less: Math.max(0, bytes.length - 3),
    'over-limit': BODY_LIMIT + 1,
    junk: c.junkLength,
  }[c.contentLength]
  if (length !== undefined) headers.set('content-length', String(length))
  for (const [key, value] of c.extra) headers.append(key, value)
  const method = c.method
  const withBody = !['GET', 'HEAD'].includes(method.toUpperCase())
  const request = new Request(urlOf(c.path), { method, headers, body: withBody ? bytes : null })
  const predicted = predict(withBody ? c : { ...c, body: raw('', 400) })

  const callsBefore = target.adapter.calls
  const logsBefore = target.logs.length
  const response = await target.relay.fetch(request)
  const text = await response.text()
  const status = response.status
  stats.cases++
  stats.statuses[status] = (stats.statuses[status] ?? 0) + 1

  if (status === 500) fail(c, `answered 500: ${text}`)
  if (status !== predicted.status && status !== predicted.alternative) {
    fail(c, `answered ${status}, expected ${predicted.status}: ${text.slice(0, 300)}`)
  }
  const calls = target.adapter.calls - callsBefore
  stats.modelCalls += calls
  if (calls !== (status === predicted.status && predicted.reaches ? 1 : 0)) {
    fail(c, `the model was called ${calls} times, expected ${predicted.reaches ? 1 : 0}`)
  }
  if (target.adapter.problems.length > 0) {
    fail(c, `the model received invalid data: ${target.adapter.problems.join('; ')}`)
  }
  const type = response.headers.get('content-type')
  if (status >= 400) {
    if (type !== 'application/json') fail(c, `a ${status} answer is ${type}, not JSON`)
    const error = (JSON.parse(text) as { error?: { kind?: unknown; message?: unknown } }).error
    if (typeof error?.kind !== 'string' || typeof error.message !== 'string') {
      fail(c, `a ${status} answer lacks { error: { kind, message } }: ${text}`)
    }
  } else if (status === 200 && type === 'text/event-stream') {
    const events = parseSse(text).events.map((e) => e.event)
    const last = events.at(-1)
    const expected = c.body.outcome === 'fail-after' ? 'error' : 'done'
    if (last !== expected || events.filter((e) => e === 'done' || e === 'error').length !== 1) {
      fail(c, `the stream ended with ${events.join(',')}, expected one ${expected} last`)
    }
  }
  const seen = [
    text,
    ...[...response.headers].map(([k, v]) => `${k}: ${v}`),
    JSON.stringify(target.logs.slice(logsBefore)),
  ].join('\n')
  for (const secret of SECRETS) {
    if (seen.includes(secret)) fail(c, `a secret leaked into the answer, its headers or the log`)
  }
}

/**
 * Runs the relay HTTP fuzz for `numRuns` cases with `seed`; throws on the first failing case.
 * `plugins` go to fast-check (a time limit, say: the stats then count the cases that ran).
 */
export async function fuzzRelayHttp(
  numRuns: number,
  seed: number,
  plugins: fc.Plugin<unknown>[] = [],
): Promise<FuzzStats> {
  const target = createFuzzTarget()
  const stats: FuzzStats = { cases: 0, statuses: {}, modelCalls: 0 }
  await fc.assert(
    fc.asyncProperty(anyRequest, (c) => check(c, target, stats)),
    { numRuns, seed, endOnFailure: true, plugins },
  )
  return stats
}

/**
 * What the first `numRuns` cases of `seed` (those {@link fuzzRelayHttp} runs first) are predicted
 * to earn: how many get each status, and how many reach the model. It reads the generator only,
 * so it holds however many cases a time-limited run got to.
 */
export function predictedCoverage(numRuns: number, seed: number): Omit<FuzzStats, 'cases'> {
  const stats: Omit<FuzzStats, 'cases'> = { statuses: {}, modelCalls: 0 }
  for (const c of fc.sample(anyRequest, { numRuns, seed })) {
    const withBody = !['GET', 'HEAD'].includes(c.method.toUpperCase())
    const predicted = predict(withBody ? c : { ...c, body: raw('', 400) })
    stats.statuses[predicted.status] = (stats.statuses[predicted.status] ?? 0) + 1
    if (predicted.reaches) stats.modelCalls++
  }
  return stats
}
