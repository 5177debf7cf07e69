import type { Adapter } from '../../../src/core/adapter.ts'
import type { ReplayFetch, ReplaySpec } from '../../helpers/replay-fetch.ts'
import type { Upstream } from '../checks.ts'

/** An upstream's answer as the SSE events it sends, in order. */
export type Wire = {
  /** Each event exactly as sent, blank-line terminator included. */
  events: string[]
  /** Index of the first event from which the adapter yields a contract event. */
  firstDelta: number
}

const encoder = new TextEncoder()

function bytes(value: string): number {
  return encoder.encode(value).length
}

/** A cut every 13 bytes: across lines, field names and multi-byte characters alike. */
function everyThirteenBytes(body: string): number[] {
  return Array.from({ length: Math.floor(bytes(body) / 13) }, (_, i) => (i + 1) * 13)
}

/** The whole answer, delivered in small chunks cut at odd places. */
export function answering(wire: Wire): ReplaySpec {
  const body = wire.events.join('')
  return { body, splitAt: everyThirteenBytes(body) }
}

/** The answer up to its first delta, then silence until the request is aborted. */
export function stalling(wire: Wire): ReplaySpec {
  return {
    body: wire.events.join(''),
    stallAfterBytes: bytes(wire.events.slice(0, wire.firstDelta + 1).join('')),
  }
}

/** The answer up to its first delta, then a reset connection. */
export function cutting(wire: Wire): ReplaySpec {
  return {
    body: wire.events.join(''),
    cutAfterBytes: bytes(wire.events.slice(0, wire.firstDelta + 1).join('')),
  }
}

/** An adapter over a replaying fetch, seen as a contract upstream. */
export function overFetch(adapter: Adapter, replay: ReplayFetch): Upstream {
  return {
    adapter,
    upstreamAborted: () => replay.aborted(),
    lastRequest: () => replay.requests.at(-1)?.body,
    requestCount: () => replay.requests.length,
  }
}

/** A JSON object, for reading request bodies we did not type. */
export type Json = { [key: string]: unknown }

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `value` as a list of JSON objects (anything else in it becomes an empty object). */
export function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.map((item) => (isJson(item) ? item : {})) : []
}

/** A string field, or undefined. */
export function stringField(record: Json, key: string): string | undefined {
  const value = record[key]
  return typeof value === 'string' ? value : undefined
}

/** A value as it appears inside a JSON text (so a marker can be looked for in a request). */
export function inJson(value: string): string {
  return JSON.stringify(value).slice(1, -1)
}
