import type { CallOptions } from './adapter.ts'
import type { AssistantTurn, Conversation } from './conversation.ts'
import type { ErrorKind } from './errors.ts'
import type { ToolCall } from './events.ts'

/**
 * The relay's wire format (DESIGN §5), as types shared by both sides: the relay validates requests
 * and encodes events with them, the relay client encodes requests and decodes events with them.
 * Each side keeps a {@link FieldTable} per record it reads, so a field added to a turn, a tool call,
 * usage or the call options does not compile until both sides handle it.
 */

/** Call options that never cross the wire: the relay owns its upstream and its timeouts. */
export type LocalCallOption = 'signal' | 'idleTimeoutMs' | 'providerOptions'

/** The call options a client may choose over the wire. */
export type WireCallOptions = Omit<CallOptions, LocalCallOption>

/** The body of `POST /v1/chat`. */
export type WireChatRequest = { model: string; conversation: Conversation } & WireCallOptions

/** The `data` of each SSE event of a relay stream, by event name. */
export type WireEvents = {
  thinking: { text: string }
  text: { text: string }
  'tool-call': { call: ToolCall }
  done: { turn: AssistantTurn }
  /** Sent in place of `done` when the stream fails. */
  error: WireError
}

/** The event names of a relay stream. */
export type WireEventName = keyof WireEvents

/** An `error` event's data. */
export type WireError = {
  kind: ErrorKind
  message: string
  retryable: boolean
  retryAfterMs?: number | undefined
}

/**
 * One entry for every field of `T`, optional fields included: a table typed with it stops
 * compiling when `T` gains a field the table does not handle.
 */
export type FieldTable<T, V> = { readonly [K in keyof T]-?: V }
