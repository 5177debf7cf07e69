// One sliding-window limit, as plain data and pure functions with no clock: `withRateLimit` keeps
// its window in memory, the relay's Durable Object keeps the same state in storage.

/** The answer of {@link admit}: go ahead, or wait `retryAfterMs`. */
export type RateLimitDecision = { ok: true } | { ok: false; retryAfterMs: number }

/** Limits of a sliding window. An omitted limit is not enforced. */
export type RateLimits = {
  /** Calls admitted per window. */
  requestsPerMinute?: number | undefined
  /** Tokens (estimates, then settled usage) counted per window. */
  tokensPerMinute?: number | undefined
  /** @defaultValue 60000 */
  windowMs?: number | undefined
}

/**
 * A sliding window as plain data, so a Durable Object can keep it in storage: `[time, tokens,
 * 1 for a request | 0 for a correction]`, oldest first.
 */
export type WindowState = [time: number, tokens: number, request: 0 | 1][]

/**
 * Admits a call of `tokens` at `now` when the last `windowMs` leave room for one more request and
 * for its tokens, and records it. A call larger than the whole token budget is admitted into an
 * empty window, so it is slow rather than refused forever. Mutates `state`.
 */
export function admit(
  state: WindowState,
  now: number,
  tokens: number,
  limits: RateLimits,
): RateLimitDecision {
  const windowMs = limits.windowMs ?? 60_000
  prune(state, now - windowMs)
  const rpm = limits.requestsPerMinute
  const tpm = limits.tokensPerMinute
  let wait = 0
  if (rpm !== undefined) {
    let requests = 0
    for (const entry of state) requests += entry[2]
    let excess = requests + 1 - rpm
    for (let i = 0; excess > 0 && i < state.length; i++) {
      const entry = state[i]!
      if (entry[2] === 1 && --excess === 0) wait = Math.max(wait, entry[0] + windowMs - now)
    }
  }
  if (tpm !== undefined) {
    const cost = Math.min(tokens, tpm)
    let used = 0
    for (const entry of state) used += entry[1]
    for (let i = 0; used + cost > tpm && i < state.length; i++) {
      const entry = state[i]!
      used -= entry[1]
      if (used + cost <= tpm) wait = Math.max(wait, entry[0] + windowMs - now)
    }
  }
  if (wait > 0) return { ok: false, retryAfterMs: Math.ceil(wait) }
  state.push([now, tokens, 1])
  return { ok: true }
}

/**
 * Settles an admitted call: more tokens than estimated are added at `now`; fewer are taken back
 * from the latest entries (which is where the estimate was counted). Mutates `state`.
 */
export function settle(state: WindowState, now: number, tokens: number, estimated: number): void {
  const delta = tokens - estimated
  if (delta > 0) {
    state.push([now, delta, 0])
    return
  }
  let refund = -delta
  for (let i = state.length - 1; refund > 0 && i >= 0; i--) {
    const entry = state[i]!
    const taken = Math.min(entry[1], refund)
    entry[1] -= taken
    refund -= taken
  }
}

function prune(state: WindowState, cutoff: number): void {
  let drop = 0
  while (drop < state.length && state[drop]![0] <= cutoff) drop++
  if (drop > 0) state.splice(0, drop)
}
