import type { Reasoning, ReasoningEffort } from 'openai/resources/shared'
import type { Thinking } from '../../core/adapter.ts'
import { levelForBudget, nearestLevel } from '../../kit/effort.ts'
import type { OpenAIModel } from './models.ts'

/**
 * The `reasoning` to send for `thinking` on `model`, or undefined for none. Reasoning models get
 * an effort and `summary: 'auto'`, so there is thinking to show; for off, `'none'` where the model
 * takes it, else its lowest level and no summary. A model without reasoning gets nothing; a model
 * that may not reason (an unlisted one) gets reasoning only when the caller asks for it. Changes go
 * to `warnings`.
 */
export function planReasoning(
  model: string,
  row: OpenAIModel,
  thinking: Thinking | undefined,
  warnings: string[],
): Reasoning | undefined {
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
  const wanted = typeof thinking === 'string' ? thinking : levelForBudget(thinking.budgetTokens)
  const level = nearestLevel(support.levels, wanted, 'down')
  if (typeof thinking !== 'string')
    warnings.push(
      `${model} takes an effort level, not a budget: ${thinking.budgetTokens} tokens sent as '${level}'`,
    )
  else if (level !== wanted)
    warnings.push(`thinking '${wanted}' sent as '${level}', the nearest level ${model} takes`)
  return { effort: toEffort(level), summary: 'auto' }
}

function toEffort(level: string): ReasoningEffort {
  switch (level) {
    case 'none':
    case 'minimal':
    case 'low':
    case 'medium':
    case 'high':
    case 'xhigh':
    case 'max':
      return level
    default:
      return 'medium'
  }
}
