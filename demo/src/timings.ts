import type { Adapter, AssistantTurn } from '../../src/index.ts'
import type { ChatStore, ShownAssistantTurn } from '../../src/client/index.ts'
import type { AnswerStats } from './storage.ts'

/** When the events of one model call arrived (performance.now() milliseconds). */
export type Timing = {
  startedAt: number
  /** From the relay's `server-timing`: its own work before the model call. */
  relayMs?: number | undefined
  /** From the relay's `server-timing`: the model's time to its first event, when the relay waited for it. */
  upstreamMs?: number | undefined
  /**
   * A durable conversation's `turn` event arrived: the relay sends it as it starts the model call,
   * and before the answer's first event on every stream that carries both.
   */
  turnAt?: number | undefined
  firstAt?: number | undefined
  thinkingAt?: number | undefined
  answerAt?: number | undefined
}

/** The follow-up of the answer in flight, read by the fetch that sends it and by its store. */
export type LiveTiming = { current: Timing | undefined }

/** What a finished (or stopped) call's timing comes to. */
export function statsOf(timing: Timing, endedAt = performance.now()): AnswerStats {
  const ttftMs = timing.firstAt === undefined ? undefined : timing.firstAt - timing.startedAt
  // The relay says how long the model took when it waited for the first event (`/v1/chat`).
  // A durable conversation answers at once, and its events may come first on another stream (the
  // one that follows the conversation) than the request's own: the model's share is measured from
  // the `turn` event, which comes before the first event on whichever stream brings it, so both
  // ends are read on this page's clock, in the order they happened.
  const modelMs =
    timing.upstreamMs ??
    (timing.firstAt === undefined || timing.turnAt === undefined
      ? undefined
      : timing.firstAt - timing.turnAt)
  return {
    ttftMs,
    relayMs: ttftMs === undefined ? undefined : timing.relayMs,
    modelMs: ttftMs === undefined ? undefined : modelMs,
    thoughtMs:
      timing.thinkingAt === undefined
        ? undefined
        : (timing.answerAt ?? endedAt) - timing.thinkingAt,
  }
}

/**
 * Reads a `server-timing` header (`relay;dur=1.2;desc="checks", upstream;dur=840.5`) into its
 * durations by name. Entries without a duration, and malformed ones, are left out.
 */
export function parseServerTiming(header: string | null): Record<string, number> {
  const durations: Record<string, number> = {}
  if (header === null) return durations
  for (const entry of header.split(',')) {
    const [name, ...params] = entry.split(';').map((part) => part.trim())
    if (name === undefined || !/^[\w-]+$/.test(name)) continue
    for (const param of params) {
      const match = /^dur=(\d+(?:\.\d+)?)$/.exec(param)
      if (match !== null) durations[name] = Number(match[1])
    }
  }
  return durations
}

/** The requests whose response starts a model call: `/v1/chat`, a message, a regenerate, an edit. */
const CALLS = /\/v1\/chat$|\/v1\/conversations\/[^/]+\/(messages|regenerate|edit)$/
/** The responses that carry a durable conversation's events: those calls', and a stream's. */
const EVENTS = /\/v1\/conversations\/[^/]+\/(messages|regenerate|edit|stream)$/
/** The line that names a `turn` event. */
const TURN = /^event: turn$/m

/**
 * A fetch for the relay clients that notes, for the call in flight, what the relay's
 * `server-timing` header says (the relay exposes it to pages on other origins too), and when a
 * durable conversation's `turn` event first arrives, on any of its streams.
 */
export function timingFetch(live: LiveTiming): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const path = new URL(url, location.href).pathname
    const timing = live.current
    // A message queued while an answer runs (202) starts no call now: the one timed goes on.
    if (timing !== undefined && CALLS.test(path) && response.status !== 202) {
      const durations = parseServerTiming(response.headers.get('server-timing'))
      timing.relayMs = durations['relay']
      timing.upstreamMs = durations['upstream']
    }
    return EVENTS.test(path) ? watchTurns(response, live) : response
  }
}

/**
 * The response, its body passed on as it is read, noting when a `turn` event goes by while a call
 * is timed (before the relay client reads it, so before it reads the answer's first event).
 */
function watchTurns(response: Response, live: LiveTiming): Response {
  if (response.body === null) return response
  const decoder = new TextDecoder()
  // The end of the last chunk: a line may be cut between two.
  let tail = ''
  const watch = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const text = tail + decoder.decode(chunk, { stream: true })
      const timing = live.current
      if (timing !== undefined && timing.turnAt === undefined && TURN.test(text)) {
        timing.turnAt = performance.now()
      }
      tail = text.slice(text.lastIndexOf('\n') + 1)
      controller.enqueue(chunk)
    },
  })
  return new Response(response.body.pipeThrough(watch), response)
}

/** Notes the first thinking, text and tool call of a call as its events arrive. */
function noteEvent(timing: Timing, type: 'thinking' | 'text' | 'tool-call', now: number): void {
  timing.firstAt ??= now
  if (type === 'thinking') timing.thinkingAt ??= now
  else timing.answerAt ??= now
}

/**
 * Wraps an adapter to time its events: `live.current` follows the call in flight, and each done
 * turn gets its stats in `byTurn`. Adapter in, adapter out, like any thinkwire middleware.
 */
export function timed(
  adapter: Adapter,
  live: LiveTiming,
  byTurn: WeakMap<AssistantTurn, AnswerStats>,
): Adapter {
  return {
    provider: adapter.provider,
    model: adapter.model,
    async *stream(conversation, options) {
      const timing: Timing = { startedAt: performance.now() }
      live.current = timing
      for await (const event of adapter.stream(conversation, options)) {
        const now = performance.now()
        if (event.type === 'done') byTurn.set(event.turn, statsOf(timing, now))
        else noteEvent(timing, event.type, now)
        yield event
      }
    },
  }
}

/**
 * Times the answers of a store (a durable conversation) from what its snapshots show: the call in
 * flight is `live.current`, set by the page when it sends; each answer that ends (done or
 * stopped) gets its stats in `byTurn`. Answers this page did not ask for (another tab's, or one it
 * attached to after a reload) are not timed. Returns the unsubscribe function.
 */
export function timeStore(
  store: ChatStore,
  live: LiveTiming,
  byTurn: WeakMap<AssistantTurn, AnswerStats>,
): () => void {
  return store.subscribe(() => {
    const timing = live.current
    if (timing === undefined) return
    const { status, messages } = store.getSnapshot()
    const now = performance.now()
    const last = messages.at(-1)
    if (last?.role === 'assistant' && last.status === 'streaming') {
      if (last.thinking !== '') noteEvent(timing, 'thinking', now)
      if (last.text !== '') noteEvent(timing, 'text', now)
      if (last.toolCalls.length > 0) noteEvent(timing, 'tool-call', now)
    }
    if (status === 'ready' || status === 'error') {
      if (status === 'ready' && last?.turn !== undefined)
        byTurn.set(last.turn, statsOf(timing, now))
      live.current = undefined
    }
  })
}

/**
 * How long a durable conversation's answer thought, as the relay measured it (its turns carry it):
 * the same in every tab and after a reload.
 */
export function relayThinkingMs(turn: ShownAssistantTurn): number | undefined {
  const { thinkingMs } = turn
  return typeof thinkingMs === 'number' && thinkingMs >= 0 ? thinkingMs : undefined
}

/** `1.2 s`, `14 s`. */
export function seconds(ms: number): string {
  const s = ms / 1000
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`
}

/** `35 ms` under a second, else as {@link seconds}. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : seconds(ms)
}
