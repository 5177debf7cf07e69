import { isRecord, type JsonRecord } from '../../kit/json.ts'

/**
 * Builds a function call's arguments from streamed `partialArgs` (`{ jsonPath, stringValue |
 * numberValue | boolValue | nullValue, willContinue }`), as Vertex AI sends them when
 * `streamFunctionCallArguments` is on. A string value with `willContinue` goes on in the next
 * fragment for the same path.
 */
export function createPartialArgs(): {
  apply(fragments: unknown): void
  value(): JsonRecord
} {
  const root: JsonRecord = {}
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
        setAt(root, keys, value)
        if (fragment['willContinue'] === true) open.add(path)
        else open.delete(path)
      }
    },
    value: () => root,
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

function getAt(root: JsonRecord, keys: Key[]): unknown {
  let node: unknown = root
  for (const key of keys) {
    if (typeof key === 'number') node = Array.isArray(node) ? node[key] : undefined
    else node = isRecord(node) ? node[key] : undefined
  }
  return node
}

function setAt(root: JsonRecord, keys: Key[], value: unknown): void {
  let node: JsonRecord | unknown[] = root
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const last = i === keys.length - 1
    const next = keys[i + 1]
    if (Array.isArray(node)) {
      if (typeof key !== 'number') return
      if (last) node[key] = value
      else {
        node[key] = container(node[key], next)
        node = node[key] as JsonRecord | unknown[]
      }
    } else {
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
  return isRecord(existing) ? existing : {}
}
