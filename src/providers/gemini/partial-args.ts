import { providerError } from '../../core/errors.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { safeRecord } from '../../kit/safe-json.ts'

/** A call's arguments while they stream in; see {@link createPartialArgs}. */
export type PartialArgs = {
  /** Applies one piece's `partialArgs` fragments. */
  apply(fragments: unknown): void
  /**
   * The arguments so far, as `JSON.parse` would give them: plain objects, and a key such as
   * `__proto__` an own field of its object, never its prototype.
   */
  value(): JsonRecord
}

/**
 * Builds a function call's arguments from streamed `partialArgs` (`{ jsonPath, stringValue |
 * numberValue | boolValue | nullValue, willContinue }`), as Gemini sends them when
 * `streamFunctionCallArguments` is on. A string value with `willContinue` goes on in the next
 * fragment for the same path.
 *
 * The paths come from the stream, so the tree is built of objects without a prototype: a path
 * through `__proto__`, `constructor` or `prototype` sets a field of that name, and never reaches
 * `Object.prototype`.
 */
export function createPartialArgs(): PartialArgs {
  const root = safeRecord()
  const open = new Set<string>()

  return {
    apply(fragments) {
      if (!Array.isArray(fragments)) return
      for (const fragment of fragments) {
        if (!isRecord(fragment) || typeof fragment['jsonPath'] !== 'string') continue
        const path = fragment['jsonPath']
        const keys = parsePath(path)
        if (keys === undefined) continue
        let value: unknown
        if (typeof fragment['stringValue'] === 'string') {
          const before = open.has(path) ? getAt(root, keys) : undefined
          value = (typeof before === 'string' ? before : '') + fragment['stringValue']
        } else if ('numberValue' in fragment) value = fragment['numberValue']
        else if ('boolValue' in fragment) value = fragment['boolValue']
        else if ('nullValue' in fragment) value = null
        else continue
        setAt(root, keys, value, path)
        if (fragment['willContinue'] === true) open.add(path)
        else open.delete(path)
      }
    },
    // A JSON round trip gives plain objects (and `null` for a gap left in an array), with every
    // key an own data field, as a call whose arguments came whole is parsed.
    value: () => JSON.parse(JSON.stringify(root)) as JsonRecord,
  }
}

type Key = string | number

/** `$.a.b[0]['c d']` → `['a', 'b', 0, 'c d']`; undefined for a path it cannot read. */
export function parsePath(path: string): Key[] | undefined {
  if (!path.startsWith('$')) return undefined
  const keys: Key[] = []
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/gy
  pattern.lastIndex = 1
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path)
    if (match === null) return undefined
    if (match[2] !== undefined) keys.push(Number(match[2]))
    else keys.push(match[1] ?? match[3] ?? match[4] ?? '')
  }
  return keys.length === 0 ? undefined : keys
}

/** Reads own fields only, so a key never finds something on a prototype. */
function getAt(root: JsonRecord, keys: Key[]): unknown {
  let node: unknown = root
  for (const key of keys) {
    if (typeof key === 'number') node = Array.isArray(node) ? node[key] : undefined
    else node = isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined
  }
  return node
}

function setAt(root: JsonRecord, keys: Key[], value: unknown, path: string): void {
  let node: JsonRecord | unknown[] = root
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const last = i === keys.length - 1
    const next = keys[i + 1]
    if (Array.isArray(node)) {
      if (typeof key !== 'number') return
      // Arrays fill in order; an index past the end would leave a gap as long as the stream says.
      if (key > node.length) {
        const message = `a streamed argument path (${path}) skips past the end of its array`
        throw providerError('server', 'gemini', message)
      }
      if (last) node[key] = value
      else {
        node[key] = container(node[key], next)
        node = node[key] as JsonRecord | unknown[]
      }
    } else {
      // Every record of the tree has no prototype, so any name is a plain field here.
      const name = String(key)
      if (last) node[name] = value
      else {
        node[name] = container(node[name], next)
        node = node[name] as JsonRecord | unknown[]
      }
    }
  }
}

/** The existing child when it is the right kind of container, else a new one. */
function container(existing: unknown, nextKey: Key | undefined): JsonRecord | unknown[] {
  if (typeof nextKey === 'number') return Array.isArray(existing) ? existing : []
  return isRecord(existing) ? existing : safeRecord()
}
