// Per-client dollar budgets as plain data and pure functions with an explicit clock, so a memory
// limiter (Node) and the Worker's Durable Object keep the same state the same way. Periods are
// calendar days and months in UTC: a day's spend resets at 00:00 UTC, a month's on the 1st.

import { costOf, type Pricing } from '../core/pricing.ts'
import type { Adapter, CallOptions } from '../core/adapter.ts'

/** Spending limits of one client, in US dollars. An omitted (or 0) limit is not enforced. */
export type BudgetLimits = {
  /** The most a client may spend in a UTC day. */
  usdPerDay?: number | undefined
  /** The most a client may spend in a UTC month. */
  usdPerMonth?: number | undefined
}

/** A budget period. */
export type BudgetPeriod = 'day' | 'month'

/** A call refused because a budget is spent. */
export type BudgetRefusal = {
  ok: false
  /** Until the period resets. */
  retryAfterMs: number
  budget: { period: BudgetPeriod; limitUsd: number; spentUsd: number; resetsAt: string }
}

/** One period of a {@link SpendReport}. */
export type PeriodSpend = {
  spentUsd: number
  /** Null when this period has no limit. */
  limitUsd: number | null
  /** What is left before the limit (never below 0); null when there is no limit. */
  remainingUsd: number | null
  /** When the period's spend goes back to 0 (ISO 8601, UTC). */
  resetsAt: string
}

/** A client's spend and remaining budget, as `GET /v1/usage` answers it. */
export type SpendReport = { day: PeriodSpend; month: PeriodSpend }

/** What one client spent in the current day and month (UTC), as stored. */
export type BudgetState = {
  /** `YYYY-MM-DD` of the day `dayUsd` counts. */
  day: string
  dayUsd: number
  /** `YYYY-MM` of the month `monthUsd` counts. */
  month: string
  monthUsd: number
}

const dayOf = (now: number) => new Date(now).toISOString().slice(0, 10)
const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7)

/** Sums stay exact to a millionth of a cent rather than drifting with binary fractions. */
const round = (usd: number) => Math.round(usd * 1e12) / 1e12

/** A client that has spent nothing yet. */
export function emptyBudget(now: number): BudgetState {
  return { day: dayOf(now), dayUsd: 0, month: monthOf(now), monthUsd: 0 }
}

/** Starts a new day or month when `now` is past the one `state` counts. Mutates `state`. */
function roll(state: BudgetState, now: number): void {
  const day = dayOf(now)
  if (state.day !== day) {
    state.day = day
    state.dayUsd = 0
  }
  const month = monthOf(now)
  if (state.month !== month) {
    state.month = month
    state.monthUsd = 0
  }
}

/** When `period` next resets, after `now`. */
export function resetOf(period: BudgetPeriod, now: number): number {
  const date = new Date(now)
  return period === 'day'
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
    : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
}

/**
 * Whether a call that may cost `usd` fits both budgets at `now`; the refusal names the budget
 * that is spent (the day's first, as it resets first). A call larger than a whole budget is
 * admitted when nothing was spent in that period yet, so it is possible rather than refused
 * forever. Changes nothing but the period (see {@link reserveBudget}).
 */
export function checkBudget(
  state: BudgetState,
  now: number,
  usd: number,
  limits: BudgetLimits,
): BudgetRefusal | undefined {
  roll(state, now)
  const periods: [BudgetPeriod, number | undefined, number][] = [
    ['day', limits.usdPerDay, state.dayUsd],
    ['month', limits.usdPerMonth, state.monthUsd],
  ]
  for (const [period, limit, spent] of periods) {
    if (limit === undefined || !(limit > 0)) continue
    if (spent >= limit || (spent > 0 && spent + usd > limit)) {
      const resetsAt = resetOf(period, now)
      return {
        ok: false,
        retryAfterMs: resetsAt - now,
        budget: {
          period,
          limitUsd: limit,
          spentUsd: spent,
          resetsAt: new Date(resetsAt).toISOString(),
        },
      }
    }
  }
  return undefined
}

/** Counts `usd` (a call's priced estimate) against both periods at `now`. Mutates `state`. */
export function reserveBudget(state: BudgetState, now: number, usd: number): void {
  roll(state, now)
  state.dayUsd = round(state.dayUsd + usd)
  state.monthUsd = round(state.monthUsd + usd)
}

/**
 * Replaces a call's reserved estimate with its real cost. A period that has reset since the
 * reservation (made at `reservedAt`) no longer holds it, so it is charged the whole real cost.
 * Never goes below 0. Mutates `state`.
 */
export function settleBudget(
  state: BudgetState,
  now: number,
  usd: number,
  reservedUsd: number,
  reservedAt: number,
): void {
  roll(state, now)
  const dayDelta = dayOf(reservedAt) === state.day ? usd - reservedUsd : usd
  const monthDelta = monthOf(reservedAt) === state.month ? usd - reservedUsd : usd
  state.dayUsd = Math.max(0, round(state.dayUsd + dayDelta))
  state.monthUsd = Math.max(0, round(state.monthUsd + monthDelta))
}

/**
 * When `state` stops counting anything: the end of the month it has spent in, or undefined when
 * it has spent nothing this month (a day's spend is part of its month's).
 */
export function budgetExpiresAt(state: BudgetState, now: number): number | undefined {
  return state.monthUsd > 0 && state.month === monthOf(now) ? resetOf('month', now) : undefined
}

/** The spend and what is left of each budget at `now`. Mutates `state` only to roll a period. */
export function spendReport(state: BudgetState, now: number, limits: BudgetLimits): SpendReport {
  roll(state, now)
  const period = (which: BudgetPeriod, spent: number, limit: number | undefined): PeriodSpend => {
    const limited = limit !== undefined && limit > 0
    return {
      spentUsd: spent,
      limitUsd: limited ? limit : null,
      remainingUsd: limited ? Math.max(0, round(limit - spent)) : null,
      resetsAt: new Date(resetOf(which, now)).toISOString(),
    }
  }
  return {
    day: period('day', state.dayUsd, limits.usdPerDay),
    month: period('month', state.monthUsd, limits.usdPerMonth),
  }
}

/** The 429 message of a budget refusal: which budget, and when it resets. */
export function budgetMessage(refusal: BudgetRefusal): string {
  const { period, limitUsd, resetsAt } = refusal.budget
  const which = period === 'day' ? 'daily' : 'monthly'
  return `the ${which} budget of $${limitUsd} for this client is spent; it resets at ${resetsAt}`
}

/** What a call may cost, reserved before it runs. */
export type CallEstimate = {
  /** Input tokens, from the size of what is sent (about 4 bytes a token). */
  inputTokens: number
  /** Input tokens plus the output the call may produce. */
  tokens: number
  /** The same at the model's prices, in US dollars (0 without a price). */
  usd: number
}

/** Output tokens reserved when neither the call (`maxTokens`) nor the model has a cap. */
export const DEFAULT_OUTPUT_RESERVE = 4096

/**
 * The output a call may really produce, which admission reserves: its `maxTokens`, else the
 * model's cap (which an adapter may send as its default), else {@link DEFAULT_OUTPUT_RESERVE} for
 * a model whose cap is not known.
 */
export function outputReserveOf(adapter: Adapter, options: CallOptions): number {
  return options.maxTokens ?? adapter.capabilities?.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE
}

/**
 * The estimate `POST /v1/chat` reserves, for a call that sends `inputBytes` and may produce
 * `outputReserve` tokens: so that an answer in a durable conversation is checked, and then settled,
 * exactly as one from the stateless route.
 */
export function estimateCall(
  inputBytes: number,
  outputReserve: number,
  pricing: Pricing | undefined,
): CallEstimate {
  const inputTokens = Math.ceil(inputBytes / 4)
  return {
    inputTokens,
    tokens: inputTokens + outputReserve,
    usd: pricedTokens(inputTokens, outputReserve, pricing),
  }
}

/** Input and output tokens at `pricing` (0 without one): what a call that ended early is charged. */
export function pricedTokens(input: number, output: number, pricing: Pricing | undefined): number {
  return pricing === undefined ? 0 : costOf({ inputTokens: input, outputTokens: output }, pricing)
}
