import type { AssistantTurn, OpaqueItems } from '../../core/conversation.ts'
import {
  decodeSealedItems,
  decodeSealedTurn,
  encodeSealedItems,
  type SealedTurnRecord,
} from '../sealed-turn.ts'

/**
 * A `reasoning` output item as this relay writes it: `summary` holds the thinking of a summary
 * item, and `encrypted_content` the sealed items of the answer's last item.
 */
export type ReasoningItem = {
  id: string
  type: 'reasoning'
  summary: { type: 'summary_text'; text: string }[]
  encrypted_content?: string | undefined
  status: 'in_progress' | 'completed' | 'incomplete'
}

/**
 * What starts an `encrypted_content` this relay writes: the answer's items and their seal. A
 * record of another gateway, or OpenAI's own encrypted reasoning, is told apart before anything is
 * decoded.
 */
export const SEALED_PREFIX = 'thinkwire-v2.'

/**
 * What started the records of earlier versions, still read: the whole sealed turn (text, thinking,
 * tool calls and items), which a client may keep in a stored conversation.
 */
export const SEALED_TURN_PREFIX = 'thinkwire-v1.'

/**
 * The answer's last output item: a `reasoning` item with no summary whose `encrypted_content` is
 * the sealed turn's items with their seal. Its text, thinking and tool calls are in the answer's
 * other items, which a client sends back with it: the relay rebuilds the turn from them and its
 * seal says whether that is the turn it sealed. Undefined for a turn without a seal (a relay
 * without seal keys sends none).
 */
export function sealedReasoningItem(turn: AssistantTurn, id: string): ReasoningItem | undefined {
  const record = encodeSealedItems(turn)
  if (record === undefined) return undefined
  return {
    id,
    type: 'reasoning',
    summary: [],
    encrypted_content: `${SEALED_PREFIX}${record}`,
    status: 'completed',
  }
}

/** What a reasoning item's `encrypted_content` holds. */
export type SealedContent =
  /** None: a summary item, or one sent without its state. */
  | { type: 'none' }
  /** State this relay did not write (OpenAI's own, another gateway's). */
  | { type: 'foreign' }
  /** This relay's prefix, on text that does not decode to a record. */
  | { type: 'broken' }
  /** The answer's items and seal: the rest of the turn is in the answer's other items. */
  | { type: 'items'; items: OpaqueItems }
  /** The whole sealed turn, as earlier versions wrote it. */
  | { type: 'record'; record: SealedTurnRecord }

/**
 * Reads an `encrypted_content`. Never throws; whether the record's seal is genuine is for the
 * relay's sealer to say.
 */
export function readSealedContent(value: unknown): SealedContent {
  if (value === undefined || value === null) return { type: 'none' }
  if (typeof value !== 'string') return { type: 'foreign' }
  if (value.startsWith(SEALED_PREFIX)) {
    const items = decodeSealedItems(value.slice(SEALED_PREFIX.length))
    return items === undefined ? { type: 'broken' } : { type: 'items', items }
  }
  if (value.startsWith(SEALED_TURN_PREFIX)) {
    const record = decodeSealedTurn(value.slice(SEALED_TURN_PREFIX.length))
    return record === undefined ? { type: 'broken' } : { type: 'record', record }
  }
  return { type: 'foreign' }
}
