import { DurableObject } from 'cloudflare:workers'
import {
  admit,
  settle,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimits,
  type WindowState,
} from '../src/relay/index.ts'

const KEY = 'window'

/**
 * The sliding rate-limit window of one client (one object per client id). A Durable Object runs
 * one call at a time, so the count is exact however many isolates ask. The window is kept in
 * storage as well as memory (an idle object is evicted within seconds), and an alarm deletes it
 * once it has emptied, so clients that come and go leave nothing behind.
 */
export class RateLimiterObject extends DurableObject<Env> {
  #window: WindowState
  #windowMs = 60_000

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#window = ctx.storage.kv.get<WindowState>(KEY) ?? []
  }

  /** Admits a call of `tokens` (an estimate) under `limits`, or says how long to wait. */
  check(tokens: number, limits: RateLimits): RateLimitDecision {
    this.#windowMs = limits.windowMs ?? 60_000
    const decision = admit(this.#window, Date.now(), tokens, limits)
    if (decision.ok) this.#save()
    return decision
  }

  /** Settles an admitted call with the tokens it really used. */
  report(tokens: number, estimatedTokens: number): void {
    settle(this.#window, Date.now(), tokens, estimatedTokens)
    this.#save()
  }

  override async alarm(): Promise<void> {
    const last = this.#window.at(-1)
    if (last === undefined || last[0] <= Date.now() - this.#windowMs) {
      this.#window = []
      await this.ctx.storage.deleteAll()
    } else {
      await this.ctx.storage.setAlarm(last[0] + this.#windowMs + 1000)
    }
  }

  #save(): void {
    this.ctx.storage.kv.put(KEY, this.#window)
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
  limits: RateLimits,
): RateLimiter {
  const stub = (clientId: string) => namespace.get(namespace.idFromName(clientId))
  return {
    check: (clientId, cost) => stub(clientId).check(cost.tokens, limits),
    report: async (clientId, usage) => {
      await stub(clientId).report(usage.tokens, usage.estimatedTokens)
    },
  }
}
