/** One call counted in a {@link SlidingWindow}. `tokens` may be corrected after the call. */
export type WindowEntry = { readonly at: number; tokens: number }

/** Limits of a {@link SlidingWindow}; a missing limit is not enforced. */
export type WindowLimits = {
  windowMs: number
  tokens?: number | undefined
  requests?: number | undefined
}

/** The state of a sliding-window limit: pure bookkeeping, no clock and no timers. */
export type SlidingWindow = {
  /**
   * Counts a call of `tokens` at `now` and returns its entry, or says how long to wait before the
   * window could take it. An empty window takes any call, so one larger than the whole budget
   * still runs (alone) instead of waiting forever.
   */
  reserve(tokens: number, now: number): { entry: WindowEntry } | { waitMs: number }
}

/** Creates the bookkeeping of a sliding-window limit. */
export function createSlidingWindow(limits: WindowLimits): SlidingWindow {
  const { windowMs } = limits
  // Oldest first; entries leave the window `windowMs` after they were counted.
  const entries: WindowEntry[] = []

  return {
    reserve(tokens, now) {
      while (entries.length > 0 && entries[0]!.at + windowMs <= now) entries.shift()
      let until = now
      if (limits.requests !== undefined && entries.length + 1 > limits.requests) {
        // The call fits once the entry at `index` (and every older one) has left.
        const index = Math.min(entries.length - 1, Math.ceil(entries.length - limits.requests))
        until = Math.max(until, entries[index]!.at + windowMs)
      }
      if (limits.tokens !== undefined) {
        let used = entries.reduce((sum, entry) => sum + entry.tokens, 0)
        for (const entry of entries) {
          if (used + tokens <= limits.tokens) break
          used -= entry.tokens
          until = Math.max(until, entry.at + windowMs)
        }
      }
      if (until > now) return { waitMs: until - now }
      const entry: WindowEntry = { at: now, tokens }
      entries.push(entry)
      return { entry }
    },
  }
}
