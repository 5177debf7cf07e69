import type { Thinking } from '../../core/adapter.ts'
import type { ThinkingSupport } from '../../models.ts'

/** The `thinkingConfig` of a request: a budget or a level, never both. */
export type GeminiThinkingConfig = {
  includeThoughts?: boolean
  thinkingBudget?: number
  thinkingLevel?: string
}

type Level = 'low' | 'medium' | 'high'

/** Budgets for the levels, on models that take a budget. */
const LEVEL_BUDGETS: Readonly<Record<Level, number>> = { low: 1024, medium: 8192, high: 24_576 }

/**
 * The `thinkingConfig` for a model's thinking support and the caller's setting, or undefined when
 * none is sent. What the model cannot take is adjusted to the nearest thing it can, with a warning.
 */
export function thinkingConfigFor(
  support: ThinkingSupport,
  thinking: Thinking | undefined,
  warnings: string[],
): GeminiThinkingConfig | undefined {
  switch (support.mode) {
    case 'none':
      if (thinking !== undefined && thinking !== 'off')
        warnings.push('thinking: this model takes no thinking setting; it was dropped')
      return undefined
    case 'budget':
      return budgetConfig(support, thinking, warnings)
    case 'effort':
      return levelConfig(support.levels, thinking, warnings)
  }
}

function budgetConfig(
  support: Extract<ThinkingSupport, { mode: 'budget' }>,
  thinking: Thinking | undefined,
  warnings: string[],
): GeminiThinkingConfig {
  if (thinking === undefined) return { includeThoughts: true }
  if (thinking === 'off' || (typeof thinking === 'object' && thinking.budgetTokens <= 0)) {
    if (support.canDisable) return { thinkingBudget: 0 }
    warnings.push(
      `thinking: this model cannot turn thinking off; used the smallest budget, ${support.min}`,
    )
    return { includeThoughts: true, thinkingBudget: support.min }
  }
  let wanted: number
  if (typeof thinking === 'object') wanted = thinking.budgetTokens
  else if (thinking === 'max') wanted = support.max
  else wanted = LEVEL_BUDGETS[thinking]
  const budget = Math.min(support.max, Math.max(support.min, Math.round(wanted)))
  if (typeof thinking === 'object' && budget !== thinking.budgetTokens)
    warnings.push(
      `thinking: budget ${thinking.budgetTokens} is outside ${support.min}–${support.max}; used ${budget}`,
    )
  return { includeThoughts: true, thinkingBudget: budget }
}

function levelConfig(
  levels: readonly string[],
  thinking: Thinking | undefined,
  warnings: string[],
): GeminiThinkingConfig {
  if (thinking === undefined || levels.length === 0) return { includeThoughts: true }
  const lowest = levels[0]!
  const highest = levels.at(-1)!
  let level: string
  if (thinking === 'off') {
    level = lowest
    warnings.push(`thinking: this model cannot turn thinking off; used its lowest level, ${level}`)
  } else if (thinking === 'max') {
    level = highest
  } else {
    const wanted: Level =
      typeof thinking === 'object' ? levelForBudget(thinking.budgetTokens) : thinking
    level = nearestLevel(levels, wanted)
    if (typeof thinking === 'object')
      warnings.push(
        `thinking: this model takes a level, not a budget; budget ${thinking.budgetTokens} became '${level}'`,
      )
    else if (level !== wanted)
      warnings.push(`thinking: this model has no '${wanted}' level; used '${level}'`)
  }
  return { includeThoughts: true, thinkingLevel: level.toUpperCase() }
}

function levelForBudget(budget: number): Level {
  if (budget <= LEVEL_BUDGETS.low) return 'low'
  if (budget <= LEVEL_BUDGETS.medium) return 'medium'
  return 'high'
}

/** The level itself when the model has it, else the next one up, else the highest. */
function nearestLevel(levels: readonly string[], wanted: Level): string {
  if (levels.includes(wanted)) return wanted
  const order: readonly string[] = ['minimal', 'low', 'medium', 'high']
  const rank = order.indexOf(wanted)
  return levels.find((level) => order.indexOf(level) > rank) ?? levels.at(-1)!
}
