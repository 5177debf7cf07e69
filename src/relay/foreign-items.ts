import type { Conversation, OpaqueItems, Turn } from '../core/conversation.ts'
import { matchesTag, type ReplayTag } from '../kit/replay.ts'

/**
 * The conversation without the items the adapter tagged `tag` would not replay (those another
 * provider, model or thinking mode made), and a warning for each turn they were dropped from. The
 * adapter would re-encode those turns from their text and tool calls anyway; dropping the items
 * says so.
 */
export function dropForeignItems(
  conversation: Conversation,
  tag: ReplayTag,
): { conversation: Conversation; warnings: string[] } {
  const warnings: string[] = []
  // Not a type guard: a turn it says no to still has its items.
  const replayed = (items: OpaqueItems): boolean => matchesTag(items, tag)
  let turns: Turn[] | undefined
  for (let i = 0; i < conversation.turns.length; i++) {
    const turn = conversation.turns[i]!
    if (turn.role !== 'assistant' || turn.items === undefined || replayed(turn.items)) continue
    turns ??= [...conversation.turns]
    const { items, ...plain } = turn
    turns[i] = plain
    const made = `${items.provider}/${items.model} (thinking ${items.thinkingMode})`
    const call = `${tag.provider}/${tag.model} (thinking ${tag.thinkingMode})`
    warnings.push(
      `conversation.turns[${i}].items dropped: ${made} made them and this call goes to ${call}, so the turn was sent from its text and tool calls`,
    )
  }
  return {
    conversation: turns === undefined ? conversation : { ...conversation, turns },
    warnings,
  }
}
