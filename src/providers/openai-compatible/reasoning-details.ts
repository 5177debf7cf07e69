import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { isSafeKey, safeRecord } from '../../kit/safe-json.ts'

/**
 * Merges streamed OpenRouter `reasoning_details` fragments into complete entries, in the order
 * they began. A fragment continues the entry with the same `index` when it names no other `type`;
 * a fragment with a new index, another type, or no index at all (each such one is whole) begins a
 * new entry. `text` and `summary` are joined, other fields (`signature`, `data`, `id`, `format`,
 * `type`) keep their last non-null value. Entries are built without a prototype, from safe keys
 * only.
 */
export function createReasoningDetails(): {
  /** Merges one delta's fragments; returns the readable text they add. */
  add(fragments: unknown[]): string
  entries(): JsonRecord[]
} {
  const entries: JsonRecord[] = []
  /** The latest entry of each index. */
  const byIndex = new Map<unknown, JsonRecord>()

  const entryFor = (fragment: JsonRecord): JsonRecord => {
    const indexed = 'index' in fragment
    const current = indexed ? byIndex.get(fragment['index']) : undefined
    const type = fragment['type']
    if (current !== undefined && (type === undefined || type === null || type === current['type']))
      return current
    const entry = safeRecord()
    entries.push(entry)
    if (indexed) byIndex.set(fragment['index'], entry)
    return entry
  }

  return {
    add(fragments) {
      let text = ''
      for (const fragment of fragments) {
        if (!isRecord(fragment)) continue
        const entry = entryFor(fragment)
        for (const [field, value] of Object.entries(fragment)) {
          if (!isSafeKey(field)) continue
          if (field === 'text' || field === 'summary') {
            if (typeof value !== 'string') continue
            const before = entry[field]
            entry[field] = (typeof before === 'string' ? before : '') + value
            text += value
          } else if (value !== null && value !== undefined) entry[field] = value
          else if (!(field in entry)) entry[field] = value
        }
      }
      return text
    },
    entries: () => entries,
  }
}
