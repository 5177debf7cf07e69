import { DurableObject } from 'cloudflare:workers'
import { chatDialect } from '../src/relay/dialects.ts'
import { limitRefusal } from '../src/relay/limit-refusal.ts'
import {
  emptyBudget,
  spendReport,
  type BudgetState,
  type SpendReport,
} from '../src/relay/budget.ts'
import {
  admitCall,
  settleCall,
  type LimitCost,
  type LimitDecision,
  type LimitUsage,
  type MemoryLimits,
  type RateLimiter,
  type WindowState,
} from '../src/relay/rate-limit.ts'

const WINDOW = 'window'
const BUDGET = 'budget'

/**
 * The limits of one client (one object per client id): its sliding rate window and its dollar
 * budgets per UTC day and month. A Durable Object runs one call at a time, so the counts are exact
 * however many isolates ask, and two requests at once cannot both spend the last dollar. Both are
 * kept in storage as well as memory (an idle object is evicted within seconds); an alarm deletes
 * the window once it has emptied and the spend once its month is over, so clients that come and
 * go leave nothing behind.
 */
export class RateLimiterObject extends DurableObject<Env> {
  #window: WindowState
  #budget: BudgetState
  #windowMs = 60_000

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#window = ctx.storage.kv.get<WindowState>(WINDOW) ?? []
    this.#budget = ctx.storage.kv.get<BudgetState>(BUDGET) ?? emptyBudget(Date.now())
  }

  /** Admits a call (its estimated tokens and dollars) under `limits`, or says why not and how long to wait. */
  check(cost: LimitCost, limits: MemoryLimits): LimitDecision {
    this.#windowMs = limits.windowMs ?? 60_000
    const decision = admitCall(this.#window, this.#budget, Date.now(), cost, limits)
    if (decision.ok) this.#save()
    return decision
  }

  /** Settles an admitted call with the tokens and dollars it really used. */
  settle(usage: LimitUsage): void {
    settleCall(this.#window, this.#budget, Date.now(), usage)
    this.#save()
  }

  /** This client's spend and remaining budgets. */
  spend(limits: MemoryLimits): SpendReport {
    return spendReport(this.#budget, Date.now(), limits)
  }

  override async alarm(): Promise<void> {
    const now = Date.now()
    const last = this.#window.at(-1)
    if (last !== undefined && last[0] > now - this.#windowMs) {
      await this.ctx.storage.setAlarm(last[0] + this.#windowMs + 1000)
      return
    }
    this.#window = []
    this.ctx.storage.kv.delete(WINDOW)
    // The month's spend must outlive the window: keep it until the month it counts is over.
    const month = new Date(now).toISOString().slice(0, 7)
    if (this.#budget.monthUsd > 0 && this.#budget.month === month) {
      const date = new Date(now)
      await this.ctx.storage.setAlarm(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1))
      return
    }
    this.#budget = emptyBudget(now)
    await this.ctx.storage.deleteAll()
  }

  #save(): void {
    this.ctx.storage.kv.put(WINDOW, this.#window)
    this.ctx.storage.kv.put(BUDGET, this.#budget)
    // Writes are coalesced and confirmed before the answer leaves (output gates): no await needed.
    void this.ctx.storage.getAlarm().then((alarm) => {
      if (alarm === null) return this.ctx.storage.setAlarm(Date.now() + this.#windowMs + 1000)
      return undefined
    })
  }
}

/** A relay rate limiter backed by one {@link RateLimiterObject} per client id. */
export function durableRateLimiter(
  namespace: DurableObjectNamespace<RateLimiterObject>,
  limits: MemoryLimits,
): RateLimiter {
  const stub = (clientId: string) => namespace.get(namespace.idFromName(clientId))
  return {
    check: (clientId, cost) => stub(clientId).check(cost, limits),
    report: async (clientId, usage) => {
      await stub(clientId).settle(usage)
    },
    spend: (clientId) => stub(clientId).spend(limits),
  }
}

// Read with the other settings (worker/settings.ts, which runs in Node for `npm start`'s check).
export { limitsFromEnv } from './settings.ts'

/**
 * A refused request still counts against the client's request rate (at no cost), as on
 * `/v1/chat`: the 429 when that puts the client over it, else undefined (the refusal stands).
 */
export async function countRefusal(
  limiter: RateLimiter | undefined,
  clientId: string,
): Promise<Response | undefined> {
  if (limiter === undefined) return undefined
  try {
    const decision = await limiter.check(clientId, { tokens: 0 })
    return decision.ok ? undefined : limitRefusal(decision, chatDialect.error)
  } catch {
    // The limiter is down: the refusal itself is the answer.
    return undefined
  }
}
