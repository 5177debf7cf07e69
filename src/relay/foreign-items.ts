import type { Conversation, Turn } from '../core/conversation.ts'
import { matchesTag, type ReplayTag } from '../kit/replay.ts'

/**
 * The assistant turns whose items an adapter tagged `tag` does not replay (another provider, model
 * or thinking mode made them, so it sends those turns from their text and tool calls: DESIGN §2),
 * each with a note for the log that names only the call's tag (a turn's own tag may be the
 * client's text); with `drop`, the conversation without those items, for a dialect whose clients
 * see no other sign of why the reasoning did not carry over.
 */
export function foreignItems(
  conversation: Conversation,
  tag: ReplayTag,
  drop: boolean,
): { conversation: Conversation; notes: string[] } {
  const notes: string[] = []
  const call = `${tag.provider}/${tag.model} (thinking ${tag.thinkingMode})`
  let turns: Turn[] | undefined
  for (let i = 0; i < conversation.turns.length; i++) {
    const turn = conversation.turns[i]!
    if (turn.role !== 'assistant' || turn.items === undefined || matchesTag(turn.items, tag))
      continue
    notes.push(
      `conversation.turns[${i}].items ${drop ? 'dropped' : 'not replayed'}: made by another provider, model or thinking mode than ${call}, so the turn was sent from its text and tool calls`,
    )
    if (!drop) continue
    turns ??= [...conversation.turns]
    const { items: _items, ...plain } = turn
    turns[i] = plain
  }
  return {
    conversation: turns === undefined ? conversation : { ...conversation, turns },
    notes,
  }
}
