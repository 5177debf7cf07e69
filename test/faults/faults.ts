/**
 * The faults of the matrix, each built for any provider from its kit: what the upstream does, and
 * whether it strikes before the first event (retry and fallback may act) or after it (they must
 * not).
 */
import type { ReplaySpec } from '../helpers/replay-fetch.ts'
import { afterFirstEvent, byteLength, firstEventPrefix, okBody, type FaultKit } from './kits.ts'

export type FaultName =
  | 'http-400'
  | 'http-401'
  | 'http-404'
  | 'http-408'
  | 'http-413'
  | 'http-429'
  | 'http-429-retry-after'
  | 'http-500'
  | 'http-503'
  | 'http-529'
  | 'refused'
  | 'reset-before-first-byte'
  | 'empty-body'
  | 'malformed-sse-before-first-event'
  | 'error-event-before-first-event'
  | 'ended-after-first-event'
  | 'cut-after-first-event'
  | 'malformed-sse-line'
  | 'error-event'
  | 'stall-before-first-event'
  | 'stall-after-first-event'
  | 'abort-before-first-event'
  | 'abort-after-first-event'

export type Fault = {
  name: FaultName
  /** Whether the fault strikes before the first event or after it. */
  phase: 'before' | 'after'
  /** What the upstream answers. */
  spec(kit: FaultKit): ReplaySpec
  /** The HTTP status the upstream answers with, for HTTP faults. */
  http?: number | undefined
  /** The client leaves: as soon as the upstream has the request, or after the first event. */
  abort?: 'on-request' | 'after-first-event' | undefined
  /** Only the idle timeout can end it. */
  stalls?: boolean | undefined
}

const http = (status: number, retryAfterSeconds?: number): Omit<Fault, 'name'> => ({
  phase: 'before',
  http: status,
  spec: (kit) => kit.httpError({ status, retryAfterSeconds }),
})

const firstEventBytes = (kit: FaultKit) => byteLength(firstEventPrefix(kit))

/** Every fault, in matrix order. */
export const FAULTS: readonly Fault[] = [
  { name: 'http-400', ...http(400) },
  { name: 'http-401', ...http(401) },
  { name: 'http-404', ...http(404) },
  { name: 'http-408', ...http(408) },
  { name: 'http-413', ...http(413) },
  { name: 'http-429', ...http(429) },
  { name: 'http-429-retry-after', ...http(429, 1) },
  { name: 'http-500', ...http(500) },
  { name: 'http-503', ...http(503) },
  { name: 'http-529', ...http(529) },
  { name: 'refused', phase: 'before', spec: () => ({ body: '', refuse: true }) },
  {
    name: 'reset-before-first-byte',
    phase: 'before',
    spec: (kit) => ({ body: okBody(kit), cutAfterBytes: 0 }),
  },
  // A 200 whose body ends at once, cleanly: as if a proxy closed the connection.
  { name: 'empty-body', phase: 'before', spec: () => ({ body: '' }) },
  {
    name: 'malformed-sse-before-first-event',
    phase: 'before',
    spec: (kit) => ({ body: kit.garbage + okBody(kit) }),
  },
  {
    name: 'error-event-before-first-event',
    phase: 'before',
    spec: (kit) => ({ body: kit.errorEvent }),
  },
  // The body ends cleanly after the first event, without the provider's terminal event.
  {
    name: 'ended-after-first-event',
    phase: 'after',
    spec: (kit) => ({ body: firstEventPrefix(kit) }),
  },
  {
    name: 'cut-after-first-event',
    phase: 'after',
    spec: (kit) => ({ body: okBody(kit), cutAfterBytes: firstEventBytes(kit) }),
  },
  {
    name: 'malformed-sse-line',
    phase: 'after',
    spec: (kit) => ({ body: firstEventPrefix(kit) + kit.garbage + afterFirstEvent(kit) }),
  },
  {
    name: 'error-event',
    phase: 'after',
    spec: (kit) => ({ body: firstEventPrefix(kit) + kit.errorEvent }),
  },
  {
    name: 'stall-before-first-event',
    phase: 'before',
    stalls: true,
    spec: (kit) => ({ body: okBody(kit), stallAfterBytes: 0 }),
  },
  {
    name: 'stall-after-first-event',
    phase: 'after',
    stalls: true,
    spec: (kit) => ({ body: okBody(kit), stallAfterBytes: firstEventBytes(kit) }),
  },
  {
    name: 'abort-before-first-event',
    phase: 'before',
    abort: 'on-request',
    spec: (kit) => ({ body: okBody(kit), stallAfterBytes: 0 }),
  },
  {
    name: 'abort-after-first-event',
    phase: 'after',
    abort: 'after-first-event',
    spec: (kit) => ({ body: okBody(kit), stallAfterBytes: firstEventBytes(kit) }),
  },
]

/** A fault by name. */
export function fault(name: FaultName): Fault {
  const found = FAULTS.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no fault ${name}`)
  return found
}
