import type { EventSourceMessage } from '../kit/sse-parser.ts'
import type { AssistantTurn, Source, StopDetails, Usage } from '../core/conversation.ts'
import { isErrorKind, ThinkwireError, type ErrorKind } from '../core/errors.ts'
import type { Event, ToolCall } from '../core/events.ts'
import type { FieldTable, WireEvents } from '../core/wire.ts'
import { isRecord, type JsonRecord } from '../kit/json.ts'

type Check = (value: unknown) => boolean

const isString = (value: unknown): value is string => typeof value === 'string'
/** A count or an amount: JSON carries no NaN or Infinity, so a number that is not negative. */
const isCount = (value: unknown): value is number => typeof value === 'number' && value >= 0
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value)
const listOf =
  (check: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every(check)
/** A check of an object with one check per field of `T` (the table fails to compile when `T` grows). */
function shape<T>(table: FieldTable<T, Check>): Check {
  const checks: [string, Check][] = Object.entries(table)
  return (value) => isRecord(value) && checks.every(([key, check]) => check(value[key]))
}

const isToolCall = shape<ToolCall>({
  id: isString,
  name: isString,
  // Any JSON value (null included), but present.
  input: (value) => value !== undefined,
})
const isUsage = shape<Usage>({
  inputTokens: isCount,
  outputTokens: isCount,
  reasoningTokens: optional(isCount),
  cacheReadTokens: optional(isCount),
  cacheWriteTokens: optional(isCount),
  cost: optional(isCount),
})
const isStopDetails = shape<StopDetails>({
  category: optional(isString),
  explanation: optional(isString),
})
const isSource = shape<Source>({
  url: optional(isString),
  title: optional(isString),
  quote: optional(isString),
})
const isTurn = shape<AssistantTurn>({
  role: (value) => value === 'assistant',
  text: isString,
  thinking: optional(isString),
  toolCalls: optional(listOf(isToolCall)),
  usage: isUsage,
  stopReason: isString,
  stopDetails: optional(isStopDetails),
  sources: optional(listOf(isSource)),
  // Passed on untouched: the items (and their seal) go back to the relay exactly as they came.
  items: optional(isRecord),
  warnings: optional(listOf(isString)),
})

/**
 * A `ThinkwireError` from a relay's error payload `{ kind, message, retryable?, retryAfterMs? }`:
 * the payload's fields where they are valid, else the given `kind`, `'relay: ' + message` and
 * `retryAfterMs`.
 */
export function relayError(
  data: JsonRecord,
  provider: string,
  kind: ErrorKind,
  message: string,
  status?: number | undefined,
  retryAfterMs?: number | undefined,
): ThinkwireError {
  const { kind: given, message: text, retryable, retryAfterMs: after } = data
  return new ThinkwireError({
    kind: isErrorKind(given) ? given : kind,
    message: isString(text) ? text : `relay: ${message}`,
    retryable: typeof retryable === 'boolean' ? retryable : undefined,
    retryAfterMs: isCount(after) ? after : retryAfterMs,
    status,
    provider,
  })
}

/** `value` when it is a JSON object, else an empty one. */
export const recordOf = (value: unknown): JsonRecord => (isRecord(value) ? value : {})

type DeltaEvents = Omit<WireEvents, 'error'>

/**
 * Where each event of the wire format carries its payload, and the check of it. `error` is read
 * apart: it throws.
 */
const PAYLOADS: { readonly [K in keyof DeltaEvents]: readonly [keyof DeltaEvents[K], Check] } = {
  thinking: ['text', isString],
  text: ['text', isString],
  'tool-call': ['call', isToolCall],
  done: ['turn', isTurn],
}

/**
 * Turns one SSE message of the relay into an event, or undefined for an event name this client
 * does not know (ignored, so a newer relay can add events). An `error` event, and a payload that
 * is malformed, throw a `ThinkwireError`.
 */
export function parseEvent(message: EventSourceMessage, provider: string): Event | undefined {
  // An unnamed event (SSE's `message`) is not one of the relay's: ignored below, as any unknown.
  const name = message.event ?? ''
  let data: JsonRecord = {}
  try {
    data = recordOf(JSON.parse(message.data))
  } catch {
    // left empty: reported below as malformed
  }
  if (name === 'error') throw relayError(data, provider, 'server', 'the stream failed')
  if (!Object.hasOwn(PAYLOADS, name)) return undefined
  const [field, check] = PAYLOADS[name as keyof DeltaEvents]
  const payload = data[field]
  // The check proves the payload's type, so the event is well formed.
  if (check(payload)) return { type: name, [field]: payload } as Event
  throw relayError({}, provider, 'server', `malformed '${name}' event`)
}
