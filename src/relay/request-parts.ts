import type { UserPart, UserTurn } from '../core/conversation.ts'
import { describe, fail, Invalid, isRecord, own, type JsonRecord } from './validate-json.ts'

/**
 * The pieces of a chat request that several dialects write alike, read once: each takes the
 * field's path in the dialect's own terms, and a refusal names it (see `fail`).
 */

/** A request a dialect refused, in its own terms. */
export type Refusal = {
  ok: false
  /** The field at fault as the dialect names it (`messages[3].content[1]`); none for the body. */
  field?: string | undefined
  /** Starts with the field's path, as the relay's own validation messages do. */
  message: string
  /** OpenAI's `code`, when one more precise than the status's applies (`unknown_parameter`). */
  code?: string | undefined
}

/** A fault that OpenAI's errors give a `code` of its own. */
export class CodedInvalid extends Invalid {
  readonly code: string

  constructor(field: string, problem: string, code: string) {
    super(field, problem)
    this.code = code
  }
}

/**
 * Reads a parsed JSON body with `translate`, which throws `Invalid` at the first fault: the
 * refusal names its field (with its code, for a {@link CodedInvalid}). A body that is not an
 * object is refused as `bodyField` (none by default). Never throws on a parsed JSON body.
 */
export function translateBody<T>(
  body: unknown,
  translate: (body: JsonRecord) => T,
  bodyField?: string,
): T | Refusal {
  if (!isRecord(body)) {
    return {
      ok: false,
      field: bodyField,
      message: `body must be a JSON object, got ${describe(body)}`,
    }
  }
  try {
    return translate(body)
  } catch (error) {
    if (!(error instanceof Invalid)) throw error
    const refusal: Refusal = { ok: false, field: error.field, message: error.message }
    if (error instanceof CodedInvalid) refusal.code = error.code
    return refusal
  }
}

/**
 * What a dialect does with the top-level field `key` of a request: its use in `uses`, the table of
 * every field of `api` (`the Responses API`). Any other field is refused (`unknown_parameter`), so
 * that a client cannot reach a key, a base URL or a provider option, and a misspelt field does not
 * pass silently.
 */
export function fieldUse<Use>(key: string, uses: Readonly<Record<string, Use>>, api: string): Use {
  if (!Object.hasOwn(uses, key)) {
    throw new CodedInvalid(
      describe(key).slice(1, -1),
      `is not a field of ${api} (a relay client picks no key, base URL or provider option)`,
      'unknown_parameter',
    )
  }
  return uses[key]!
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
