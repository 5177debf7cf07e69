import { APIError } from 'openai'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { END } from '../../kit/read-event-stream.ts'

/**
 * The data of one Responses SSE message, read by the SDK's own rules: `[DONE]` ends the stream,
 * and a payload with an `error` field is thrown as the SDK's `APIError`, so it maps exactly as the
 * SDK's iterator would have it. A payload that is not an object with a string `type` is skipped.
 */
export function parseEvent(
  data: string,
  headers: Headers,
): ResponseStreamEvent | typeof END | undefined {
  if (data.startsWith('[DONE]')) return END
  const value: unknown = JSON.parse(data)
  if (typeof value !== 'object' || value === null) return undefined
  if ('error' in value && value.error)
    throw new APIError(undefined, value.error, undefined, headers)
  // Typed as the SDK types it: the mapper switches on `type` and skips what it does not know.
  return 'type' in value && typeof value.type === 'string'
    ? (value as ResponseStreamEvent)
    : undefined
}
