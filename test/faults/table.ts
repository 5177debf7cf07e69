/**
 * The expected outcome of every fault for every provider: the error kind and whether it is
 * retryable, and what the relay answers. Read by the in-process matrix and the workerd subset.
 */
import { type ErrorKind } from '../../src/core/errors.ts'
import { statusFromKind } from '../../src/relay/status.ts'
import type { FaultName } from './faults.ts'
import type { FaultKit } from './kits.ts'

export type Expect = { kind: ErrorKind; retryable: boolean }
/** A retryable failure of this kind. */
export const R = (kind: ErrorKind): Expect => ({ kind, retryable: true })
/** A final (not retryable) failure of this kind. */
export const F = (kind: ErrorKind): Expect => ({ kind, retryable: false })
/**
 * What the relay answers: a JSON error with this status (or the status of the error's kind, when
 * providers differ), an SSE `error` event, or nothing (the client left).
 */
export type RelayAnswer = `json ${number}` | 'json of its kind' | 'sse error' | 'client left'

export type Row = [
  FaultName,
  anthropic: Expect,
  openai: Expect,
  gemini: Expect,
  interactions: Expect,
  compatible: Expect,
  relay: RelayAnswer,
]

// Behind the relay, each provider fails with the same kind and retryable as it does directly.
// prettier-ignore
export const TABLE: Row[] = [
  // fault                      anthropic               openai                  gemini                  gemini-interactions     openai-compatible       relay answers
  ['http-400',                  F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   'json 400'],
  ['http-401',                  F('auth'),              F('auth'),              F('auth'),              F('auth'),              F('auth'),              'json 502'],
  ['http-404',                  F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   'json 400'],
  ['http-408',                  R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           'json 504'],
  ['http-413',                  F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   F('invalid-request'),   'json 400'],
  ['http-429',                  R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        'json 429'],
  ['http-429-retry-after',      R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        R('rate-limit'),        'json 429'],
  ['http-500',                  R('server'),            R('server'),            R('server'),            R('server'),            R('server'),            'json 502'],
  ['http-503',                  R('overloaded'),        R('overloaded'),        R('overloaded'),        R('overloaded'),        R('overloaded'),        'json 503'],
  ['http-529',                  R('overloaded'),        R('overloaded'),        R('overloaded'),        R('overloaded'),        R('overloaded'),        'json 503'],
  ['refused',                   R('network'),           R('network'),           R('network'),           R('network'),           R('network'),           'json 502'],
  ['reset-before-first-byte',   R('network'),           R('network'),           R('network'),           R('network'),           R('network'),           'json 502'],
  ['empty-body',                R('network'),           R('network'),           R('network'),           R('network'),           R('network'),           'json 502'],
  ['malformed-sse-before-first-event', R('server'),     R('server'),            R('server'),            R('server'),            R('server'),            'json 502'],
  ['error-event-before-first-event', R('overloaded'),   R('server'),            R('overloaded'),        R('overloaded'),        R('server'),            'json of its kind'],
  ['ended-after-first-event',   R('network'),           R('network'),           R('network'),           R('network'),           R('network'),           'sse error'],
  ['cut-after-first-event',     R('network'),           R('network'),           R('network'),           R('network'),           R('network'),           'sse error'],
  ['malformed-sse-line',        R('server'),            R('server'),            R('server'),            R('server'),            R('server'),            'sse error'],
  ['error-event',               R('overloaded'),        R('server'),            R('overloaded'),        R('overloaded'),        R('server'),            'sse error'],
  ['stall-before-first-event',  R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           'json 504'],
  ['stall-after-first-event',   R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           R('timeout'),           'sse error'],
  ['abort-before-first-event',  F('aborted'),           F('aborted'),           F('aborted'),           F('aborted'),           F('aborted'),           'client left'],
  ['abort-after-first-event',   F('aborted'),           F('aborted'),           F('aborted'),           F('aborted'),           F('aborted'),           'client left'],
]

const COLUMN: Readonly<Record<FaultKit['name'], 1 | 2 | 3 | 4 | 5>> = {
  anthropic: 1,
  openai: 2,
  gemini: 3,
  'gemini-interactions': 4,
  'openai-compatible': 5,
}

/** The expected outcome of `fault` for `kit`, and what the relay answers. */
export function expected(kit: FaultKit, fault: FaultName): { expect: Expect; relay: RelayAnswer } {
  const row = TABLE.find(([name]) => name === fault)
  if (row === undefined) throw new Error(`no row for ${fault}`)
  return { expect: row[COLUMN[kit.name]], relay: row[6] }
}

/** The status of the relay's JSON error for this answer, or undefined when it streams or no one is left. */
export function jsonStatus(answer: RelayAnswer, outcome: Expect): number | undefined {
  if (answer === 'json of its kind') return statusFromKind(outcome.kind)
  return answer.startsWith('json ') ? Number(answer.slice(5)) : undefined
}
