import { DurableObject } from 'cloudflare:workers'
import * as relay from 'thinkwire/relay'

// The state's two parts, under the keys they have always been stored under.
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
  #client: relay.ClientLimits
  /** The limits of the last check: the alarm reads their window's length. */
  #limits: relay.MemoryLimits = {}

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#client = relay.clientLimits({
      window: ctx.storage.kv.get<relay.LimitState['window']>(WINDOW),
      budget: ctx.storage.kv.get<relay.LimitState['budget']>(BUDGET),
    })
  }

  /** Admits a call (its estimated tokens and dollars) under `limits`, or says why not and how long to wait. */
  check(cost: relay.LimitCost, limits: relay.MemoryLimits): relay.LimitDecision {
    this.#limits = limits
    const decision = this.#client.check(cost, limits)
    if (decision.ok) this.#save()
    return decision
  }

  /** Settles an admitted call with the tokens and dollars it really used. */
  settle(usage: relay.LimitUsage): void {
    this.#client.settle(usage)
    this.#save()
  }

  /** This client's spend and remaining budgets. */
  spend(limits: relay.MemoryLimits): relay.SpendReport {
    return this.#client.spend(limits)
  }

  override async alarm(): Promise<void> {
    // The month's spend outlives the window: the state is kept until neither counts anything.
    const expiresAt = this.#client.expiresAt(this.#limits)
    if (expiresAt !== undefined) {
      await this.ctx.storage.setAlarm(expiresAt + 1000)
      return
    }
    this.#client = relay.clientLimits()
    await this.ctx.storage.deleteAll()
  }

  #save(): void {
    const { window, budget } = this.#client.state
    this.ctx.storage.kv.put(WINDOW, window)
    this.ctx.storage.kv.put(BUDGET, budget)
    // Writes are coalesced and confirmed before the answer leaves (output gates): no await needed.
    void this.ctx.storage.getAlarm().then((alarm) => {
      if (alarm !== null) return undefined
      return this.ctx.storage.setAlarm(Date.now() + (this.#limits.windowMs ?? 60_000) + 1000)
    })
  }
}

/** A relay rate limiter backed by one {@link RateLimiterObject} per client id. */
export function durableRateLimiter(
  namespace: DurableObjectNamespace<RateLimiterObject>,
  limits: relay.MemoryLimits,
): relay.RateLimiter {
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
