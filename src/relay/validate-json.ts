// The relay's JSON checks: each reads an untrusted value and stops at the first fault, naming its
// field. A dialect's translator imports them as one namespace, `import * as v`, the way valibot is
// used: `v.string(v.own(part, 'text'), at)`.

import { isRecord, type JsonRecord } from '../kit/json.ts'

export { isRecord, type JsonRecord }

/** The field at fault and what is wrong with it. `message` starts with the field's path. */
export type FieldError = { field: string; message: string }

/** The outcome of a validator: the checked value, or the first fault found. */
export type Validation<T> = { ok: true; value: T } | { ok: false; error: FieldError }

/** Thrown inside validators, caught at their entry and turned into a {@link Validation}. */
export class Invalid extends Error {
  readonly field: string

  constructor(field: string, problem: string) {
    super(`${field} ${problem}`)
    this.field = field
  }
}

/** Stops validation at `field`. `problem` reads after the field name: `'must be a string, got 3'`. */
export function fail(field: string, problem: string): never {
  throw new Invalid(field, problem)
}

/** Runs a validator that throws {@link Invalid}, as a {@link Validation}. */
export function validation<T>(run: () => T): Validation<T> {
  try {
    return { ok: true, value: run() }
  } catch (error) {
    if (error instanceof Invalid)
      return { ok: false, error: { field: error.field, message: error.message } }
    throw error
  }
}

/**
 * A member of a parsed JSON object, or undefined when the object does not have it as its own.
 * Reading `body.constructor` directly would find `Object.prototype`'s.
 */
export function own(object: JsonRecord, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

/** How a wrong value is shown in a message: its JSON type, or a short quote of a string. */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') {
    const quoted = value.length > 40 ? `${value.slice(0, 40)}…` : value
    return `'${quoted}'`
  }
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return typeof value
}

export function record(value: unknown, field: string): JsonRecord {
  if (!isRecord(value)) fail(field, `must be an object, got ${describe(value)}`)
  return value
}

export function array(value: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(value)) fail(field, `must be an array, got ${describe(value)}`)
  return value
}

export function string(
  value: unknown,
  field: string,
  options: { nonEmpty?: boolean } = {},
): string {
  if (typeof value !== 'string') fail(field, `must be a string, got ${describe(value)}`)
  if (options.nonEmpty === true && value === '') fail(field, 'must not be empty')
  return value
}

export function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    fail(field, `must be an integer, got ${describe(value)}`)
  }
  if (value < min || value > max) fail(field, `must be between ${min} and ${max}, got ${value}`)
  return value
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  fail(field, `must be ${listOf(allowed)}, got ${describe(value)}`)
}

/** `'a', 'b' or 'c'` */
export function listOf(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`)
  return quoted.length < 2
    ? quoted.join('')
    : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`
}

/**
 * Checks that a value passed through untouched (a schema, a tool input, opaque items) nests no
 * deeper than `maxDepth`, so no later `JSON.stringify` of it can overflow the stack.
 */
export function shallowJson(value: unknown, field: string, maxDepth: number): void {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth >= maxDepth) fail(field, `nests deeper than ${maxDepth} levels`)
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
}

/** Reads one field of a record: the checked value, or undefined to leave the field out. */
export type FieldParser<T> = (value: unknown, field: string) => T

/**
 * Rebuilds a record from its known fields, one parser per field of `T` (the table's type makes a
 * new field of `T` a compile error until it is parsed here). Members not in the table are left out.
 */
export function fields<T>(
  input: JsonRecord,
  path: string,
  parsers: { readonly [K in keyof T]-?: FieldParser<T[K]> },
): T {
  const out: Partial<T> = {}
  // The table's keys are exactly the fields of T.
  for (const key of Object.keys(parsers) as (keyof T & string)[]) {
    const value = parsers[key](own(input, key), `${path}.${key}`)
    if (value !== undefined) out[key] = value
  }
  return out as T
}

/** A parser that leaves an absent field out. */
export function optional<T>(parse: FieldParser<T>): FieldParser<T | undefined> {
  return (value, field) => (value === undefined ? undefined : parse(value, field))
}
