import { ApiError } from '@google/genai'
import { isRecord } from '../../kit/json.ts'
import { mapGeminiError } from './map-error.ts'
import type { HeaderSource } from './retry-info.ts'

/**
 * Throws for `{ error: { code, status } }` with an HTTP error code, sent in place of a chunk: the
 * SDK's `ApiError` (as the SDK's own stream reader makes it) mapped with the headers of the
 * response it came in.
 */
export function throwIfErrorChunk(data: unknown, provider: string, headers: HeaderSource): void {
  if (!isRecord(data)) return
  const error = data['error']
  if (!isRecord(error)) return
  const { code, status } = error
  if (typeof code !== 'number' || code < 400 || code >= 600) return
  const apiError = new ApiError({
    message: `got status: ${String(status)}. ${JSON.stringify(data)}`,
    status: code,
  })
  throw mapGeminiError(apiError, provider, headers)
}

/** How much of a body's start is kept while it may still be a JSON error body. */
const MAX_HEAD_CHARS = 1024 * 1024
const OPEN_BRACE = 0x7b

/**
 * A `readEventStream` `inspect` hook that watches the start of the body: Gemini may answer a
 * stream request with a bare JSON error object in place of Server-Sent Events (no event comes
 * out of it). A body whose first character other than whitespace is `{` is gathered until it
 * parses, and an error object in it throws as {@link throwIfErrorChunk} does. Any other body is
 * left alone after its first characters.
 */
export function createBareErrorCheck(
  provider: string,
  headers: HeaderSource,
): (text: string) => void {
  return watchJsonHead((parsed) => throwIfErrorChunk(parsed, provider, headers))
}

/**
 * A `readEventStream` `inspect` hook that hands `onJson` the body when it is one JSON object (its
 * first character other than whitespace is `{`), gathered until it parses, once; any other body,
 * or one past {@link MAX_HEAD_CHARS} that does not parse, is left alone. Both Gemini APIs answer a
 * stream request with a bare JSON error in place of events this way.
 */
export function watchJsonHead(onJson: (parsed: unknown) => void): (text: string) => void {
  let head: string | undefined = ''
  return (text) => {
    if (head === undefined) return
    head += text
    const first = head.trimStart()
    if (first === '') return
    if (first.charCodeAt(0) !== OPEN_BRACE) {
      head = undefined
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(first)
    } catch {
      if (head.length > MAX_HEAD_CHARS) head = undefined
      return
    }
    head = undefined
    onJson(parsed)
  }
}
