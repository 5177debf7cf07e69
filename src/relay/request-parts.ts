import type { Thinking, ToolSpec } from '../core/adapter.ts'
import type { AssistantTurn, UserPart, UserTurn } from '../core/conversation.ts'
import type { ToolCall } from '../core/events.ts'
import { describe, fail, oneOf, own, record, string, type JsonRecord } from './validate-json.ts'

/**
 * The pieces of a chat request that several dialects write alike, read once: each takes the
 * field's path in the dialect's own terms, and a refusal names it (see `fail`).
 */

/** A dialect's efforts, each as the relay's thinking level. */
export type Efforts = Readonly<Record<string, Exclude<Thinking, object>>>

/** The relay's thinking level for the effort at `field`, one of the dialect's `efforts`. */
export function effortLevel(value: unknown, field: string, efforts: Efforts): Efforts[string] {
  return efforts[oneOf(value, field, Object.keys(efforts))]!
}

/** A number, or a refusal naming `field`. */
export function number(value: unknown, field: string): number {
  if (typeof value !== 'number') fail(field, `must be a number, got ${describe(value)}`)
  return value
}

/** A boolean the client may leave out: undefined then. */
export function flag(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'boolean') fail(field, `must be a boolean, got ${describe(value)}`)
  return value
}

/** A member the client set: the official SDKs send `null` for "not set" on most optional fields. */
export function given(object: JsonRecord, key: string): unknown {
  const value = own(object, key)
  return value === null ? undefined : value
}

/** An image's `data:` URL: its media type and base64 data. */
const DATA_URL = /^data:(image\/[^;,]+);base64,(.*)$/is

/** An image part from a URL: an http(s) URL as it is, a `data:image/...;base64,` URL as its data. */
export function imageOfUrl(url: string, field: string): UserPart {
  if (!/^data:/i.test(url)) return { type: 'image', url }
  const match = DATA_URL.exec(url)
  if (match === null) fail(field, 'must be an http(s) URL or a data:image/...;base64, URL')
  return { type: 'image', mediaType: match[1]!.toLowerCase(), data: match[2]! }
}

/** A tool call's arguments, a JSON text; `''` (as some providers write no arguments) is `{}`. */
export function argumentsOf(text: string, field: string): unknown {
  try {
    return text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return fail(field, 'must be a JSON text')
  }
}

/**
 * A tool's spec from the object that holds its `name`, `description` and JSON schema (`schema`:
 * the member's name, and whether the API lets a tool without arguments leave it out).
 */
export function toolSpecOf(
  holder: JsonRecord,
  field: string,
  schema: { key: string; optional: boolean },
): ToolSpec {
  const parameters = given(holder, schema.key)
  const spec: ToolSpec = {
    name: string(own(holder, 'name'), `${field}.name`),
    parameters:
      parameters === undefined && schema.optional
        ? { type: 'object', properties: {} }
        : record(own(holder, schema.key), `${field}.${schema.key}`),
  }
  const description = given(holder, 'description')
  if (description !== undefined) spec.description = string(description, `${field}.description`)
  return spec
}

/**
 * A message's content as every dialect writes it: a string, or an array of its parts (`what`:
 * `content blocks`); anything else is refused, naming `field`.
 */
export function stringOrParts(value: unknown, field: string, what: string): string | unknown[] {
  if (typeof value !== 'string' && !Array.isArray(value))
    fail(field, `must be a string or an array of ${what}, got ${describe(value)}`)
  return value
}

/**
 * A message's text: a string, or an array of parts of the `types` whose texts are joined, a
 * `refusal` part's left out; null and absence are no text.
 */
export function textContent(value: unknown, field: string, types: readonly string[]): string {
  if (value === undefined || value === null) return ''
  const parts = stringOrParts(value, field, 'text parts')
  if (typeof parts === 'string') return parts
  let text = ''
  for (let j = 0; j < parts.length; j++) {
    const part = record(parts[j], `${field}[${j}]`)
    const type = oneOf(own(part, 'type'), `${field}[${j}].type`, types)
    if (type !== 'refusal') text += string(own(part, 'text'), `${field}[${j}].text`)
  }
  return text
}

/**
 * The name of the call a tool result at `field` answers by its id: each earlier call's name, by
 * id, is in `calls`; a result of no earlier call is refused, naming `what` made the calls.
 */
export function calledName(
  calls: ReadonlyMap<string, string>,
  callId: string,
  field: string,
  what: string,
): string {
  const name = calls.get(callId)
  if (name === undefined) fail(field, `${describe(callId)} matches no ${what}`)
  return name
}

/**
 * The assistant turn a client sent back as its text and tool calls alone, with no reasoning state:
 * what goes upstream when no sealed turn stands for it.
 */
export function plainTurn(text: string, toolCalls: ToolCall[]): AssistantTurn {
  const turn: AssistantTurn = {
    role: 'assistant',
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
  }
  if (toolCalls.length > 0) turn.toolCalls = toolCalls
  return turn
}

/** A user message's `content`: a string, or an array of parts read by `partOf`. */
export function userContent(
  content: unknown,
  field: string,
  partOf: (value: unknown, field: string) => UserPart,
): UserTurn {
  const parts = stringOrParts(content, field, 'parts')
  if (typeof parts === 'string') return { role: 'user', content: parts }
  return { role: 'user', content: parts.map((value, j) => partOf(value, `${field}[${j}]`)) }
}
