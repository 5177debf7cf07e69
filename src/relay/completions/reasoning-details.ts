import type { AssistantTurn } from '../../core/conversation.ts'
import { decodeSealedTurn, encodeSealedTurn, type SealedTurnRecord } from '../sealed-turn.ts'
import { isRecord, own, type JsonRecord } from '../validate-json.ts'

export type { SealedTurnRecord }

/** One entry of a Chat Completions message's `reasoning_details`, as this relay writes it. */
export type ReasoningDetail = {
  type: 'reasoning.encrypted'
  format: 'thinkwire-v1'
  /** base64url of the UTF-8 JSON of a {@link SealedTurnRecord}. */
  data: string
}

const TYPE = 'reasoning.encrypted'
const FORMAT = 'thinkwire-v1'

/**
 * The `reasoning_details` of a sealed assistant turn: one `reasoning.encrypted` entry holding the
 * turn's text, thinking, tool calls and items, so that an OpenAI client sending the message back
 * gives the relay the exact turn it sealed. Undefined for a turn without a seal (a relay without
 * seal keys sends none).
 */
export function encodeReasoningDetails(turn: AssistantTurn): ReasoningDetail[] | undefined {
  const data = encodeSealedTurn(turn)
  return data === undefined ? undefined : [{ type: TYPE, format: FORMAT, data }]
}

/**
 * The first `thinkwire-v1` entry of a `reasoning_details` value, or undefined when it has none
 * (entries of other formats, from other gateways, are skipped).
 */
export function findReasoningEntry(value: unknown): JsonRecord | undefined {
  if (!Array.isArray(value)) return undefined
  return value.find(
    (entry): entry is JsonRecord =>
      isRecord(entry) && own(entry, 'type') === TYPE && own(entry, 'format') === FORMAT,
  )
}

/**
 * The sealed turn record in a message's `reasoning_details`, or undefined when it holds none or it
 * does not decode to a record of the right shape. Never throws (see `decodeSealedTurn`).
 */
export function decodeReasoningDetails(value: unknown): SealedTurnRecord | undefined {
  const entry = findReasoningEntry(value)
  return entry === undefined ? undefined : decodeSealedTurn(own(entry, 'data'))
}
