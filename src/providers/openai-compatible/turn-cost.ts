import type { CacheOptions } from '../../core/adapter.ts'
import type { Usage } from '../../core/conversation.ts'
import { costOf } from '../../core/pricing.ts'
import type { CompatibleModelInfo, OffPeak } from './models.ts'

/** Digits kept, as `costOf` keeps them. */
const SCALE = 1e12

/**
 * What a turn cost in US dollars, when the adapter knows better than the model's list price: the
 * cost the server stated (`usage.cost`, see `mapUsage`), else for a model billed less off-peak,
 * its price at the hour the request was sent (`sentAt`, epoch milliseconds). Undefined otherwise:
 * the guard then prices the usage at the model's `pricing`.
 */
export function turnCost(
  usage: Usage,
  info: CompatibleModelInfo,
  cache: CacheOptions | undefined,
  sentAt: number,
): number | undefined {
  if (usage.cost !== undefined) return usage.cost
  const { pricing, offPeak } = info
  if (pricing === undefined || offPeak === undefined) return undefined
  const listed = costOf(usage, pricing, cache, sentAt)
  if (isPeak(offPeak, sentAt)) return listed
  return Math.round(listed * offPeak.factor * SCALE) / SCALE
}

/** True when `at` falls in a peak window: a weekday (UTC) and an hour inside one of the windows. */
function isPeak(offPeak: OffPeak, at: number): boolean {
  const time = new Date(at)
  const day = time.getUTCDay()
  if (day === 0 || day === 6) return false
  const hour = time.getUTCHours() + time.getUTCMinutes() / 60
  return offPeak.peakHoursUtc.some(([from, to]) => hour >= from && hour < to)
}
