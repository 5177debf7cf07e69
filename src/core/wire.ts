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
  /** The complete turn; in a durable conversation's stream, a {@link ShownAssistantTurn}. */
  done: { turn: AssistantTurn }
  /** Sent in place of `done` when the stream fails. */
  error: WireError
}

/**
 * An assistant turn as a durable conversation shows it (DESIGN §9): in `GET
 * /v1/conversations/:id` and in the `done` of its stream, without its items, and with how long
 * it thought. A browser never sends it back: the relay keeps the conversation.
 */
export type ShownAssistantTurn = AssistantTurn & {
  /**
   * How long the answer thought, in whole ms, as the relay measured it: from its first thinking
   * event to its first text, tool call or end (the stop, for a stopped answer). Absent when it did
   * not think. The relay keeps it with the turn and never sends it to a provider.
   */
  thinkingMs?: number | undefined
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
