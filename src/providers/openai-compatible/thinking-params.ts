import type { Thinking } from '../../core/adapter.ts'
import { levelForBudget, type BudgetThresholds } from '../../kit/effort.ts'
import type { JsonRecord } from '../../kit/json.ts'
import type { EffortLevels, ThinkingControl } from './reasoning.ts'

type Level = keyof EffortLevels

/** A budget as a level on these servers: up to 1k low, 8k medium, more high (never max). */
const BUDGET_THRESHOLDS: BudgetThresholds = {
  low: 1024,
  medium: 8192,
  high: Number.POSITIVE_INFINITY,
}

/** The smallest reasoning budget OpenRouter passes on (Anthropic's minimum). */
const OPENROUTER_MIN_BUDGET = 1024

/**
 * The request fields that carry a thinking setting on this server. What it cannot take is dropped
 * or mapped to the nearest thing it can, with a warning. `maxTokens` is the caller's cap: a budget
 * that does not fit under it shrinks instead.
 */
export function thinkingParams(
  control: ThinkingControl | undefined,
  thinking: Thinking | undefined,
  warnings: string[],
  maxTokens?: number | undefined,
): JsonRecord {
  if (thinking === undefined) return {}
  if (control === undefined || control.type === 'none') {
    warnings.push('thinking: this server takes no thinking setting for this model; it was dropped')
    return {}
  }
  if (control.type === 'openrouter-reasoning') {
    if (thinking === 'off') return { reasoning: { enabled: false } }
    if (typeof thinking === 'object')
      return openrouterBudget(thinking.budgetTokens, maxTokens, warnings)
    return { reasoning: { effort: thinking === 'max' ? 'high' : thinking } }
  }
  if (thinking === 'off') {
    if (control.off !== undefined) return { ...control.off }
    warnings.push('thinking: this model cannot turn thinking off; left at its default')
    return {}
  }
  const wanted: Level =
    typeof thinking === 'object'
      ? levelForBudget(thinking.budgetTokens, BUDGET_THRESHOLDS)
      : thinking
  if (typeof thinking === 'object')
    warnings.push(
      `thinking: this server takes a level, not a budget; budget ${thinking.budgetTokens} became '${wanted}'`,
    )
  const value = control.levels[wanted] ?? (wanted === 'max' ? control.levels.high : undefined)
  if (value === undefined) {
    warnings.push(`thinking: this model has no '${wanted}' level; left at its default`)
    return {}
  }
  return { ...control.on, reasoning_effort: value }
}

/**
 * OpenRouter's `reasoning.max_tokens`, which must stay below the output cap (the answer comes out
 * of the same tokens). A budget that does not fit shrinks to half the cap, but not below the
 * smallest budget; when even that does not fit, thinking is turned off. Either way with a warning.
 */
function openrouterBudget(
  budget: number,
  maxTokens: number | undefined,
  warnings: string[],
): JsonRecord {
  if (maxTokens === undefined || budget < maxTokens) return { reasoning: { max_tokens: budget } }
  const fitted = Math.max(OPENROUTER_MIN_BUDGET, Math.floor(maxTokens / 2))
  if (fitted < maxTokens) {
    warnings.push(
      `thinking: budget ${budget} lowered to ${fitted} to leave room for the answer under maxTokens ${maxTokens}`,
    )
    return { reasoning: { max_tokens: fitted } }
  }
  warnings.push(
    `thinking: turned off, since maxTokens ${maxTokens} leaves no room above the smallest budget (${OPENROUTER_MIN_BUDGET})`,
  )
  return { reasoning: { enabled: false } }
}
