import type { UserPart, UserTurn } from '../core/conversation.ts'
import { describe, fail, own, type JsonRecord } from './validate-json.ts'

/**
 * The pieces of a chat request that several dialects write alike, read once: each takes the
 * field's path in the dialect's own terms, and a refusal names it (see `fail`).
 */

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

/** A user message's `content`: a string, or an array of parts read by `partOf`. */
export function userContent(
  content: unknown,
  field: string,
  partOf: (value: unknown, field: string) => UserPart,
): UserTurn {
  if (typeof content === 'string') return { role: 'user', content }
  if (!Array.isArray(content))
    fail(field, `must be a string or an array of parts, got ${describe(content)}`)
  const parts: readonly unknown[] = content
  return { role: 'user', content: parts.map((value, j) => partOf(value, `${field}[${j}]`)) }
}

/**
 * A field path of `validateChatRequest` inside a turn: the turn's index in the conversation, and
 * the rest of the path (`.text`, `.toolCalls[0].input`, ...). Each dialect names it anew.
 */
export const TURN_FIELD = /^conversation\.turns\[(\d+)\](.*)$/s

/**
 * A call option's field path (`maxTokens`, `toolChoice.name`): the option, its name in a dialect
 * (`names`), and the rest of the path; undefined for a path of no option `names` lists.
 */
export function optionField(
  field: string,
  names: Readonly<Record<string, string>>,
): { option: string; name: string; rest: string } | undefined {
  const [, option = '', rest = ''] = /^([A-Za-z]+)(.*)$/s.exec(field) ?? []
  return Object.hasOwn(names, option) ? { option, name: names[option]!, rest } : undefined
}

/**
 * A refusal of `validateChatRequest` in a dialect's terms: its field as `rename` gives it, and its
 * message, which starts with the field, starting with the new name.
 */
export function renamedRefusal(
  error: { field: string; message: string },
  rename: (field: string) => string,
): { field: string; message: string } {
  const field = rename(error.field)
  const message = error.message.startsWith(error.field)
    ? `${field}${error.message.slice(error.field.length)}`
    : error.message
  return { field, message }
}
