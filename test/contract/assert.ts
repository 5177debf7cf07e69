/**
 * The few assertions the contract checks need, with no test framework behind them, so the same
 * checks run in Node, in workerd and in a browser page. Each throws an `Error` whose message says
 * what was expected and what came.
 */

/** Fails with `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message)
}

/** Fails unless `actual` and `expected` are the same JSON-like value (key order ignored). */
export function assertEqual(actual: unknown, expected: unknown, what: string): void {
  if (!deepEqual(actual, expected)) {
    throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`)
  }
}

/** Structural equality of JSON-like values; `undefined` object fields count as absent. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, i) => deepEqual(value, b[i]))
  }
  const left = definedEntries(a)
  const right = new Map(definedEntries(b))
  return (
    left.length === right.size && left.every(([key, value]) => deepEqual(value, right.get(key)))
  )
}

function definedEntries(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, field]) => field !== undefined)
}

/** A short JSON rendering of `value` for a failure message. */
export function show(value: unknown, max = 300): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** `promise`, or a failure naming `what` when it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The message of anything thrown, with its `kind` when it is a ThinkwireError. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind
    return typeof kind === 'string' ? `${error.message} [${kind}]` : error.message
  }
  return show(error)
}
