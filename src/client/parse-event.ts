import type { EventSourceMessage } from 'eventsource-parser'
import type { AssistantTurn } from '../core/conversation.ts'
import { isRetryableKind, ThinkwireError, type ErrorKind } from '../core/errors.ts'
import type { Event, ToolCall } from '../core/events.ts'

type Dict = { [key: string]: unknown }

/** True for a non-null object that is not an array. */
export function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True for an error kind this client knows (a newer relay's unknown kind is not one). */
function isErrorKind(value: unknown): value is ErrorKind {
  // isRetryableKind reads a table with one boolean per kind: undefined means no such kind.
  return typeof value === 'string' && typeof isRetryableKind(value as ErrorKind) === 'boolean'
}

/**
 * A `ThinkwireError` from a relay's error payload `{ kind, message, retryable?, retryAfterMs? }`:
 * the payload's fields where they are valid, else the fallback's.
 */
export function relayError(
  data: Dict,
  provider: string,
  fallback: { kind: ErrorKind; message: string; status?: number | undefined },
  retryAfterMs?: number | undefined,
): ThinkwireError {
  const { kind, message, retryable, retryAfterMs: after } = data
  return new ThinkwireError({
    kind: isErrorKind(kind) ? kind : fallback.kind,
    message: typeof message === 'string' ? message : fallback.message,
    retryable: typeof retryable === 'boolean' ? retryable : undefined,
    retryAfterMs: typeof after === 'number' && after >= 0 ? after : retryAfterMs,
    status: fallback.status,
    provider,
  })
}

/**
 * Turns one SSE message of the relay into an event, a `ThinkwireError` (an `error` event or a
 * malformed payload), or undefined for an event name this client does not know (ignored, so a
 * newer relay can add events).
 */
export function parseEvent(
  message: EventSourceMessage,
  provider: string,
): Event | ThinkwireError | undefined {
  const name = message.event
  let data: Dict = {}
  try {
    const parsed: unknown = JSON.parse(message.data)
    if (isDict(parsed)) data = parsed
  } catch {
    // left empty: reported below as malformed
  }
  const { text, call, turn } = data
  switch (name) {
    case 'thinking':
    case 'text':
      if (typeof text === 'string') return { type: name, text }
      break
    case 'tool-call':
      if (
        isDict(call) &&
        typeof call['id'] === 'string' &&
        typeof call['name'] === 'string' &&
        'input' in call
      ) {
        return { type: name, call: call as ToolCall }
      }
      break
    case 'done':
      // Passed on untouched: the items (and their seal) go back to the relay exactly as they came.
      if (
        isDict(turn) &&
        turn['role'] === 'assistant' &&
        typeof turn['text'] === 'string' &&
        isDict(turn['usage']) &&
        typeof turn['stopReason'] === 'string'
      ) {
        return { type: name, turn: turn as AssistantTurn }
      }
      break
    case 'error':
      return relayError(data, provider, { kind: 'server', message: 'relay: the stream failed' })
    default:
      return undefined
  }
  return new ThinkwireError({
    kind: 'server',
    message: `relay: malformed '${name}' event`,
    provider,
  })
}
