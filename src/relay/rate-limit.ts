import {
  admit,
  settle,
  type RateLimitDecision,
  type RateLimits,
  type WindowState,
} from '../core/sliding-window.ts'
import {
  budgetExpiresAt,
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
 * One client's rate window and dollar spend, as plain data (JSON- and structured-clone-safe): what
 * a limiter with storage of its own keeps between calls. Store it as {@link clientLimits} leaves
 * it (whole, or its two parts apart) and hand it back; what the parts hold is the relay's to read
 * and change.
 */
export type LimitState = { window: WindowState; budget: BudgetState }

/** One client's limits over its {@link LimitState}: see {@link clientLimits}. */
export type ClientLimits = {
  /** The state to store: `check` and `settle` change it in place. */
  readonly state: LimitState
  /** Admits a call under `limits` and counts its estimate, or says why not and how long to wait. */
  check(cost: LimitCost, limits: MemoryLimits): LimitDecision
  /** Settles an admitted call with the tokens and dollars it really used. */
  settle(usage: LimitUsage): void
  /** The client's spend and what is left of each budget. */
  spend(limits: MemoryLimits): SpendReport
  /**
   * When the state stops counting anything (its window has emptied and its month's spend is
   * over), so storage may drop it then; undefined when it counts nothing now.
   */
  expiresAt(limits: MemoryLimits): number | undefined
}

/**
 * One client's limits, counted as {@link memoryRateLimiter} counts them (a sliding window of
 * requests and tokens, and dollar budgets per UTC day and month), over the state a limiter keeps
 * per client in storage of its own, such as a Durable Object per client: `state` as storage held
 * it (a part it does not hold, or all of it, starts empty). Calls to one client's limits must not
 * interleave (a Durable Object runs one at a time), or two could spend the same room.
 *
 * @example
 * ```ts
 * const client = clientLimits(await storage.get(clientId))
 * const decision = client.check({ tokens: 1200 }, { requestsPerMinute: 60, usdPerDay: 5 })
 * await storage.put(clientId, client.state)
 * ```
 */
export function clientLimits(
  state?: { window?: WindowState | undefined; budget?: BudgetState | undefined } | undefined,
  now: () => number = Date.now,
): ClientLimits {
  const current: LimitState = {
    window: state?.window ?? [],
    budget: state?.budget ?? emptyBudget(now()),
  }
  const { window, budget } = current
  return {
    state: current,
    check: (cost, limits) => admitCall(window, budget, now(), cost, limits),
    settle: (usage) => settleCall(window, budget, now(), usage),
    spend: (limits) => spendReport(budget, now(), limits),
    expiresAt(limits) {
      const at = now()
      const windowMs = limits.windowMs ?? 60_000
      const last = window.at(-1)
      const windowEnds =
        last !== undefined && last[0] > at - windowMs ? last[0] + windowMs : undefined
      const monthEnds = budgetExpiresAt(budget, at)
      if (windowEnds === undefined || monthEnds === undefined) return windowEnds ?? monthEnds
      return Math.max(windowEnds, monthEnds)
    },
  }
}

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
 * state shared by every isolate, such as a Durable Object per client keeping its
 * {@link clientLimits}.
 */
export function memoryRateLimiter(limits: MemoryLimits, now: () => number = Date.now): RateLimiter {
  const clients = new Map<string, ClientLimits>()
  return {
    check(clientId, cost) {
      if (clients.size > 10_000) {
        // Forget clients whose window has emptied and who spent nothing this month.
        for (const [id, client] of clients)
          if (client.expiresAt(limits) === undefined) clients.delete(id)
      }
      let client = clients.get(clientId)
      if (client === undefined) clients.set(clientId, (client = clientLimits(undefined, now)))
      return client.check(cost, limits)
    },
    report(clientId, usage) {
      clients.get(clientId)?.settle(usage)
    },
    spend(clientId) {
      return (clients.get(clientId) ?? clientLimits(undefined, now)).spend(limits)
    },
  }
}
