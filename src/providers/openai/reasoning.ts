import type { Reasoning, ReasoningEffort } from 'openai/resources/shared'
import type { CallOptions } from '../../core/adapter.ts'
import { levelForBudget, nearestLevel } from '../../kit/effort.ts'
import type { OpenAIModel } from './models.ts'

/**
 * The `reasoning` to send for `options.thinking` on `model`, or undefined for none. Reasoning
 * models get an effort and `summary: 'auto'`, so there is thinking to show; for off, `'none'`
 * where the model takes it, else its lowest level and no summary. A budget is read as the level
 * it amounts to; one that does not fit under `maxTokens` (the caller's cap, never raised, which
 * reasoning tokens count against) is first cut to half of it. A model without reasoning gets
 * nothing; a model that may not reason (an unlisted one) gets reasoning only when the caller asks
 * for it. Changes go to `warnings`.
 */
export function planReasoning(
  model: string,
  row: OpenAIModel,
  options: Pick<CallOptions, 'thinking' | 'maxTokens'>,
  warnings: string[],
): Reasoning | undefined {
  const { thinking, maxTokens } = options
  const support = row.thinking
  if (support.mode !== 'effort') {
    if (thinking !== undefined && thinking !== 'off')
      warnings.push(`thinking dropped: ${model} does not reason`)
    return undefined
  }
  if (thinking === undefined) return row.mayNotReason ? undefined : { summary: 'auto' }
  if (thinking === 'off') {
    if (support.canDisable) return { effort: 'none' }
    if (row.mayNotReason) return undefined
    const lowest = support.levels[0] ?? 'low'
    warnings.push(`${model} cannot stop reasoning; it reasons at '${lowest}' and shows none`)
    return { effort: toEffort(lowest) }
  }
  const budget = typeof thinking === 'string' ? 0 : fitBudget(thinking.budgetTokens, maxTokens)
  const wanted = typeof thinking === 'string' ? thinking : levelForBudget(budget)
  const level = nearestLevel(support.levels, wanted, 'down')
  if (typeof thinking !== 'string') {
    if (budget < thinking.budgetTokens)
      warnings.push(
        `thinking budget of ${thinking.budgetTokens} tokens does not fit under maxTokens ${maxTokens}: read as ${budget}`,
      )
    warnings.push(
      `${model} takes an effort level, not a budget: ${budget} tokens sent as '${level}'`,
    )
  } else if (level !== wanted)
    warnings.push(`thinking '${wanted}' sent as '${level}', the nearest level ${model} takes`)
  return { effort: toEffort(level), summary: 'auto' }
}

/**
 * A budget that fits under the caller's output cap: as it is when it is below `maxTokens`, else
 * half the cap, so the answer keeps room (reasoning tokens count against the cap).
 */
function fitBudget(budget: number, maxTokens: number | undefined): number {
  if (maxTokens === undefined || budget < maxTokens) return budget
  return Math.max(1, Math.floor(maxTokens / 2))
}

/** The `reasoning.effort` levels the API takes. */
const EFFORTS = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
] as const satisfies readonly ReasoningEffort[]

function toEffort(level: string): ReasoningEffort {
  return EFFORTS.find((effort) => effort === level) ?? 'medium'
}
