import {
  admit,
  settle,
  type RateLimitDecision,
  type RateLimits,
  type WindowState,
} from '../core/sliding-window.ts'

// The window is core's (withRateLimit counts with it too); the relay keeps offering its names.
export { admit, settle, type RateLimitDecision, type RateLimits, type WindowState }

/**
 * Per-client budget the relay consults before each call. `check` admits a call and counts its
 * estimated tokens (the request's size); `report` settles it with the tokens the turn really used,
 * once they are known.
 */
export interface RateLimiter {
  check(clientId: string, cost: { tokens: number }): RateLimitDecision | Promise<RateLimitDecision>
  /** Corrects the estimate `check` counted for an admitted call. */
  report?(
    clientId: string,
    usage: { tokens: number; estimatedTokens: number },
  ): void | Promise<void>
}

/**
 * A rate limiter held in memory, per client. Good for one process (Node, tests); a Worker needs
 * state shared by every isolate, such as a Durable Object running the same {@link admit}.
 */
export function memoryRateLimiter(limits: RateLimits, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, WindowState>()
  const windowMs = limits.windowMs ?? 60_000
  return {
    check(clientId, cost) {
      if (windows.size > 10_000) {
        // Forget clients whose window has emptied, so idle clients do not pile up.
        for (const [id, state] of windows) {
          if (state.length === 0 || state.at(-1)![0] <= now() - windowMs) windows.delete(id)
        }
      }
      let state = windows.get(clientId)
      if (state === undefined) windows.set(clientId, (state = []))
      return admit(state, now(), cost.tokens, limits)
    },
    report(clientId, usage) {
      const state = windows.get(clientId)
      if (state !== undefined) settle(state, now(), usage.tokens, usage.estimatedTokens)
    },
  }
}
