import { assertNever } from '../core/assert-never.ts'
import type { AssistantTurn } from '../core/conversation.ts'
import { ThinkwireError, toThinkwireError } from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import { createSseEncoder } from './sse.ts'

/** How an event stream ended: with `done`, with an `error` event, or by the client leaving. */
export type StreamEnd =
  | { type: 'done'; turn: AssistantTurn }
  | { type: 'error'; error: ThinkwireError }
  | { type: 'cancel' }

/** Inputs of {@link toEventStream}. */
export type EventStreamOptions = {
  iterator: AsyncIterator<Event>
  /** The first `iterator.next()`, already started by the caller. */
  first: Promise<IteratorResult<Event>>
  /** Aborted when the client leaves, so the upstream call stops. */
  upstream: AbortController
  provider: string
  heartbeatMs: number
  /** Prepares the `done` turn before it is sent (sealing its items). */
  finish?: ((turn: AssistantTurn) => Promise<AssistantTurn>) | undefined
  onEnd(end: StreamEnd): void
}

const utf8 = new TextEncoder()

/**
 * Turns an adapter's events into SSE bytes. Each `pull` takes one event from the iterator, so a
 * slow client slows the upstream read instead of filling memory. `cancel` (the client left) aborts
 * the upstream and returns the iterator. Every stream ends with `done` or `error`, never silently;
 * while the model is silent, a comment goes out every `heartbeatMs`.
 */
export function toEventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const { iterator, upstream, provider, heartbeatMs, finish, onEnd } = options
  const sse = createSseEncoder()
  let pending: Promise<IteratorResult<Event>> | undefined = options.first
  let closed = false
  let lastWrite = Date.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  let output: ReadableStreamDefaultController<Uint8Array>

  const stopHeartbeat = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  // One timer per quiet period rather than one per event: each firing checks how long the stream
  // has really been silent and either writes a comment or waits for the rest.
  const beat = () => {
    if (closed) return
    const idle = Date.now() - lastWrite
    if (idle >= heartbeatMs) {
      output.enqueue(utf8.encode(sse.comment('ping')))
      lastWrite = Date.now()
      timer = setTimeout(beat, heartbeatMs)
    } else {
      timer = setTimeout(beat, heartbeatMs - idle)
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
  const fail = (error: unknown) => {
    const failure = toThinkwireError(error, provider, upstream.signal)
    const data: Record<string, unknown> = {
      kind: failure.kind,
      message: failure.message,
      retryable: failure.retryable,
    }
    if (failure.retryAfterMs !== undefined) data['retryAfterMs'] = failure.retryAfterMs
    end(sse.event('error', JSON.stringify(data)), { type: 'error', error: failure })
  }
  const finishWith = async (turn: AssistantTurn) => {
    const sent = finish === undefined ? turn : await finish(turn)
    end(sse.event('done', JSON.stringify({ turn: sent })), { type: 'done', turn: sent })
    // Let the adapter run its cleanup; it has nothing more to send.
    void iterator.return?.()?.catch(() => {})
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        output = controller
        if (heartbeatMs > 0) timer = setTimeout(beat, heartbeatMs)
      },

      // The hot path: one await, one JSON.stringify and one encode per event, no allocation of
      // closures.
      async pull() {
        try {
          const next = pending ?? iterator.next()
          pending = undefined
          const step = await next
          if (closed) return
          if (step.done === true) {
            fail(
              new ThinkwireError({
                kind: 'server',
                message: `${provider}: the stream ended without a done event`,
                provider,
              }),
            )
            return
          }
          const event = step.value
          let chunk: string
          switch (event.type) {
            case 'text':
              chunk = sse.event('text', JSON.stringify({ text: event.text }))
              break
            case 'thinking':
              chunk = sse.event('thinking', JSON.stringify({ text: event.text }))
              break
            case 'tool-call':
              chunk = sse.event('tool-call', JSON.stringify({ call: event.call }))
              break
            case 'done':
              return await finishWith(event.turn)
            default:
              return assertNever(event)
          }
          lastWrite = Date.now()
          output.enqueue(utf8.encode(chunk))
        } catch (error) {
          fail(error)
        }
      },

      cancel() {
        if (closed) return
        closed = true
        stopHeartbeat()
        upstream.abort(new Error('client disconnected'))
        void iterator.return?.()?.catch(() => {})
        onEnd({ type: 'cancel' })
      },
    },
    // Reads one event ahead of the client: enough to keep the pipe full, never a backlog.
    { highWaterMark: 1 },
  )
}
