import { providerError } from '../core/errors.ts'
import { createSseParser, type EventSourceMessage } from './sse-parser.ts'

export type { EventSourceMessage }

/** What a decoder returns at the stream's terminal event: the reader stops there. */
export const END: unique symbol = Symbol('thinkwire.end')

/** How {@link readEventStream} reads one provider's Server-Sent Events. */
export type ReadEventStreamOptions<T> = {
  /** Names the provider in error messages. */
  provider: string
  /**
   * Turns one SSE message into an item, into `END` at the provider's terminal event (nothing after
   * it is read, and the body is released), or into undefined to skip it. What it throws is thrown
   * by the reader after the items decoded before it.
   */
  decode(message: EventSourceMessage): T | typeof END | undefined
  /** Sees each decoded network chunk before it is parsed; may throw (e.g. a JSON error body sent in place of a stream). */
  inspect?: ((text: string) => void) | undefined
  /** Called for each comment line (a heartbeat). */
  onComment?: (() => void) | undefined
  /**
   * The most characters one event (or one unfinished line) may buffer; a larger one fails the
   * stream with a `server` error rather than growing memory without end.
   * @defaultValue 33554432 (32 Mi characters: a generated image fits)
   */
  maxEventChars?: number | undefined
  /** Aborting it cancels the body, also when the runtime's fetch does not end it on abort. */
  signal?: AbortSignal | undefined
  /**
   * How long the body may stay open after `END` before it is cancelled. A browser shows a fetch
   * cancelled in its last bytes as a failed request (net::ERR_ABORTED), so a client of a server
   * that ends the body right after its terminal event leaves it that long to end by itself.
   * @defaultValue 0 (cancelled at once)
   */
  drainMs?: number | undefined
}

/** 32 Mi characters. */
const DEFAULT_MAX_EVENT_CHARS = 2 ** 25

/**
 * Reads an SSE body once, with {@link createSseParser}, and yields the decoded items of each
 * network read as one batch (possibly empty: a read that completed no event still proves the
 * upstream is alive). Ends at the decoder's `END` or at the end of the body. SSE ends every event
 * with a blank line: an event the body ends inside was cut off (a `network` error), unless the
 * decoder calls it the terminal event, which some servers send without its blank line. Leaving
 * early, failing, or reaching `END` (after `drainMs`) cancels the body, which releases the
 * connection.
 */
export function readEventStream<T>(
  body: ReadableStream<Uint8Array> | null,
  options: ReadEventStreamOptions<T>,
): AsyncIterableIterator<T[], undefined> & { return(): Promise<IteratorResult<T[], undefined>> } {
  const {
    provider,
    decode,
    inspect,
    onComment,
    signal,
    drainMs = 0,
    maxEventChars = DEFAULT_MAX_EVENT_CHARS,
  } = options
  const cutOff = (cause?: unknown) =>
    providerError('network', provider, 'the stream was cut off in the middle of an event', cause)
  const reader = body?.getReader()
  const cancel = () => void reader?.cancel().catch(() => {})
  const decoder = new TextDecoder()
  let batch: T[] = []
  /** Set inside `feed` by the callbacks: a failure to throw after the items read before it. */
  let failure: { error: unknown } | undefined
  let atEnd = false
  /** Done reading: at the terminal event, at the end of the body, or on a failure. */
  let closed = false
  /** Stops reading, once; the body is cancelled unless it was read to its end (or is left to end). */
  const close = (keep?: boolean) => {
    if (closed) return
    closed = true
    signal?.removeEventListener('abort', cancel)
    if (!keep) cancel()
  }
  const failWith = (error: unknown) => {
    close()
    failure = { error }
  }
  // A signal aborts once, and `close` removes the listener: it needs no `once`.
  signal?.addEventListener('abort', cancel)
  const parser = createSseParser({
    maxBufferSize: maxEventChars,
    onEvent(message) {
      if (closed) return
      let item: T | typeof END | undefined
      try {
        item = decode(message)
      } catch (error) {
        return failWith(atEnd ? cutOff(error) : error)
      }
      if (item === END) {
        close(drainMs > 0)
        // A timeout signal does not keep Node's event loop alive.
        if (drainMs > 0) AbortSignal.timeout(drainMs).addEventListener('abort', cancel)
      }
      // An event the body ended inside that is not the terminal one: cut off, whatever it held.
      else if (atEnd) failWith(cutOff())
      else if (item !== undefined) batch.push(item)
    },
    onComment,
    onOverflow() {
      if (closed) return
      const message = `an event of the stream is longer than ${maxEventChars} characters`
      failWith(providerError('server', provider, message))
    },
  })

  /** One network read, parsed: its batch, or the end. Whatever fails releases the body first. */
  async function read(): Promise<IteratorResult<T[], undefined>> {
    if (failure) {
      // Closed already (by `failWith`); thrown once.
      const { error } = failure
      failure = undefined
      throw error
    }
    if (closed) return DONE
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      if (!reader) throw providerError('network', provider, 'the response has no body')
      chunk = await reader.read()
    } catch (error) {
      close()
      throw error
    }
    // At the end (no value), `stream: false` flushes what the decoder holds.
    const text = decoder.decode(chunk.value, { stream: !chunk.done })
    try {
      if (chunk.done) {
        parser.feed(text)
        // A line break and a blank line bring out any event the body ended inside (after a CR,
        // the parser takes the first LF as the end of that CRLF).
        atEnd = true
        parser.feed('\n\n')
        close(true)
      } else {
        inspect?.(text)
        parser.feed(text)
      }
    } catch (error) {
      failWith(error)
    }
    const items = batch
    batch = []
    // What came before a failure in the same read is delivered first; the failure is the next.
    if (!items.length && failure) return read()
    return { done: false, value: items }
  }

  const iterator = {
    next: read,
    return: async () => {
      close()
      return DONE
    },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }
