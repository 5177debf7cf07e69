import type { Conversation } from '../../src/index.ts'

/** What the demo remembers between visits. */
export type Saved = {
  model: string | undefined
  thinking: ThinkingLevel
  conversation: Conversation
  /** Per turn index: timings of that assistant turn (null for other turns). */
  stats: (AnswerStats | null)[]
}

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high'
export const THINKING_LEVELS: readonly ThinkingLevel[] = ['off', 'low', 'medium', 'high']

/** Timings of one answer, measured in the browser. */
export type AnswerStats = {
  /** From send to the first thinking or text. */
  ttftMs?: number | undefined
  /** From the first thinking to the first text (or the end). */
  thoughtMs?: number | undefined
}

const KEY = 'thinkwire-demo:v1'

const empty: Saved = {
  model: undefined,
  thinking: 'medium',
  conversation: { turns: [] },
  stats: [],
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Reads what was saved. The conversation is kept as it was (items included, opaque) once its
 * outline checks out; the relay validates every field when it is sent again.
 */
export function load(): Saved {
  let data: unknown
  try {
    data = JSON.parse(localStorage.getItem(KEY) ?? 'null')
  } catch {
    return empty
  }
  if (!isRecord(data)) return empty
  const { model, thinking, conversation, stats } = data
  const turns = isRecord(conversation) ? conversation['turns'] : undefined
  const valid = Array.isArray(turns) && turns.every((turn) => isRecord(turn))
  return {
    model: typeof model === 'string' ? model : undefined,
    thinking: THINKING_LEVELS.find((level) => level === thinking) ?? empty.thinking,
    conversation: valid ? (conversation as Conversation) : empty.conversation,
    stats: valid && Array.isArray(stats) ? stats.map((s) => (isRecord(s) ? s : null)) : [],
  }
}

export function save(saved: Saved): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(saved))
  } catch {
    // Storage full or disabled (private mode): the demo still works, it just forgets.
  }
}
