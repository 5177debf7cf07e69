import { assertNever } from './assert-never.ts'
import type { AssistantTurn } from './conversation.ts'
import type { Event, ToolCall } from './events.ts'

/**
 * The tool calls of a stream so far, newest first: each call adds one link in front of the list
 * it was given, so a state never copies the calls before it, and every earlier state keeps its own.
 */
export type CallList = { readonly call: ToolCall; readonly before: CallList | null }

/** What a stream has produced so far. */
export type TurnState = {
  readonly text: string
  readonly thinking: string
  /** The tool calls, newest first, or null before the first (read them with {@link toolCallsOf}). */
  readonly calls: CallList | null
  /** The final turn once `done` arrived, else null. */
  readonly turn: AssistantTurn | null
}

/** The state before the first event. */
export const initialTurnState: TurnState = { text: '', thinking: '', calls: null, turn: null }

/**
 * Folds one event into the state. Pure: returns a new state and never changes one it was given.
 * Each event costs one small object whatever came before it: strings are appended (engines keep
 * them as ropes) and a tool call is linked in front of the calls so far, so an answer of K calls
 * costs O(K), not the O(K²) of copying the list at each call.
 */
export function applyEvent(state: TurnState, event: Event): TurnState {
  if (state.turn) throw new TypeError(`Event '${event.type}' arrived after 'done'`)
  // Object literals rather than spreads: this runs once per event of every stream.
  const { text, thinking, calls } = state
  switch (event.type) {
    case 'text':
      return { text: text + event.text, thinking, calls, turn: null }
    case 'thinking':
      return { text, thinking: thinking + event.text, calls, turn: null }
    case 'tool-call':
      return { text, thinking, calls: { call: event.call, before: calls }, turn: null }
    case 'done':
      return { text, thinking, calls, turn: event.turn }
    default:
      return assertNever(event)
  }
}

/** The tool calls of a state in the order they arrived, as a new array. */
export function toolCallsOf(state: TurnState): ToolCall[] {
  const calls: ToolCall[] = []
  for (let link = state.calls; link; link = link.before) calls.push(link.call)
  return calls.toReversed()
}

/**
 * The assistant turn of what arrived plus the `rest` of its fields, which the events do not carry,
 * with its fields in the order of `AssistantTurn` (so a turn reads, and serializes, the same
 * wherever it was made).
 */
export function turnOf(
  state: TurnState,
  rest: Omit<AssistantTurn, 'role' | 'text' | 'thinking' | 'toolCalls'>,
): AssistantTurn {
  return {
    role: 'assistant',
    text: state.text,
    ...(state.thinking && { thinking: state.thinking }),
    ...(state.calls && { toolCalls: toolCallsOf(state) }),
    ...rest,
  }
}

/**
 * The assistant turn for a stream that did not finish: what arrived so far, as plain text and
 * tool calls, with no provider items (so it is re-encoded, never replayed half), `aborted`.
 */
export function partialTurn(state: TurnState): AssistantTurn {
  return (
    state.turn ??
    turnOf(state, { usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'aborted' })
  )
}
