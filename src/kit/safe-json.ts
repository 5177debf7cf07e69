import type { JsonRecord } from './json.ts'

/**
 * True for a key that is safe to set on an object built from upstream JSON. `__proto__` (and
 * `constructor`/`prototype`, which reach it) would change the prototype of the object, or of every
 * object in the isolate when walked as a path, so data from a stream never sets them.
 */
export function isSafeKey(key: string): boolean {
  return key !== '__proto__' && key !== 'constructor' && key !== 'prototype'
}

/** An empty object without a prototype, for building values out of upstream keys. */
export function safeRecord(): JsonRecord {
  return Object.create(null) as JsonRecord
}
