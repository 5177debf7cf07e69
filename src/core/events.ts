import type { AssistantTurn } from './conversation.ts'

/** A complete tool call: the model asks the app to run `name` with `input`. */
export type ToolCall = {
  /** Id the provider gave the call (or a stable one made up when it gave none). */
  id: string
  /** Name of the tool, as declared in `CallOptions.tools`. */
  name: string
  /** Arguments, already parsed from the provider's JSON. */
  input: unknown
}

/**
 * One event of a normalized stream. Every adapter yields these and nothing else:
 * `thinking` and `text` deltas in provider order, complete `tool-call`s, then exactly one `done`.
 */
export type Event =
  /** A piece of the model's visible reasoning. For display only; never replayed from here. */
  | { type: 'thinking'; text: string }
  /** A piece of the answer. */
  | { type: 'text'; text: string }
  /** A tool call whose arguments have been fully assembled. */
  | { type: 'tool-call'; call: ToolCall }
  /** The complete turn. Comes exactly once, last, and only when the stream succeeded. */
  | { type: 'done'; turn: AssistantTurn }

/** The `type` of an {@link Event}. */
export type EventType = Event['type']
