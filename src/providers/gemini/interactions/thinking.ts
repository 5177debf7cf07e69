import type { Interactions } from '@google/genai'
import type { Thinking } from '../../../core/adapter.ts'
import type { ThinkingSupport } from '../../../core/capabilities.ts'
import { levelForBudget, nearestLevel, type BudgetThresholds } from '../../../kit/effort.ts'

/**
 * The largest budget each level stands for: Gemini's own budgets for its levels, as `gemini()`
 * reads a budget on a model that takes a level.
 */
const GEMINI_BUDGETS: BudgetThresholds = { low: 1024, medium: 8192, high: 24_576 }

/** The thinking fields of `generation_config`. */
export type ThinkingFields = Pick<
  Interactions.GenerationConfig,
  'thinking_level' | 'thinking_summaries'
>

/**
 * The thinking fields for a model's thinking support (see `interactionsThinking`) and the caller's
 * setting. A model that thinks is asked for thought summaries (`thinking_summaries: 'auto'`), which
 * stream as `thinking`; a level is sent only when the caller set one. What the model cannot take
 * becomes the nearest level it can, rounding up as Gemini does, with a warning: no level turns
 * thinking off, so `'off'` is the lowest level.
 */
export function thinkingFields(
  support: ThinkingSupport,
  thinking: Thinking | undefined,
  warnings: string[],
): ThinkingFields {
  if (support.mode === 'none') {
    if (thinking !== undefined && thinking !== 'off')
      warnings.push('thinking: this model takes no thinking setting; it was dropped')
    return {}
  }
  // A budget row reaches here only through `interactionsThinking`, which makes it a level row.
  const levels = support.mode === 'effort' ? support.levels : []
  if (thinking === undefined || levels.length === 0) return { thinking_summaries: 'auto' }
  let level: string
  if (thinking === 'off') {
    level = levels[0]!
    warnings.push(`thinking: this model cannot turn thinking off; used its lowest level, ${level}`)
  } else if (thinking === 'max') {
    level = levels.at(-1)!
  } else {
    const wanted =
      typeof thinking === 'object'
        ? levelForBudget(thinking.budgetTokens, GEMINI_BUDGETS)
        : thinking
    level = nearestLevel(levels, wanted, 'up')
    if (typeof thinking === 'object')
      warnings.push(
        `thinking: this model takes a level, not a budget; budget ${thinking.budgetTokens} became '${level}'`,
      )
    else if (level !== wanted)
      warnings.push(`thinking: this model has no '${wanted}' level; used '${level}'`)
  }
  return { thinking_level: level, thinking_summaries: 'auto' }
}
