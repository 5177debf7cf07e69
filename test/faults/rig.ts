/**
 * What the fault matrix runs: each target (a provider adapter directly, or `relay()` against an
 * in-process `createRelay` serving that adapter) on a replaying upstream, and a bounded driver
 * that reads a stream, leaves it when the fault says so, and reports what happened.
 */
import { relay } from '../../src/client/index.ts'
import type { Adapter, CallOptions } from '../../src/core/adapter.ts'
import type { Event } from '../../src/core/events.ts'
import { createRelay } from '../../src/relay/index.ts'
import type { Relay } from '../../src/relay/options.ts'
import { replayFetch, type RecordedRequest, type ReplaySpec } from '../helpers/replay-fetch.ts'
import type { Fault } from './faults.ts'
import { trackBodies, type Upstream } from './track-bodies.ts'
import { KITS, type FaultKit } from './kits.ts'

/** One row of the matrix. */
export type Target = { name: string; kit: FaultKit; via: 'direct' | 'relay' }

/** Every provider directly, then every provider behind the relay. */
export const TARGETS: readonly Target[] = [
  ...KITS.map((kit): Target => ({ name: kit.name, kit, via: 'direct' })),
  ...KITS.map((kit): Target => ({ name: `relay → ${kit.name}`, kit, via: 'relay' })),
]

/** Idle timeout of a stalling cell; short, as only a stall waits for it. */
export const STALL_IDLE_MS = 400
/** Idle timeout of every other cell: long enough never to fire on a busy machine. */
const SAFE_IDLE_MS = 10_000

export const RELAY_URL = 'http://relay.test'

/** A target wired to one replaying upstream. */
export type Rig = {
  /** The adapter under test (for relay targets, the `relay()` client). */
  adapter: Adapter
  /** The provider's upstream (for relay targets, the one behind the relay). */
  upstream: Upstream
  /** Call options of the cell. */
  options: CallOptions
  /** The relay itself, for relay targets. */
  server: Relay | undefined
  /** `provider/model` of the model behind the adapter. */
  id: string
}

/** Builds a target on an upstream that answers with `specs`. */
export function rig(
  target: Target,
  specs: ReplaySpec[] | ((request: RecordedRequest, index: number) => ReplaySpec),
  fault: Pick<Fault, 'stalls'>,
): Rig {
  const upstream = trackBodies(replayFetch(specs))
  const inner = target.kit.adapter(upstream.fetch)
  const id = `${inner.provider}/${inner.model}`
  const idleTimeoutMs = fault.stalls === true ? STALL_IDLE_MS : SAFE_IDLE_MS
  if (target.via === 'direct') {
    return { adapter: inner, upstream, options: { idleTimeoutMs }, server: undefined, id }
  }
  const server = createRelay({
    providers: { [inner.provider]: [inner] },
    // Longer than any idle timeout here: a failure before the first event is answered as JSON.
    heartbeatMs: 5_000,
    idleTimeoutMs,
  })
  const fetch = (input: RequestInfo | URL, init?: RequestInit) =>
    server.fetch(new Request(input, init))
  const adapter = relay({ url: RELAY_URL, model: id, fetch: fetch as typeof globalThis.fetch })
  return { adapter, upstream, options: {}, server, id }
}

/** What a driven stream did. */
export type Outcome = { events: Event[]; error: unknown }

/** Longest any driven stream may take before the cell fails as hung. */
const HANG_MS = 8_000

/**
 * Reads `stream` to its end or its error. With `fault.abort`, aborts `controller` once the
 * upstream has the request (`requested`) or after the first event. Fails as hung after
 * {@link HANG_MS}, so a stream that never ends is a failed cell, not a stuck suite.
 */
export async function drive(
  stream: AsyncIterable<Event>,
  options: { fault: Pick<Fault, 'abort'>; controller: AbortController; requested(): boolean },
): Promise<Outcome> {
  const { fault, controller, requested } = options
  const events: Event[] = []
  let poll: ReturnType<typeof setInterval> | undefined
  if (fault.abort === 'on-request') {
    poll = setInterval(() => {
      if (!requested()) return
      clearInterval(poll)
      controller.abort()
    }, 2)
  }
  let hang: ReturnType<typeof setTimeout> | undefined
  const hung = new Promise<never>((_, reject) => {
    hang = setTimeout(() => reject(new Error(`stream hung for ${HANG_MS} ms`)), HANG_MS)
  })
  const read = async (): Promise<Outcome> => {
    try {
      for await (const event of stream) {
        events.push(event)
        if (fault.abort === 'after-first-event' && events.length === 1) controller.abort()
      }
    } catch (error) {
      return { events, error }
    }
    return { events, error: undefined }
  }
  try {
    return await Promise.race([read(), hung])
  } finally {
    clearInterval(poll)
    clearTimeout(hang)
  }
}
