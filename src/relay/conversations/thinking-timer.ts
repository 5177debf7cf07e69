import type { AssistantTurn } from '../../core/conversation.ts'
import type { Event } from '../../core/events.ts'
import type { ShownAssistantTurn } from '../../core/wire.ts'

/** Times how long an answer thought. See {@link createThinkingTimer}. */
export type ThinkingTimer = {
  /** Notes an event of the answer, by its type, as it arrives. */
  note(type: Event['type']): void
  /**
   * Whole milliseconds from the first thinking event to the first event after it that is not
   * thinking (text, a tool call, `done`), or to now when none came yet (a stopped answer);
   * undefined for an answer that did not think.
   */
  thinkingMs(): number | undefined
}

/**
 * A timer of an answer's thinking, on the clock it is given (one clock: the relay's, so every tab
 * and every reload shows the same figure). A state machine that does no I/O.
 */
export function createThinkingTimer(now: () => number): ThinkingTimer {
  let from: number | undefined
  let to: number | undefined
  return {
    note(type) {
      if (to !== undefined) return
      if (type === 'thinking') from ??= now()
      else if (from !== undefined) to = now()
    },
    thinkingMs() {
      if (from === undefined) return undefined
      // One monotonic clock (`performance.now()` in the object): never negative.
      return Math.round((to ?? now()) - from)
    },
  }
}

/** The turn with its thinking time, when it thought. */
export function withThinkingTime(
  turn: AssistantTurn,
  thinkingMs: number | undefined,
): ShownAssistantTurn {
  return thinkingMs === undefined ? turn : { ...turn, thinkingMs }
}
