import type { JSONSchema } from '../../core/adapter.ts'

/** What the mock makes a tool call's arguments from. */
export type ArgumentSource = {
  /** The user's text, with the tool's name taken out. */
  text: string
  /** The time that `date-time` and `date` strings hold. */
  now: Date
}

/** What filling one schema reads: the text, its quoted phrases and numbers, each used in turn. */
type Context = {
  text: string
  quoted: string[]
  numbers: number[]
  now: Date
  /** How many quoted phrases and numbers the properties filled so far took. */
  taken: { quoted: number; numbers: number }
}

/** The deepest nesting filled: past it objects stay empty (so no odd schema can run away). */
const MAX_DEPTH = 16

/**
 * Arguments for a tool, made from its JSON Schema (`parameters`) and the user's text, so that they
 * validate against the common schemas. Every required property is filled, and an optional one when
 * the text gives it a value (`city: Paris`, `unit="celsius"`), mentions its name ("for 3 days") or
 * one of its `enum` members, or its schema has a `const` or a `default`. A value is, by schema:
 * - `const`; else the value the text gives the property; else `default`;
 * - `enum`: the member the text mentions, else the first;
 * - strings: the text's quoted phrases in turn (the last one repeating), else the whole text, cut
 *   or padded to `maxLength`/`minLength`; formats `date-time`, `date` and `time` hold `now`,
 *   `email`, `uri` and `uuid` a placeholder;
 * - numbers and integers: the text's numbers in turn (the last one repeating), else 0, kept
 *   within the bounds;
 * - booleans: `false`, unless the text gives `true` or `yes`;
 * - arrays: `minItems` elements (one when the text gives a value); objects: recursively;
 *   `anyOf`/`oneOf`: the first branch that is not `null`; `allOf`: the branches merged.
 * A schema it cannot read gives `{}`: it never throws.
 */
export function toolArguments(parameters: JSONSchema, source: ArgumentSource): JsonObject {
  try {
    const context: Context = {
      text: source.text,
      quoted: [...source.text.matchAll(/"([^"]+)"|“([^”]+)”/g)]
        .map((m) => (m[1] ?? m[2])!.trim())
        .filter((phrase) => phrase !== ''),
      numbers: [...source.text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0])),
      now: source.now,
      taken: { quoted: 0, numbers: 0 },
    }
    const value = fill(parameters, context, undefined, 0)
    return isRecord(value) ? value : {}
  } catch {
    return {}
  }
}

/** A JSON object. */
export type JsonObject = { [key: string]: unknown }

/** A value for `schema`; `named` is what the text gave this property as `name: value`. */
function fill(
  schema: unknown,
  context: Context,
  named: string | undefined,
  depth: number,
): unknown {
  // `true`, or no schema at all: anything goes.
  if (!isRecord(schema)) return named ?? context.text
  if (Object.hasOwn(schema, 'const')) return schema['const']
  const choices = Array.isArray(schema['enum']) ? schema['enum'] : []
  if (choices.length > 0) {
    const mentioned = choices.find((choice) => mentionedIn(named ?? context.text, choice))
    return mentioned ?? schema['default'] ?? choices[0]
  }
  if (named === undefined && schema['default'] !== undefined) return schema['default']
  const branches = schema['anyOf'] ?? schema['oneOf']
  if (Array.isArray(branches) && branches.length > 0) {
    const { anyOf: _any, oneOf: _one, ...rest } = schema
    const branch: unknown =
      branches.find((b) => !isRecord(b) || b['type'] !== 'null') ?? branches[0]
    return fill(isRecord(branch) ? { ...rest, ...branch } : branch, context, named, depth)
  }
  if (Array.isArray(schema['allOf'])) return fill(merged(schema), context, named, depth)
  switch (typeOf(schema)) {
    case 'object':
      return depth >= MAX_DEPTH ? {} : object(schema, context, depth)
    case 'array':
      return depth >= MAX_DEPTH ? [] : array(schema, context, named, depth)
    case 'string':
      return string(schema, context, named)
    case 'number':
      return number(schema, context, named, false)
    case 'integer':
      return number(schema, context, named, true)
    case 'boolean':
      return named !== undefined && /^(?:true|yes|on|1)$/i.test(named)
    case 'null':
      return null
    default:
      return undefined
  }
}

/** The schema's type: its `type` (the first that is not `null`), else what its keywords imply. */
function typeOf(schema: JsonObject): string {
  const type = schema['type']
  if (typeof type === 'string') return type
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string')
    return types.find((t) => t !== 'null') ?? types[0] ?? 'string'
  }
  if (isRecord(schema['properties'])) return 'object'
  if (schema['items'] !== undefined || schema['prefixItems'] !== undefined) return 'array'
  return 'string'
}

function object(schema: JsonObject, context: Context, depth: number): JsonObject {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {}
  const required = strings(schema['required'])
  const extra = isRecord(schema['additionalProperties']) ? schema['additionalProperties'] : true
  const names = [...new Set([...Object.keys(properties), ...required])]
  const entries: [string, unknown][] = []
  for (const name of names) {
    const property = Object.hasOwn(properties, name) ? properties[name] : extra
    const named = namedValue(context.text, name)
    if (!required.includes(name) && named === undefined && !wanted(property, name, context.text)) {
      continue
    }
    const value = fill(property, context, named, depth + 1)
    if (value !== undefined) entries.push([name, value])
  }
  // fromEntries defines own properties, so a property named `__proto__` stays a property.
  return Object.fromEntries(entries)
}

function array(
  schema: JsonObject,
  context: Context,
  named: string | undefined,
  depth: number,
): unknown[] {
  const items = schema['items']
  // A tuple: `prefixItems` (2020-12), or `items` as a list (draft 7).
  const prefix: unknown[] = Array.isArray(schema['prefixItems'])
    ? schema['prefixItems']
    : Array.isArray(items)
      ? items
      : []
  const rest = Array.isArray(items) ? schema['additionalItems'] : items
  const least = Math.max(count(schema['minItems']) ?? 0, named === undefined ? 0 : 1)
  let length = Math.min(least, count(schema['maxItems']) ?? least)
  if (rest === false) length = Math.min(length, prefix.length)
  return Array.from({ length }, (_, i) => fill(prefix[i] ?? rest, context, named, depth + 1))
}

function string(schema: JsonObject, context: Context, named: string | undefined): string {
  const formatted = formattedString(schema['format'], named, context.now)
  if (formatted !== undefined) return formatted
  let value =
    named ?? context.quoted[context.taken.quoted++] ?? context.quoted.at(-1) ?? context.text
  const most = count(schema['maxLength'])
  if (most !== undefined) value = Array.from(value).slice(0, most).join('')
  const least = count(schema['minLength']) ?? 0
  const length = Array.from(value).length
  return length < least ? value + '_'.repeat(least - length) : value
}

/** A string of a known `format`: what the text named when it fits, else a placeholder. */
function formattedString(
  format: unknown,
  named: string | undefined,
  now: Date,
): string | undefined {
  const time = named === undefined ? now : new Date(named)
  const iso = (Number.isNaN(time.getTime()) ? now : time).toISOString()
  switch (format) {
    case 'date-time':
      return iso
    case 'date':
      return iso.slice(0, 10)
    case 'time':
      return `${iso.slice(11, 19)}Z`
    case 'email':
      return named !== undefined && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(named)
        ? named
        : 'mock@example.com'
    case 'uri':
    case 'url':
      return named !== undefined && /^https?:\/\/\S+$/.test(named) ? named : 'https://example.com/'
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000'
    default:
      return undefined
  }
}

function number(
  schema: JsonObject,
  context: Context,
  named: string | undefined,
  integer: boolean,
): number {
  const given =
    named === undefined
      ? (context.numbers[context.taken.numbers++] ?? context.numbers.at(-1))
      : Number(/-?\d+(?:\.\d+)?/.exec(named)?.[0])
  let value = given !== undefined && Number.isFinite(given) ? given : 0
  if (integer) value = Math.round(value)
  const minimum = finite(schema['minimum'])
  const maximum = finite(schema['maximum'])
  const above = finite(schema['exclusiveMinimum'])
  const below = finite(schema['exclusiveMaximum'])
  if (minimum !== undefined && value < minimum) value = integer ? Math.ceil(minimum) : minimum
  if (maximum !== undefined && value > maximum) value = integer ? Math.floor(maximum) : maximum
  if (above !== undefined && value <= above) {
    value = integer ? Math.floor(above) + 1 : below === undefined ? above + 1 : (above + below) / 2
  }
  if (below !== undefined && value >= below) {
    value = integer ? Math.ceil(below) - 1 : above === undefined ? below - 1 : (above + below) / 2
  }
  const step = finite(schema['multipleOf'])
  if (step !== undefined && step > 0 && value % step !== 0) {
    const up = Math.ceil(value / step) * step
    value = maximum !== undefined && up > maximum ? Math.floor(value / step) * step : up
  }
  return value
}

/**
 * Whether an optional property is worth filling: it has a `const` or a `default`, or the text
 * mentions its name ("for 3 days" fills `days`) or one of its `enum` members ("in fahrenheit").
 */
function wanted(property: unknown, name: string, text: string): boolean {
  if (!isRecord(property)) return false
  if (Object.hasOwn(property, 'const') || property['default'] !== undefined) return true
  const choices = Array.isArray(property['enum']) ? property['enum'] : []
  return mentionedIn(text, name) || choices.some((choice) => mentionedIn(text, choice))
}

/** `allOf`'s schemas as one: their properties and required names together. */
function merged(schema: JsonObject): JsonObject {
  const { allOf, ...rest } = schema
  let out: JsonObject = rest
  for (const part of Array.isArray(allOf) ? allOf : []) {
    if (!isRecord(part)) continue
    const properties = { ...asRecord(out['properties']), ...asRecord(part['properties']) }
    const required = [...strings(out['required']), ...strings(part['required'])]
    out = { ...out, ...part, properties, required }
  }
  return out
}

/** What the text gives `name` as `name: value` or `name=value`: quoted, or to the end of the clause. */
function namedValue(text: string, name: string): string | undefined {
  if (!/^[\w$-]+$/.test(name)) return undefined
  const pattern = new RegExp(
    `(?<![\\w$-])${name.replace(/\$/g, '\\$')}\\s*[:=]\\s*(?:"([^"]*)"|“([^”]*)”|([^,;\\n]*))`,
    'i',
  )
  const match = pattern.exec(text)
  if (match === null) return undefined
  // An unquoted value ends with its sentence: "days=3. Thanks" names 3.
  const value = (match[1] ?? match[2] ?? match[3]?.split(/[.!?](?:\s|$)/)[0] ?? '').trim()
  return value === '' ? undefined : value
}

/** Whether `text` mentions an enum member as a whole word, case aside. */
function mentionedIn(text: string, choice: unknown): boolean {
  if (typeof choice !== 'string' && typeof choice !== 'number') return false
  const word = String(choice).toLowerCase()
  if (word === '') return false
  const lower = text.toLowerCase()
  for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
    const before = lower[at - 1]
    const after = lower[at + word.length]
    if (!isWordCharacter(before) && !isWordCharacter(after)) return true
  }
  return false
}

function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}_]/u.test(character)
}

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function asRecord(value: unknown): JsonObject {
  return isRecord(value) ? value : {}
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** A non-negative integer keyword (`minItems`, `maxLength`, ...), or undefined. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}
