import { isRecord } from '../../kit/json.ts'

/** How a turn ended, as far as what it can send back depends on it. */
export type TurnEnd = {
  /** The output limit cut the turn short (`max_tokens`, `model_context_window_exceeded`). */
  cut: boolean
  /** The API paused the turn (`pause_turn`): it goes back as it is, to be continued. */
  paused: boolean
}

/** The blocks the API takes back, and how many thinking blocks were left out, by why. */
export type Replayable<T> = { blocks: T[]; unsigned: number; trailing: number }

/**
 * A turn's content blocks as the API takes them back in a later request. Left out: a text block
 * without text (one that got no delta: a stop sequence matched at once, or a compatible server
 * sent it so), which the API refuses; in a cut turn, a thinking block without its signature (the
 * limit fell inside it, before its `signature_delta`), which the API refuses too; and, unless the
 * turn is paused, the thinking it ends with, since the API refuses an assistant message whose last
 * block is thinking. A signed thinking block with no text (`display: 'omitted'`) is kept.
 */
export function replayableBlocks<T>(blocks: readonly T[], end: TurnEnd): Replayable<T> {
  let unsigned = 0
  const kept = blocks.filter((block) => {
    if (!isRecord(block)) return true
    if (block['type'] === 'text') return typeof block['text'] === 'string' && block['text'] !== ''
    if (!end.cut || block['type'] !== 'thinking' || isSigned(block['signature'])) return true
    unsigned++
    return false
  })
  let last = kept.length
  if (!end.paused) while (last > 0 && isThinking(kept[last - 1])) last--
  return { blocks: kept.slice(0, last), unsigned, trailing: kept.length - last }
}

function isSigned(signature: unknown): boolean {
  return typeof signature === 'string' && signature !== ''
}

function isThinking(block: unknown): boolean {
  return isRecord(block) && (block['type'] === 'thinking' || block['type'] === 'redacted_thinking')
}
