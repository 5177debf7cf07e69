import type { AssistantTurn } from '../../core/conversation.ts'
import { decodeSealedTurn, encodeSealedTurn, type SealedTurnRecord } from '../sealed-turn.ts'

/**
 * How the signature of the block that carries a sealed turn starts: Anthropic's own signatures are
 * base64, which holds no `.`, so neither a client nor the relay can take one for the other.
 */
const PREFIX = 'thinkwire-v1.'

/**
 * The block that carries a sealed answer back and forth: a thinking block with empty text whose
 * `signature` is the sealed turn record. Anthropic's clients keep a thinking block's signature as
 * they were given it and send the block back with the message, which is what the record needs.
 */
export type SealedBlock = { type: 'thinking'; thinking: ''; signature: string }

/** The block of a sealed turn, or undefined for a turn without a seal (a relay without seal keys). */
export function sealedBlock(turn: AssistantTurn): SealedBlock | undefined {
  const record = encodeSealedTurn(turn)
  return record === undefined
    ? undefined
    : { type: 'thinking', thinking: '', signature: PREFIX + record }
}

/** Whether a thinking block's `signature` is one the relay wrote for a sealed turn. */
export function isSealedSignature(signature: unknown): signature is string {
  return typeof signature === 'string' && signature.startsWith(PREFIX)
}

/**
 * The sealed turn record in such a signature, or undefined when it does not decode to one (see
 * `decodeSealedTurn`). Never throws.
 */
export function sealedRecordOf(signature: string): SealedTurnRecord | undefined {
  return isSealedSignature(signature) ? decodeSealedTurn(signature.slice(PREFIX.length)) : undefined
}
