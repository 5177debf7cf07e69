import type { AssistantTurn, OpaqueItems } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { FieldTable } from '../../core/wire.ts'
import { fromBase64Url, toBase64Url } from '../base64url.ts'
import {
  array,
  fail,
  fields,
  isRecord,
  optional,
  own,
  record,
  string,
  validation,
  type FieldParser,
  type JsonRecord,
} from '../validate-json.ts'

/**
 * The part of a sealed assistant turn that travels in `reasoning_details`: exactly what the seal
 * covers (text, thinking, tool calls, items with their tag) and nothing else.
 */
export type SealedTurnRecord = {
  text: string
  thinking?: string | undefined
  toolCalls?: ToolCall[] | undefined
  /** The turn's items, `seal` included. */
  items: OpaqueItems
}

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
 * The two sides of the record, each a table over every field of {@link SealedTurnRecord}: a field
 * added to the record does not compile until both write and read it.
 */
const PICK: FieldTable<SealedTurnRecord, (turn: AssistantTurn) => unknown> = {
  text: (turn) => turn.text,
  thinking: (turn) => turn.thinking,
  toolCalls: (turn) => turn.toolCalls?.map(({ id, name, input }) => ({ id, name, input })),
  items: (turn) => {
    if (turn.items === undefined) return undefined
    const { provider, model, thinkingMode, data, seal } = turn.items
    return { provider, model, thinkingMode, data, seal }
  },
}

const PARSE: { readonly [K in keyof SealedTurnRecord]-?: FieldParser<SealedTurnRecord[K]> } = {
  text: (value, at) => string(value, at),
  thinking: optional((value, at) => string(value, at)),
  toolCalls: optional((value, at) =>
    array(value, at).map((call, j) => toolCall(call, `${at}[${j}]`)),
  ),
  items: (value, at) => items(value, at),
}

/**
 * The `reasoning_details` of a sealed assistant turn: one `reasoning.encrypted` entry holding the
 * turn's text, thinking, tool calls and items, so that an OpenAI client sending the message back
 * gives the relay the exact turn it sealed. Undefined for a turn without a seal (a relay without
 * seal keys sends none).
 */
export function encodeReasoningDetails(turn: AssistantTurn): ReasoningDetail[] | undefined {
  if (turn.items?.seal === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const [key, pick] of Object.entries(PICK)) {
    const value = pick(turn)
    if (value !== undefined) out[key] = value
  }
  return [{ type: TYPE, format: FORMAT, data: toBase64Url(utf8.encode(JSON.stringify(out))) }]
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
 * does not decode to a record of the right shape. Never throws. The record is rebuilt from known
 * fields only; `items.data` and tool inputs stay the values `JSON.parse` made. Whether the seal is
 * genuine is for the relay's sealer to say.
 */
export function decodeReasoningDetails(value: unknown): SealedTurnRecord | undefined {
  const entry = findReasoningEntry(value)
  const data = entry === undefined ? undefined : own(entry, 'data')
  const bytes = typeof data === 'string' ? fromBase64Url(data) : undefined
  if (bytes === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(utf8Strict.decode(bytes))
    const result = validation(() =>
      fields<SealedTurnRecord>(record(parsed, 'record'), 'record', PARSE),
    )
    return result.ok ? result.value : undefined
  } catch {
    // Invalid UTF-8, or text that is not JSON.
    return undefined
  }
}

function toolCall(value: unknown, at: string): ToolCall {
  const call = record(value, at)
  if (!Object.hasOwn(call, 'input')) fail(`${at}.input`, 'is required')
  return {
    id: string(own(call, 'id'), `${at}.id`, { nonEmpty: true }),
    name: string(own(call, 'name'), `${at}.name`, { nonEmpty: true }),
    input: call['input'],
  }
}

function items(value: unknown, at: string): OpaqueItems {
  const input = record(value, at)
  return {
    provider: string(own(input, 'provider'), `${at}.provider`, { nonEmpty: true }),
    model: string(own(input, 'model'), `${at}.model`, { nonEmpty: true }),
    thinkingMode: string(own(input, 'thinkingMode'), `${at}.thinkingMode`, { nonEmpty: true }),
    // Opaque: the very array that was parsed, never rebuilt.
    data: array(own(input, 'data'), `${at}.data`) as unknown[],
    // Only sealed turns are encoded, so a record without a seal was not written by a relay.
    seal: string(own(input, 'seal'), `${at}.seal`, { nonEmpty: true }),
  }
}

const utf8 = new TextEncoder()
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
