import {
  admit,
  settle,
  type RateLimitDecision,
  type RateLimits,
  type WindowState,
} from '../core/sliding-window.ts'
import {
  checkBudget,
  emptyBudget,
  reserveBudget,
  settleBudget,
  spendReport,
  type BudgetLimits,
  type BudgetRefusal,
  type BudgetState,
  type SpendReport,
} from './budget.ts'

// The window is core's (withRateLimit counts with it too); the relay keeps offering its names.
export { admit, settle, type RateLimitDecision, type RateLimits, type WindowState }

/** The answer of {@link RateLimiter.check}: admitted (and when), over the rate, or over a budget. */
export type LimitDecision =
  | {
      ok: true
      /** The limiter's time of the reservation, handed back to `report` to settle it. */
      reservedAt?: number | undefined
    }
  | { ok: false; retryAfterMs: number }
  | BudgetRefusal

/** What a call may cost, counted by `check` before it runs. */
export type LimitCost = {
  /** Estimated tokens (the request's size plus its output reserve). */
  tokens: number
  /** The same estimate priced, in US dollars (0 when the model has no price). */
  usd?: number | undefined
}

/** What a call really used, reported once it is known. */
export type LimitUsage = {
  tokens: number
  /** The `tokens` that `check` counted. */
  estimatedTokens: number
  /** Its real cost in US dollars. */
  usd?: number | undefined
  /** The `usd` that `check` counted. */
  estimatedUsd?: number | undefined
  /** `reservedAt` of the decision that admitted the call. */
  reservedAt?: number | undefined
}

/**
 * Per-client limits the relay consults before each call: a sliding rate window of requests and
 * tokens, and dollar budgets per day and month. `check` admits a call and counts its estimate;
 * `report` settles it with what the turn really used; `spend` says what the client has spent.
 */
export interface RateLimiter {
  check(clientId: string, cost: LimitCost): LimitDecision | Promise<LimitDecision>
  /** Corrects the estimate `check` counted for an admitted call. */
  report?(clientId: string, usage: LimitUsage): void | Promise<void>
  /** The client's spend and remaining budgets (`GET /v1/usage`). */
  spend?(clientId: string): SpendReport | Promise<SpendReport>
}

/** Limits of {@link memoryRateLimiter}: the rate window's and the dollar budgets. */
export type MemoryLimits = RateLimits & BudgetLimits

/**
 * Checks a client's budgets, then its rate window, and counts the call in both only when both
 * admit it: a call refused by one is not charged to the other. Mutates the states.
 */
export function admitCall(
  window: WindowState,
  budget: BudgetState,
  now: number,
  cost: LimitCost,
  limits: MemoryLimits,
): LimitDecision {
  const usd = cost.usd ?? 0
  const over = checkBudget(budget, now, usd, limits)
  if (over !== undefined) return over
  const decision = admit(window, now, cost.tokens, limits)
  if (!decision.ok) return decision
  reserveBudget(budget, now, usd)
  return { ok: true, reservedAt: now }
}

/** Settles an admitted call in both states with what it really used. Mutates the states. */
export function settleCall(
  window: WindowState,
  budget: BudgetState,
  now: number,
  usage: LimitUsage,
): void {
  settle(window, now, usage.tokens, usage.estimatedTokens)
  settleBudget(budget, now, usage.usd ?? 0, usage.estimatedUsd ?? 0, usage.reservedAt ?? now)
}

/**
 * A rate limiter held in memory, per client. Good for one process (Node, tests); a Worker needs
 * state shared by every isolate, such as a Durable Object running the same {@link admitCall}.
 */
export function memoryRateLimiter(limits: MemoryLimits, now: () => number = Date.now): RateLimiter {
  const clients = new Map<string, { window: WindowState; budget: BudgetState }>()
  const windowMs = limits.windowMs ?? 60_000
  const stateOf = (clientId: string) => {
    let state = clients.get(clientId)
    if (state === undefined)
      clients.set(clientId, (state = { window: [], budget: emptyBudget(now()) }))
    return state
  }
  return {
    check(clientId, cost) {
      if (clients.size > 10_000) {
        // Forget clients whose window has emptied and who spent nothing this month.
        const month = new Date(now()).toISOString().slice(0, 7)
        for (const [id, { window, budget }] of clients) {
          const idle = window.length === 0 || window.at(-1)![0] <= now() - windowMs
          if (idle && (budget.month !== month || budget.monthUsd === 0)) clients.delete(id)
        }
      }
      const state = stateOf(clientId)
      return admitCall(state.window, state.budget, now(), cost, limits)
    },
    report(clientId, usage) {
      const state = clients.get(clientId)
      if (state !== undefined) settleCall(state.window, state.budget, now(), usage)
    },
    spend(clientId) {
      const budget = clients.get(clientId)?.budget ?? emptyBudget(now())
      return spendReport(budget, now(), limits)
    },
  }
}
