import { isRecord, type JsonRecord } from '../../kit/json.ts'

/**
 * Merges streamed OpenRouter `reasoning_details` fragments into complete entries: fragments with
 * the same `index` (or, without one, the same position) are one entry; `text` and `summary` are
 * joined, other fields (`signature`, `data`, `id`, `format`, `type`) keep their last value.
 */
export function createReasoningDetails(): {
  /** Merges one delta's fragments; returns the readable text they add. */
  add(fragments: unknown[]): string
  entries(): JsonRecord[]
} {
  const entries: JsonRecord[] = []
  const byIndex = new Map<unknown, JsonRecord>()

  return {
    add(fragments) {
      let text = ''
      for (const [position, fragment] of fragments.entries()) {
        if (!isRecord(fragment)) continue
        const key = 'index' in fragment ? fragment['index'] : `position-${position}`
        let entry = byIndex.get(key)
        if (entry === undefined) {
          entry = {}
          byIndex.set(key, entry)
          entries.push(entry)
        }
        for (const [field, value] of Object.entries(fragment)) {
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
