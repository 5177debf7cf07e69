import type { AssistantTurn } from '../../core/conversation.ts'
import { decodeSealedTurn, encodeSealedTurn, type SealedTurnRecord } from '../sealed-turn.ts'

/**
 * A `reasoning` output item as this relay writes it: `summary` holds the thinking of a summary
 * item, and `encrypted_content` the sealed turn of the answer's last item.
 */
export type ReasoningItem = {
  id: string
  type: 'reasoning'
  summary: { type: 'summary_text'; text: string }[]
  encrypted_content?: string | undefined
  status: 'in_progress' | 'completed' | 'incomplete'
}

/**
 * What starts an `encrypted_content` this relay wrote: a record of another gateway, or OpenAI's own
 * encrypted reasoning, is told apart before anything is decoded.
 */
export const SEALED_PREFIX = 'thinkwire-v1.'

/**
 * The answer's last output item: a `reasoning` item with no summary whose `encrypted_content` is
 * the sealed turn (text, thinking, tool calls and items with their seal), so that a client sending
 * its output back gives the relay the exact turn it sealed. Undefined for a turn without a seal (a
 * relay without seal keys sends none).
 */
export function sealedReasoningItem(turn: AssistantTurn, id: string): ReasoningItem | undefined {
  const record = encodeSealedTurn(turn)
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
  | { type: 'record'; record: SealedTurnRecord }

/**
 * Reads an `encrypted_content`. Never throws; whether the record's seal is genuine is for the
 * relay's sealer to say.
 */
export function readSealedContent(value: unknown): SealedContent {
  if (value === undefined || value === null) return { type: 'none' }
  if (typeof value !== 'string' || !value.startsWith(SEALED_PREFIX)) return { type: 'foreign' }
  const record = decodeSealedTurn(value.slice(SEALED_PREFIX.length))
  return record === undefined ? { type: 'broken' } : { type: 'record', record }
}
