import type { Conversation, Turn } from './conversation.ts'

/** Options of {@link trimConversation}. */
export type TrimOptions = {
  /** Keep at most this many turns. */
  maxTurns?: number | undefined
  /** Keep the estimated tokens of the turns at or under this. */
  maxTokens?: number | undefined
  /** @defaultValue characters of the turn's text, thinking, tool calls and results, divided by 4 */
  estimateTokens?: ((turn: Turn) => number) | undefined
}

/**
 * Shortens a conversation by dropping whole turns, oldest first, until it fits. The result always
 * starts with a user turn, never keeps a tool result without its call (or a call without its
 * result), and never edits a turn or its `items`: kept turns are the same objects. The last user
 * turn and what follows it are always kept, even when they alone do not fit.
 */
export function trimConversation(conversation: Conversation, options: TrimOptions): Conversation {
  const { turns } = conversation
  const estimate = options.estimateTokens ?? estimateTurnTokens
  const maxTurns = options.maxTurns ?? Number.POSITIVE_INFINITY
  const maxTokens = options.maxTokens ?? Number.POSITIVE_INFINITY

  // Where the conversation may start: a user turn (providers want one first), which is also never
  // a place between a call and its result, since results are 'tool' turns.
  const starts: number[] = []
  turns.forEach((turn, i) => {
    if (turn.role === 'user') starts.push(i)
  })
  const lastStart = starts.at(-1)
  if (lastStart === undefined) return conversation

  // Suffix sums of the estimates, so each candidate start is checked in constant time.
  const tokensFrom = Array.from({ length: turns.length + 1 }, () => 0)
  for (let i = turns.length - 1; i >= 0; i--)
    tokensFrom[i] = tokensFrom[i + 1]! + estimate(turns[i]!)

  if (turns.length <= maxTurns && tokensFrom[0]! <= maxTokens) return conversation
  for (const start of starts) {
    if (start === lastStart) break
    if (turns.length - start <= maxTurns && tokensFrom[start]! <= maxTokens) {
      return start === 0 ? conversation : { ...conversation, turns: turns.slice(start) }
    }
  }
  return lastStart === 0 ? conversation : { ...conversation, turns: turns.slice(lastStart) }
}

function estimateTurnTokens(turn: Turn): number {
  let chars = 0
  if (turn.role === 'user') {
    chars =
      typeof turn.content === 'string' ? turn.content.length : JSON.stringify(turn.content).length
  } else if (turn.role === 'assistant') {
    chars = turn.text.length + (turn.thinking?.length ?? 0)
    if (turn.toolCalls !== undefined) chars += JSON.stringify(turn.toolCalls).length
  } else {
    chars = JSON.stringify(turn.results).length
  }
  return Math.ceil(chars / 4) + 4
}
