import { assertNever } from '../core/assert-never.ts'
import type { AssistantTurn } from '../core/conversation.ts'
import { ThinkwireError } from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import type { AnswerOutcome } from './answer-pipeline.ts'
import type { StreamDelta, StreamEncoder } from './dialects.ts'
import { relayFailure } from './failure.ts'

/**
 * How an event stream ended: with `done`, with an `error` event, or by the client leaving (the
 * answer's outcomes a stream can have; the last two say how much went out before).
 */
export type StreamEnd = Extract<AnswerOutcome, { type: 'done' | 'error' | 'cancel' }>

/**
 * A delta as the relay sends it, on every route: a tool call always has an input (its clients and
 * validator require one), `{}` when the model gave none; any other delta is sent as it is.
 */
export function sentDelta(event: StreamDelta): StreamDelta {
  if (event.type !== 'tool-call' || event.call.input !== undefined) return event
  return { type: 'tool-call', call: { ...event.call, input: {} } }
}

/**
 * The characters a sent delta streams: its text, or a tool call's name and JSON input. What a
 * budget charges for an answer that ends without its usage.
 */
export function streamedCharsOf(event: StreamDelta): number {
  return event.type === 'tool-call'
    ? event.call.name.length + JSON.stringify(event.call.input).length
    : event.text.length
}

/** Inputs of {@link toEventStream}. */
export type EventStreamOptions = {
  iterator: AsyncIterator<Event>
  /** The first `iterator.next()`, already started by the caller. */
  first: Promise<IteratorResult<Event>>
  /** Aborted when the client leaves, so the upstream call stops. */
  upstream: AbortController
  provider: string
  /** Writes each event, the end and a failure in the endpoint's dialect. */
  encoder: StreamEncoder
  heartbeatMs: number
  /** Prepares the `done` turn before it is sent (sealing its items). */
  finish?: ((turn: AssistantTurn) => Promise<AssistantTurn>) | undefined
  onEnd(end: StreamEnd): void
}

const utf8 = new TextEncoder()

/** How often a silent stream checks that its client is still there, by writing an empty comment. */
const PROBE_MS = 1000

/** A chunk holds events up to about this many characters. */
const BATCH_CHARS = 16 * 1024

/**
 * Runs `fn` once the work already queued (microtasks, and in Node the I/O callbacks of this turn)
 * is done: the moment the stream starts waiting on the network.
 */
const afterCurrentWork: (fn: () => void) => void =
  typeof setImmediate === 'function' ? setImmediate : (fn) => void setTimeout(fn, 0)

/**
 * Turns an adapter's events into SSE bytes. Each `pull` takes the next event from the iterator,
 * with those that are already there behind it (up to a chunk's worth): what is held goes out as
 * soon as the stream has to wait for the network, so batching adds no latency. A slow client slows
 * the upstream read instead of filling memory. `cancel` (the client left) aborts
 * the upstream and returns the iterator. Every stream ends with `done` or `error`, never silently;
 * while the model is silent, a comment goes out every `heartbeatMs`.
 */
export function toEventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const { iterator, upstream, provider, encoder, heartbeatMs, finish, onEnd } = options
  let pending: Promise<IteratorResult<Event>> | undefined = options.first
  let closed = false
  let lastWrite = Date.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  let output: ReadableStreamDefaultController<Uint8Array>
  // Encoded events not yet written. A runtime pays for every chunk it writes (in workerd, more
  // than for encoding the event), so events that arrive together leave as one chunk.
  let held = ''
  /** Characters of the events encoded so far: what a turn that never finishes is charged for. */
  let streamedChars = 0
  let waiting = false
  let flushArmed = false
  let sentWhileWaiting = false
  const send = () => {
    lastWrite = Date.now()
    output.enqueue(utf8.encode(held))
    held = ''
  }
  // Armed once per batch, not per event: fires when `pull` waits on the upstream with events held.
  const flushHeld = () => {
    flushArmed = false
    if (!waiting || closed || held === '') return
    send()
    sentWhileWaiting = true
  }
  const takeHeld = () => {
    const before = held
    held = ''
    return before
  }

  const stopHeartbeat = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  // One timer per quiet period rather than one per event: each firing checks how long the stream
  // has really been silent and writes a comment: `ping` every `heartbeatMs` (proxies close silent
  // connections), and in between an empty one every `PROBE_MS`. Some runtimes (workerd) notice a
  // client that left only when a write fails: the probe stops a silent upstream within a second
  // of the client leaving, at two bytes a second.
  const every = heartbeatMs > 0 ? Math.min(heartbeatMs, PROBE_MS) : PROBE_MS
  let lastPing = Date.now()
  const beat = () => {
    if (closed) return
    const now = Date.now()
    const idle = now - lastWrite
    if (idle >= every) {
      const ping = heartbeatMs > 0 && now - Math.max(lastPing, lastWrite) >= heartbeatMs
      // A fresh buffer per write: a runtime may take ownership of what it is given.
      output.enqueue(utf8.encode(ping ? ': ping\n\n' : ':\n'))
      if (ping) lastPing = now
      lastWrite = now
      timer = setTimeout(beat, every)
    } else {
      timer = setTimeout(beat, every - idle)
    }
  }
  const end = (chunk: string, how: StreamEnd) => {
    if (closed) return
    closed = true
    stopHeartbeat()
    output.enqueue(utf8.encode(chunk))
    output.close()
    onEnd(how)
  }
  /** Ends with an `error` event, after `sent`: the events of the batch that came before it. */
  const fail = (error: unknown, sent = '') => {
    const failure = relayFailure(error, provider, upstream.signal)
    end(sent + encoder.error(failure), { type: 'error', error: failure, streamedChars })
  }
  const finishWith = async (turn: AssistantTurn, before: string) => {
    const sent = finish === undefined ? turn : await finish(turn)
    end(before + encoder.done(sent), { type: 'done', turn: sent })
    // Let the adapter run its cleanup; it has nothing more to send.
    void iterator.return?.()?.catch(() => {})
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        output = controller
        timer = setTimeout(beat, every)
      },

      // The hot path: one JSON.stringify per event, one encode and one enqueue per chunk, and no
      // allocation of closures or timers per event.
      async pull() {
        try {
          let next = pending ?? iterator.next()
          pending = undefined
          for (;;) {
            if (held !== '' && !flushArmed) {
              flushArmed = true
              afterCurrentWork(flushHeld)
            }
            waiting = true
            const step = await next
            waiting = false
            if (closed) return
            if (step.done === true) {
              fail(
                new ThinkwireError({
                  kind: 'server',
                  message: `${provider}: the stream ended without a done event`,
                  provider,
                }),
                takeHeld(),
              )
              return
            }
            const event = step.value
            switch (event.type) {
              case 'text':
              case 'thinking':
              case 'tool-call': {
                const sent = sentDelta(event)
                streamedChars += streamedCharsOf(sent)
                held += encoder.delta(sent)
                break
              }
              case 'done':
                return await finishWith(event.turn, takeHeld())
              default:
                return assertNever(event)
            }
            // Something went out while we waited, or a chunk is full: this pull has done its part.
            if (sentWhileWaiting || held.length >= BATCH_CHARS) break
            next = iterator.next()
          }
          sentWhileWaiting = false
          send()
        } catch (error) {
          fail(error, takeHeld())
        }
      },

      cancel() {
        if (closed) return
        closed = true
        stopHeartbeat()
        upstream.abort(new Error('client disconnected'))
        void iterator.return?.()?.catch(() => {})
        onEnd({ type: 'cancel', streamedChars })
      },
    },
    // Reads one chunk ahead of the client: enough to keep the pipe full, never a backlog.
    { highWaterMark: 1 },
  )
}
