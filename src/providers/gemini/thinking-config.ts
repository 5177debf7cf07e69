import type { GenerateContentConfig } from '@google/genai'
import type { Thinking } from '../../core/adapter.ts'
import { assertNever } from '../../core/assert-never.ts'
import type { ThinkingSupport } from '../../core/capabilities.ts'
import { levelForBudget, nearestLevel, type BudgetThresholds } from '../../kit/effort.ts'

/** The `thinkingConfig` of a request: a budget or a level, never both. */
export type GeminiThinkingConfig = {
  includeThoughts?: boolean
  thinkingBudget?: number
  thinkingLevel?: string
}

/**
 * Gemini's budget for each level on models that take a budget, and so also the largest budget
 * each level stands for on models that take a level.
 */
const GEMINI_BUDGETS: BudgetThresholds = { low: 1024, medium: 8192, high: 24_576 }

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
    default:
      return assertNever(support)
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
  else wanted = GEMINI_BUDGETS[thinking]
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
  const level = thinkingLevel(levels, thinking, warnings)
  return level === undefined
    ? { includeThoughts: true }
    : { includeThoughts: true, thinkingLevel: level.toUpperCase() }
}

/**
 * The level of `levels` to send for the caller's `thinking` (undefined: none set, or the model
 * lists none), on either Gemini API. What the model cannot take becomes the nearest level it can,
 * with a warning: no level turns thinking off, so `'off'` is the lowest.
 */
export function thinkingLevel(
  levels: readonly string[],
  thinking: Thinking | undefined,
  warnings: string[],
): string | undefined {
  if (thinking === undefined || levels.length === 0) return undefined
  if (thinking === 'off') {
    const level = levels[0]!
    warnings.push(`thinking: this model cannot turn thinking off; used its lowest level, ${level}`)
    return level
  }
  if (thinking === 'max') return levels.at(-1)!
  const wanted =
    typeof thinking === 'object' ? levelForBudget(thinking.budgetTokens, GEMINI_BUDGETS) : thinking
  // Gemini rounds up: a level the model lacks becomes the next one up (else its highest).
  const level = nearestLevel(levels, wanted, 'up')
  if (typeof thinking === 'object')
    warnings.push(
      `thinking: this model takes a level, not a budget; budget ${thinking.budgetTokens} became '${level}'`,
    )
  else if (level !== wanted)
    warnings.push(`thinking: this model has no '${wanted}' level; used '${level}'`)
  return level
}

/**
 * Holds a thinking budget under `maxOutputTokens` (the caller's `maxTokens`), which counts
 * thoughts too: the cap is never raised, so a budget that would not fit under it shrinks to half
 * the cap (the other half left for the answer), not below the model's smallest budget. When even
 * that does not fit, thinking is turned off where the model can, else no budget is sent (the
 * model then thinks within the cap). Each change is a warning. Runs on the finished config, so a
 * budget from `providerOptions` is held to the cap as well.
 */
export function fitThinkingBudget(
  config: GenerateContentConfig,
  support: ThinkingSupport,
  warnings: string[],
): void {
  const thinking = config.thinkingConfig
  const budget = thinking?.thinkingBudget
  const cap = config.maxOutputTokens
  // 0 is off and -1 dynamic (the model picks, within the cap): neither is a budget to fit.
  if (thinking === undefined || typeof budget !== 'number' || typeof cap !== 'number') return
  if (budget <= 0 || budget < cap) return
  const min = support.mode === 'budget' ? support.min : 1
  const wontFit = `thinking: budget ${budget} does not fit under maxTokens ${cap}`
  if (min < cap) {
    const fitted = Math.max(min, Math.floor(cap / 2))
    thinking.thinkingBudget = fitted
    warnings.push(`${wontFit}; used ${fitted}, leaving the rest for the answer`)
  } else if (support.mode === 'budget' && support.canDisable) {
    config.thinkingConfig = { thinkingBudget: 0 }
    warnings.push(`${wontFit}, nor does the smallest, ${min}; thinking turned off`)
  } else {
    delete thinking.thinkingBudget
    warnings.push(
      `${wontFit}, nor does the smallest, ${min}, and this model cannot turn thinking off; no budget sent`,
    )
  }
}
