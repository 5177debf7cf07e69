import { assertNever } from './assert-never.ts'
import type { AssistantTurn, StopReason } from './conversation.ts'
import type { Event, ToolCall } from './events.ts'

/** What a stream has produced so far. */
export type TurnState = {
  readonly text: string
  readonly thinking: string
  readonly toolCalls: readonly ToolCall[]
  /** The final turn once `done` arrived, else null. */
  readonly turn: AssistantTurn | null
}

/** The state before the first event. */
export const initialTurnState: TurnState = { text: '', thinking: '', toolCalls: [], turn: null }

/**
 * Folds one event into the state. Pure: returns a new state and never mutates its input.
 * Strings are appended (engines keep them as ropes), and the tool-call list is only copied when a
 * call arrives, so a long stream costs one small object per event.
 */
export function applyEvent(state: TurnState, event: Event): TurnState {
  if (state.turn !== null) throw new TypeError(`Event '${event.type}' arrived after 'done'`)
  // Object literals rather than spreads: this runs once per event of every stream.
  const { text, thinking, toolCalls } = state
  switch (event.type) {
    case 'text':
      return { text: text + event.text, thinking, toolCalls, turn: null }
    case 'thinking':
      return { text, thinking: thinking + event.text, toolCalls, turn: null }
    case 'tool-call':
      return { text, thinking, toolCalls: [...toolCalls, event.call], turn: null }
    case 'done':
      return { text, thinking, toolCalls, turn: event.turn }
    default:
      return assertNever(event)
  }
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
    ...(state.thinking === '' ? {} : { thinking: state.thinking }),
    ...(state.toolCalls.length === 0 ? {} : { toolCalls: [...state.toolCalls] }),
    ...rest,
  }
}

/**
 * The assistant turn for a stream that did not finish: what arrived so far, as plain text and
 * tool calls, with no provider items (so it is re-encoded, never replayed half).
 */
export function partialTurn(state: TurnState, stopReason: StopReason = 'aborted'): AssistantTurn {
  return state.turn ?? turnOf(state, { usage: { inputTokens: 0, outputTokens: 0 }, stopReason })
}
