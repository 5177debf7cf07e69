/** Effort levels as providers name them, lowest first. */
const EFFORT_ORDER: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']

/** The largest budget (in tokens) that still counts as each level; above `high`, it is `max`. */
export type BudgetThresholds = { low: number; medium: number; high: number }

/** thinkwire's own reading of a budget: up to 4k low, 12k medium, 24k high, more is max. */
const DEFAULT_BUDGET_THRESHOLDS: BudgetThresholds = {
  low: 4_096,
  medium: 12_288,
  high: 24_576,
}

/** The level a thinking budget of `budget` tokens asks for, for a provider that takes levels. */
export function levelForBudget(
  budget: number,
  thresholds: BudgetThresholds = DEFAULT_BUDGET_THRESHOLDS,
): 'low' | 'medium' | 'high' | 'max' {
  if (budget <= thresholds.low) return 'low'
  if (budget <= thresholds.medium) return 'medium'
  if (budget <= thresholds.high) return 'high'
  return 'max'
}

/**
 * The level of `levels` (lowest first) nearest to `wanted`: the level itself when the model takes
 * it; else, rounding `down`, the highest level below it (or the lowest there is), and rounding
 * `up`, the lowest level above it (or the highest there is).
 */
export function nearestLevel(
  levels: readonly string[],
  wanted: string,
  round: 'down' | 'up' = 'down',
): string {
  if (levels.includes(wanted)) return wanted
  const rank = EFFORT_ORDER.indexOf(wanted)
  if (round === 'up') {
    return levels.find((level) => EFFORT_ORDER.indexOf(level) > rank) ?? levels.at(-1) ?? wanted
  }
  let best: string | undefined
  for (const level of levels) if (EFFORT_ORDER.indexOf(level) <= rank) best = level
  return best ?? levels[0] ?? wanted
}
