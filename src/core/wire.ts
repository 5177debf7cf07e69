import type { CallOptions } from './adapter.ts'
import type { AssistantTurn, Conversation, Turn, UserTurn } from './conversation.ts'
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

/**
 * The `data` of each SSE event of a durable conversation's stream (DESIGN §9), by event name: the
 * relay's events, each answer's `turn` first, and the two that end or start a stream out of turn.
 */
export type WireConversationEvents = WireEvents & {
  /**
   * The user or tool turn an answer answers. A regenerate's says `replaces`: its answer takes the
   * place of every turn after this one (the last answer, or every step of an agent's loop) once it
   * is complete. An edit's (DESIGN §14) is a new version of the user turn at index `at` of the
   * active path: the turns from there on are replaced by it and its answer.
   */
  turn: { turn: ShownTurn; replaces?: true | undefined; at?: number | undefined }
  /**
   * The conversation as it is now (its id stands for every event up to it), and whether an answer
   * is in flight: the first event of a resume from before what the relay's log holds, and what
   * follows a change no other event says: a stop of a tool loop that waited (its stored tool turn
   * starts no answer), a switch to another branch, an edit (or a regenerate of a loop's steps)
   * that was stopped or failed, versions dropped for room. A resume's also holds the queue as it
   * now is, and what the tool loop waits on as `GET` lists it (`pending`, absent when the loop has
   * no tool step: nothing waits): the events that changed them may be gone from the log; while a
   * model call runs, or the server tools of the step it made, its conversation is as it was just
   * before that call's `turn`, which follows and says where the answer goes (a regenerate's in
   * place of the answer it replaces, which stays on the active path until then). So does the
   * first event of the stream of a message, a regenerate or an edit whose client said a last event
   * (`Last-Event-ID`) before some event that came ahead of its `turn`: the conversation as it was
   * just before that `turn`, which follows, with `streaming` true.
   */
  reset: {
    conversation: ShownConversation
    streaming: boolean
    queue?: UserTurn[] | undefined
    pending?: WirePending | undefined
  }
  /**
   * A message posted while an answer ran (or a loop waited) was queued, at `position` (from 1):
   * it is sent when the answers before it end. Every follower of the conversation gets it.
   */
  queued: { turn: UserTurn; position: number }
  /**
   * The queue as it now is, after a change other than a message queued: its first message was
   * sent (its `turn` follows) or refused (an `error` follows), or the queue was cleared.
   */
  queue: { queue: UserTurn[] }
  /** The last event of a stream the relay closed before its answer's end: resume after `lastEventId`. */
  reconnect: { reason: ReconnectReason; lastEventId: number }
  /** A server tool's call waits for a person's decision (`POST .../approvals/:approvalId`). */
  'tool-approval': WireApproval
  /**
   * A result the relay stored for a call of the loop: a server tool's output, a denial, or a call
   * answered as not run (the step limit, a stop, an expired approval, a restart). Results a client
   * sends come in its tool turn's `turn` event instead.
   */
  'tool-result': WireToolResult
  /**
   * The answer in flight was cut by a restart of the relay: `retried`, it runs again from its start
   * (what a client showed of it is dropped); else what was stored of it is kept as a stopped turn,
   * whose `done` follows.
   */
  interrupted: { retried: boolean }
}

/**
 * Where a turn is among its versions (DESIGN §14), 0-based: a regenerate adds a version of an
 * answer, an edit one of a user turn, and `POST .../branch` makes another active.
 */
export type WireBranch = { index: number; count: number }

/** A turn as a durable conversation shows it: with its `branch` when it has other versions. */
export type ShownTurn = Turn & {
  /** Where it is among its versions; absent when it has none. */
  branch?: WireBranch | undefined
}

/** A durable conversation as it shows: the active path of its turns, and its system. */
export type ShownConversation = Omit<Conversation, 'turns'> & { turns: ShownTurn[] }

/** A call that waits for a person's decision, in `tool-approval` and in `GET`'s `pending`. */
export type WireApproval = {
  /** Single use, bound to this call and its exact input: `POST .../approvals/:approvalId`. */
  approvalId: string
  callId: string
  /** The server tool's name. */
  name: string
  input: unknown
  /** ISO 8601: past it the call is answered as not run. */
  expiresAt: string
}

/** A `tool-result` event's data: one result of a {@link ToolCall}, `isError` always said. */
export type WireToolResult = { callId: string; name: string; output: unknown; isError: boolean }

/** What a conversation's tool loop waits on: approvals, and its client's tool calls. */
export type WirePending = {
  approvals: WireApproval[]
  calls: ToolCall[]
  /**
   * The results its step already has (its server tools', decisions', its client's), in the order
   * of the calls: a client shows them beside their calls until the step's tool turn holds them.
   * Always sent by this relay; absent from older ones (a client then keeps what their
   * `tool-result` events said).
   */
  results?: WireToolResult[] | undefined
}

/** The body of `POST /v1/conversations/:id/approvals/:approvalId`. */
export type WireApprovalDecision = {
  approve: boolean
  /** Why, for a denial: the model reads it with the error result. */
  reason?: string | undefined
}

/**
 * What a message or regenerate body adds to the call options for the loop that runs in the
 * conversation: the relay's server tools it may call, and its most model calls.
 */
export type WireLoopOptions = {
  /** Names of the relay's server tools the model may call. @defaultValue none */
  serverTools?: string[] | undefined
  /** Most model calls of the loop. @defaultValue 8, as `runTools` */
  maxSteps?: number | undefined
}

/**
 * The body of `POST /v1/conversations/:id/edit` (DESIGN §14): a new version of the user turn at
 * index `turn` of the active path, answered as a message is (the same options).
 */
export type WireEditRequest = {
  model: string
  /** The index on the active path of the user turn it edits. */
  turn: number
  /** The new version's content. */
  content: UserTurn['content']
} & WireCallOptions &
  WireLoopOptions

/** The body of `POST /v1/conversations/:id/branch`: makes version `index` of turn `turn` active. */
export type WireBranchRequest = {
  /** The index on the active path of a turn with versions. */
  turn: number
  /** Which of its versions, 0-based (its `branch.index`). */
  index: number
}

/** The body of `PATCH /v1/conversations/:id`: a new title. */
export type WireRenameRequest = { title: string }

/** What `POST .../messages` answers (202) when the message is queued: its place, from 1. */
export type WireQueuedMessage = { queued: number }

/** One conversation of `GET /v1/conversations?export=true`. */
export type WireExportedConversation = {
  id: string
  title: string | null
  createdAt: string
  updatedAt: string
  /** Its active path and system, as `GET` shows them. */
  conversation: ShownConversation
  /**
   * Every turn it stores, on every branch, in the order stored (display form): `parent` is the
   * `id` of the turn it follows (null for a first turn), and `active` says whether it is on the
   * active path.
   */
  turns: { id: number; parent: number | null; active: boolean; turn: Turn }[]
  /** Its queued messages. */
  queue: UserTurn[]
}

/** The body of `GET /v1/conversations?export=true`: this client's conversations, whole. */
export type WireConversationExport = { conversations: WireExportedConversation[] }

/** The body of `GET /v1/conversations/:id` (DESIGN §9): the conversation as a browser sees it. */
export type WireConversationRead = {
  id: string
  /**
   * The turns of its active path without items (assistant turns as {@link ShownAssistantTurn}),
   * each with its `branch` when it has other versions, and its system.
   */
  conversation: ShownConversation
  /** An answer is in flight: its events follow `lastEventId` on the stream. */
  streaming: boolean
  lastEventId: number
  /** How the last answer failed, until the next one starts. */
  lastError?: { kind: string; message: string } | undefined
  /** What the conversation's tool loop waits on (or runs besides), when it has a tool step. */
  pending?: WirePending | undefined
  /** The messages queued while an answer runs, in the order they will be sent; absent when none. */
  queue?: UserTurn[] | undefined
}

/**
 * Why the relay ends a stream before its answer's `done` or `error`, in its `reconnect` event:
 * `behind`, its client fell too far behind; `closed`, the conversation's streams were closed (a
 * delete). The client resumes from the last event it saw.
 */
export type ReconnectReason = 'behind' | 'closed'

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
