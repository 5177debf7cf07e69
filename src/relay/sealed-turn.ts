import type { AssistantTurn, OpaqueItems } from '../core/conversation.ts'
import type { ToolCall } from '../core/events.ts'
import type { FieldTable } from '../core/wire.ts'
import { fromBase64Url, toBase64Url } from './base64url.ts'
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
} from './validate-json.ts'

/**
 * The part of a sealed assistant turn that a dialect without a place for it carries through its
 * client (an OpenAI message's `reasoning_details`, a UI message's metadata): exactly what the
 * seal covers (text, thinking, tool calls, items with their tag) and nothing else.
 */
export type SealedTurnRecord = Pick<AssistantTurn, 'text' | 'thinking' | 'toolCalls'> & {
  /** The turn's items, `seal` included. */
  items: OpaqueItems
}

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
 * The record of a sealed turn as text a client keeps without reading: base64url of its UTF-8 JSON.
 * Undefined for a turn without a seal (a relay without seal keys sends none).
 */
export function encodeSealedTurn(turn: AssistantTurn): string | undefined {
  if (turn.items?.seal === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const [key, pick] of Object.entries(PICK)) {
    const value = pick(turn)
    if (value !== undefined) out[key] = value
  }
  return opaqueText(out)
}

/**
 * The record {@link encodeSealedTurn} wrote, or undefined when `data` does not decode to a record
 * of the right shape. Never throws. The record is rebuilt from known fields only; `items.data` and
 * tool inputs stay the values `JSON.parse` made. Whether the seal is genuine is for the relay's
 * sealer to say.
 */
export function decodeSealedTurn(data: unknown): SealedTurnRecord | undefined {
  return readOpaqueText(data, (parsed) =>
    fields<SealedTurnRecord>(record(parsed, 'record'), 'record', PARSE),
  )
}

/**
 * A sealed turn's items alone, seal included, as the same kind of text: the record of a dialect
 * whose client sends the turn's text, thinking and tool calls back in places of their own (a
 * Responses client, its output items), so that the record need not say them again. The seal still
 * covers them all: the turn rebuilt from what the client sent is what the sealer checks. Its cost
 * does not grow with the answer's text (about 3 µs where {@link encodeSealedTurn} takes 18 for
 * 4,000 characters). Undefined for a turn without a seal.
 */
export function encodeSealedItems(turn: AssistantTurn): string | undefined {
  if (turn.items?.seal === undefined) return undefined
  return opaqueText(PICK.items(turn))
}

/**
 * The items {@link encodeSealedItems} wrote, or undefined when `data` does not decode to items of
 * the right shape, seal included. Never throws.
 */
export function decodeSealedItems(data: unknown): OpaqueItems | undefined {
  return readOpaqueText(data, (parsed) => items(parsed, 'items'))
}

/** `value` as text a client keeps without reading: base64url of its UTF-8 JSON. */
function opaqueText(value: unknown): string {
  return toBase64Url(utf8.encode(JSON.stringify(value)))
}

/** What {@link opaqueText} wrote, read by `parse` (which throws `Invalid`), or undefined. */
function readOpaqueText<T>(data: unknown, parse: (parsed: unknown) => T): T | undefined {
  const bytes = typeof data === 'string' ? fromBase64Url(data) : undefined
  if (bytes === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(utf8Strict.decode(bytes))
    const result = validation(() => parse(parsed))
    return result.ok ? result.value : undefined
  } catch {
    // Invalid UTF-8, or text that is not JSON.
    return undefined
  }
}

/**
 * The sealed turn that stands for `sent`, the turn a client sent back, when `sealed` has its text
 * and tool calls (`what`: the client's words for them); else why it may not.
 */
export function sealedTurnFor(
  sealed: SealedTurnRecord,
  sent: AssistantTurn,
  what: { text: string; toolCalls: string },
): { ok: true; turn: AssistantTurn } | { ok: false; reason: string } {
  if (sealed.text !== sent.text) return { ok: false, reason: `its text is not ${what.text}` }
  if (!sameCalls(sealed.toolCalls ?? [], sent.toolCalls ?? []))
    return { ok: false, reason: `its tool calls are not ${what.toolCalls}` }
  return { ok: true, turn: turnOfRecord(sealed, sent) }
}

/**
 * The assistant turn of a record, exactly as sealed (so that the seal still covers it), with the
 * usage and stop reason of the turn it stands for, which the seal does not cover.
 */
export function turnOfRecord(
  sealed: SealedTurnRecord,
  rest: Pick<AssistantTurn, 'usage' | 'stopReason'>,
): AssistantTurn {
  const turn: AssistantTurn = {
    role: 'assistant',
    text: sealed.text,
    usage: rest.usage,
    stopReason: rest.stopReason,
    items: sealed.items,
  }
  if (sealed.thinking !== undefined) turn.thinking = sealed.thinking
  if (sealed.toolCalls !== undefined) turn.toolCalls = sealed.toolCalls
  return turn
}

function sameCalls(a: readonly ToolCall[], b: readonly ToolCall[]): boolean {
  return (
    a.length === b.length &&
    a.every((call, i) => {
      const other = b[i]!
      return call.id === other.id && call.name === other.name && sameJson(call.input, other.input)
    })
  )
}

/** Deep equality of two JSON values, key order aside. A stack, not recursion: inputs may nest deep. */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop()!
    if (x === y) continue
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]])
      continue
    }
    if (!isRecord(x) || !isRecord(y)) return false
    const keys = Object.keys(x)
    if (keys.length !== Object.keys(y).length) return false
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false
      stack.push([x[key], y[key]])
    }
  }
  return true
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
