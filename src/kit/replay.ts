import type { Thinking } from '../core/adapter.ts'
import type { AssistantTurn, OpaqueItems, ToolTurn, Turn, UserTurn } from '../core/conversation.ts'

/** Who made a turn's items: the adapter's provider and model, and the thinking mode of the call. */
export type ReplayTag = { provider: string; model: string; thinkingMode: string }

/**
 * The thinking mode as a stable string, for the items tag: `'default'` when not set, the level,
 * or `'budget-N'`.
 */
export function thinkingModeOf(thinking: Thinking | undefined): string {
  if (thinking === undefined) return 'default'
  if (typeof thinking === 'string') return thinking
  return `budget-${thinking.budgetTokens}`
}

/** True when `items` were made by the same provider, model and thinking mode as `tag`. */
export function matchesTag(items: OpaqueItems | undefined, tag: ReplayTag): items is OpaqueItems {
  return (
    items !== undefined &&
    items.provider === tag.provider &&
    items.model === tag.model &&
    items.thinkingMode === tag.thinkingMode
  )
}

/** How an adapter encodes each kind of turn. */
export type TurnEncoder<T> = {
  user(turn: UserTurn, index: number): T
  tool(turn: ToolTurn, index: number): T
  /** A turn this adapter made with the same model and thinking mode: send `items.data` verbatim. */
  replay(items: OpaqueItems, turn: AssistantTurn, index: number): T
  /** Any other assistant turn: re-encode `text` and `toolCalls`, without reasoning. */
  reencode(turn: AssistantTurn, index: number): T
}

/**
 * Encodes turns under the replay policy: an assistant turn whose items carry `tag` is replayed
 * verbatim, every other assistant turn is re-encoded from its normalized fields.
 */
export function encodeTurns<T>(
  turns: readonly Turn[],
  tag: ReplayTag,
  encoder: TurnEncoder<T>,
): T[] {
  const out: T[] = []
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!
    if (turn.role === 'user') out.push(encoder.user(turn, i))
    else if (turn.role === 'tool') out.push(encoder.tool(turn, i))
    else if (matchesTag(turn.items, tag)) out.push(encoder.replay(turn.items, turn, i))
    else out.push(encoder.reencode(turn, i))
  }
  return out
}
