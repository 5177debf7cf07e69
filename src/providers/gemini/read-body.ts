import { ApiError } from '@google/genai'
import { createParser } from 'eventsource-parser'
import { ThinkwireError } from '../../core/errors.ts'
import { isRecord } from './record.ts'

/** Leading whitespace, then an object: a chunk that may be a bare JSON error body. */
const BARE_JSON = /^\s*\{/
/** The blank lines that end an event for `@google/genai`. */
const DELIMITERS = ['\n\n', '\r\r', '\r\n\r\n'] as const

/**
 * Reads the `streamGenerateContent?alt=sse` body that `models.generateContentStream` was sent for,
 * one batch of parsed chunks per network read. The SDK wraps every event in a `Response` and runs
 * its converters, which costs many times the parse; eventsource-parser and `JSON.parse` do the
 * same work here, under the SDK's rules: an `error` object with an HTTP `code` (in an event, or as
 * a whole network chunk) throws the SDK's `ApiError`, a payload that is not JSON throws its
 * `SyntaxError`, and a body that ends inside an event is a cut-off stream. Cancelling the body on
 * an early exit releases the connection.
 */
export async function* readChunkBatches(
  response: Response,
  provider: string,
): AsyncGenerator<unknown[], void, undefined> {
  const body = response.body
  if (body === null) throw new Error('Response body is empty')
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let batch: unknown[] = []
  let failure: { error: unknown } | undefined
  const parser = createParser({
    onEvent(message) {
      if (failure !== undefined) return
      try {
        const data: unknown = JSON.parse(message.data)
        throwIfError(data)
        batch.push(data)
      } catch (error) {
        failure = { error }
      }
    },
  })
  // Whether text other than whitespace came after the last event's blank line, and the last few
  // characters read, for a blank line split across two reads.
  let open = false
  let tail = ''
  let drained = false
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) {
        drained = true
        break
      }
      const text = decoder.decode(chunk.value, { stream: true })
      if (BARE_JSON.test(text)) throwIfError(parseOrUndefined(text))
      parser.feed(text)
      const seen = tail + text
      const end = lastDelimiterEnd(seen)
      open = end < 0 ? open || /\S/.test(text) : /\S/.test(seen.slice(end))
      tail = seen.slice(-3)
      if (batch.length > 0) {
        const chunks = batch
        batch = []
        yield chunks
      }
      if (failure !== undefined) throw failure.error
    }
  } finally {
    if (!drained) void reader.cancel().catch(() => {})
  }
  if (open) {
    throw new ThinkwireError({
      kind: 'network',
      message: `${provider}: the stream was cut off in the middle of a chunk`,
      provider,
    })
  }
}

/** Throws the SDK's `ApiError` for `{ error: { code, status } }` with an HTTP error code. */
function throwIfError(data: unknown): void {
  if (!isRecord(data) || !isRecord(data['error'])) return
  const { code, status } = data['error']
  if (typeof code !== 'number' || code < 400 || code >= 600) return
  throw new ApiError({
    message: `got status: ${String(status)}. ${JSON.stringify(data)}`,
    status: code,
  })
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The index just past the last event delimiter in `text`, or -1. */
function lastDelimiterEnd(text: string): number {
  let end = -1
  for (const delimiter of DELIMITERS) {
    const at = text.lastIndexOf(delimiter)
    if (at >= 0) end = Math.max(end, at + delimiter.length)
  }
  return end
}
