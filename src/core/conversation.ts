import type { ToolCall } from './events.ts'

/** A conversation is plain JSON: store it, send it, persist it. */
export type Conversation = {
  /** System prompt, sent ahead of the turns. */
  system?: string | undefined
  /** The turns, oldest first. */
  turns: Turn[]
}

/** One turn of a {@link Conversation}, discriminated by `role`. */
export type Turn = UserTurn | AssistantTurn | ToolTurn

/** What the user said: plain text, or a list of text and image parts. */
export type UserTurn = {
  role: 'user'
  content: string | UserPart[]
}

/** A part of a user turn. Images are either inline base64 data or a URL. */
export type UserPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string }
  | { type: 'image'; url: string }

/** The results of the tool calls of the assistant turn before it. */
export type ToolTurn = {
  role: 'tool'
  results: ToolResult[]
}

/** The result of one tool call, matched to its call by `callId`. */
export type ToolResult = {
  /** `ToolCall.id` of the call this answers. */
  callId: string
  /** `ToolCall.name` of the call this answers. */
  name: string
  /** What the tool returned. Strings are sent as they are, anything else as JSON. */
  output: unknown
  /** True when the tool failed and `output` describes the failure. */
  isError?: boolean | undefined
}

/** Why the model stopped. */
export type StopReason =
  /** It finished its answer. */
  | 'stop'
  /** It ran out of output tokens. */
  | 'length'
  /** It wants tool results before going on. */
  | 'tool-calls'
  /** It declined to answer. */
  | 'refusal'
  /** The caller stopped it; the turn holds what had arrived by then. */
  | 'aborted'
  /** Any other reason the provider gave. */
  | 'other'

/** What an answer cites: a web page or a document the provider grounded it on. */
export type Source = {
  /** The page's address, when it has one. */
  url?: string | undefined
  /** The page's or document's title. */
  title?: string | undefined
  /** The passage cited, when the provider quotes it. */
  quote?: string | undefined
}

/** What a provider said about why it stopped, beyond the stop reason. */
export type StopDetails = {
  /** The provider's own word for it (Anthropic's refusal `category`, Gemini's `finishReason`, ...). */
  category?: string | undefined
  /** Its explanation, for display. */
  explanation?: string | undefined
}

/** Token counts of one turn. */
export type Usage = {
  /** Input tokens, including cached ones. */
  inputTokens: number
  /** Output tokens, including reasoning tokens. */
  outputTokens: number
  /** Of `outputTokens`, how many were spent on reasoning, when the provider says. */
  reasoningTokens?: number | undefined
  /** Of `inputTokens`, how many were read from the provider's prompt cache. */
  cacheReadTokens?: number | undefined
  /** Of `inputTokens`, how many were written to the provider's prompt cache. */
  cacheWriteTokens?: number | undefined
  /**
   * What the turn cost in US dollars, from these counts and the model's prices (set on `done`
   * when the adapter knows its model's prices; absent otherwise).
   */
  cost?: number | undefined
}

/** A complete assistant turn, as carried by the `done` event. */
export type AssistantTurn = {
  role: 'assistant'
  /** The whole answer text (may be empty, never a block list). */
  text: string
  /** The whole visible reasoning, when there was any. */
  thinking?: string | undefined
  /** The tool calls of this turn, in order. */
  toolCalls?: ToolCall[] | undefined
  /** Token counts. */
  usage: Usage
  /** Why the model stopped. */
  stopReason: StopReason
  /** What the provider said about why it stopped (a refusal's explanation, say), when it said more. */
  stopDetails?: StopDetails | undefined
  /** What the answer cites (web search results, grounding, citations), in the order given. */
  sources?: Source[] | undefined
  /**
   * The provider's own record of the turn, replayed verbatim to the same provider, model and
   * thinking mode. Absent on turns written by hand or cut short, which are replayed from `text`
   * and `toolCalls`.
   */
  items?: OpaqueItems | undefined
  /** Things the adapter changed or dropped, e.g. an option this model does not take. */
  warnings?: string[] | undefined
}

/**
 * Provider-native state of a turn, tagged with who produced it. Nothing outside the adapter that
 * produced it reads, edits, reorders or rebuilds `data`.
 */
export type OpaqueItems = {
  /** The adapter's `provider`. */
  provider: string
  /** The adapter's `model`. */
  model: string
  /** The thinking mode the turn was made with (see `thinkingModeOf`). */
  thinkingMode: string
  /** Provider-native records, opaque. */
  data: unknown[]
  /** HMAC set by a relay with `sealKeys`, checked when the turn comes back. */
  seal?: string | undefined
}
