/**
 * The relays the dialects' refusal tests ask, each refusing or failing one way: open, with a model
 * filter, rate-limited, over a dollar budget, with a limiter or an auth hook that throws; their
 * models fail before or after the first event, stall, or cannot be made. Every dialect's errors
 * test runs its own client against the same ones.
 */
import type { Adapter } from '../../src/core/adapter.ts'
import { ThinkwireError, type ErrorKind } from '../../src/core/errors.ts'
import { mock } from '../../src/providers/mock/index.ts'
import {
  createRelay,
  type LimitDecision,
  type RateLimiter,
  type RelayOptions,
} from '../../src/relay/index.ts'

const failing = (kind: ErrorKind) =>
  mock({ model: kind, script: [{ fail: { kind, retryAfterMs: 2000 } }] })
/** Silent from the start, or after its first event, until the idle timeout ends it. */
const stalling = (model: string, events: number) =>
  mock({ model, script: [{ text: 'Halb', chunkSize: 4, stallAfterEvents: events }] })
/** A limiter that answers every check with `decision`. */
const refusing = (decision: LimitDecision): RateLimiter => ({ check: () => decision })
/** A limiter that refuses every call for the rate: 3 s to wait. */
export const rateLimited = (): RateLimiter => refusing({ ok: false, retryAfterMs: 3000 })
/** A limiter whose client spent its day's $5 budget (and $0.25 more): two hours to wait. */
export const overBudget = (): RateLimiter =>
  refusing({
    ok: false,
    retryAfterMs: 7_200_000,
    budget: { period: 'day', limitUsd: 5, spentUsd: 5.25, resetsAt: '2026-05-02T00:00:00.000Z' },
  })

/** Models that fail each way, one that cannot be made, and the mock. */
export const refusalProviders = {
  mock: [
    mock(),
    mock({ model: 'hidden' }),
    failing('rate-limit'),
    failing('server'),
    failing('overloaded'),
    failing('timeout'),
    failing('context-length'),
    failing('auth'),
    stalling('stall', 0),
    stalling('stall-later', 1),
    mock({
      model: 'fail-later',
      script: [{ text: 'Halb', fail: { kind: 'server', afterEvents: 1 } }],
    }),
  ],
  broken: {
    create: (): Adapter => {
      throw new ThinkwireError({
        kind: 'auth',
        message: 'broken: no API key',
        provider: 'broken',
      })
    },
    models: ['m'],
  },
}

/** The relays, open to `token`. */
export function refusalRelays(token: string) {
  const options = {
    providers: refusalProviders,
    auth: [token],
    cors: { origins: ['https://app.test'] },
    limits: { bodyBytes: 4096, bodyTimeoutMs: 100 },
    idleTimeoutMs: 50,
    heartbeatMs: 60_000,
  } satisfies RelayOptions
  return {
    open: createRelay(options),
    filtered: createRelay({ ...options, models: ['mock/echo'] }),
    rated: createRelay({ ...options, rateLimiter: rateLimited() }),
    budgeted: createRelay({ ...options, rateLimiter: overBudget() }),
    limiterDown: createRelay({
      ...options,
      rateLimiter: {
        check: () => {
          throw new Error('the limiter is down')
        },
      },
    }),
    faulty: createRelay({
      ...options,
      auth: () => {
        throw new Error('the auth hook failed')
      },
    }),
  }
}

/** A body that sends an opening brace and then never ends. */
export const endless = () =>
  new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode('{')),
    pull: () => new Promise(() => {}),
  })
