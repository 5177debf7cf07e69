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
  switch (event.type) {
    case 'text':
      return { ...state, text: state.text + event.text }
    case 'thinking':
      return { ...state, thinking: state.thinking + event.text }
    case 'tool-call':
      return { ...state, toolCalls: [...state.toolCalls, event.call] }
    case 'done':
      return { ...state, turn: event.turn }
    default:
      return assertNever(event)
  }
}

/**
 * The assistant turn for a stream that did not finish: what arrived so far, as plain text and
 * tool calls, with no provider items (so it is re-encoded, never replayed half).
 */
export function partialTurn(state: TurnState, stopReason: StopReason = 'aborted'): AssistantTurn {
  if (state.turn !== null) return state.turn
  const turn: AssistantTurn = {
    role: 'assistant',
    text: state.text,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason,
  }
  if (state.thinking !== '') turn.thinking = state.thinking
  if (state.toolCalls.length > 0) turn.toolCalls = [...state.toolCalls]
  return turn
}
