import type { Reasoning, ReasoningEffort } from 'openai/resources/shared'
import type { Thinking } from '../../core/adapter.ts'
import type { ModelInfo } from '../../models.ts'

const EFFORT_RANK: readonly string[] = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max']

/**
 * The `reasoning` to send for `thinking` on this model, or undefined for none. Reasoning models
 * get an effort and `summary: 'auto'`, so there is thinking to show; for off, `'none'` where the
 * model takes it, else its lowest level and no summary. A model without reasoning gets nothing; an
 * unlisted model gets reasoning only when the caller asks for it. Changes go to `warnings`.
 */
export function planReasoning(
  info: ModelInfo,
  known: boolean,
  thinking: Thinking | undefined,
  warnings: string[],
): Reasoning | undefined {
  const support = info.thinking
  if (support.mode !== 'effort') {
    if (thinking !== undefined && thinking !== 'off')
      warnings.push(`thinking dropped: ${info.id} does not reason`)
    return undefined
  }
  if (thinking === undefined) return known ? { summary: 'auto' } : undefined
  if (thinking === 'off') {
    if (support.canDisable) return { effort: 'none' }
    if (!known) return undefined
    const lowest = support.levels[0] ?? 'low'
    warnings.push(`${info.id} cannot stop reasoning; it reasons at '${lowest}' and shows none`)
    return { effort: toEffort(lowest) }
  }
  const wanted = typeof thinking === 'string' ? thinking : budgetToLevel(thinking.budgetTokens)
  const level = pickLevel(support.levels, wanted)
  if (typeof thinking !== 'string')
    warnings.push(
      `${info.id} takes an effort level, not a budget: ${thinking.budgetTokens} tokens sent as '${level}'`,
    )
  else if (level !== wanted)
    warnings.push(`thinking '${wanted}' sent as '${level}', the nearest level ${info.id} takes`)
  return { effort: toEffort(level), summary: 'auto' }
}

function budgetToLevel(budget: number): string {
  if (budget <= 4_096) return 'low'
  if (budget <= 12_288) return 'medium'
  if (budget <= 24_576) return 'high'
  return 'max'
}

/** The level itself when the model takes it, else the highest one below it, else the lowest. */
function pickLevel(levels: readonly string[], wanted: string): string {
  if (levels.includes(wanted)) return wanted
  const rank = EFFORT_RANK.indexOf(wanted)
  let best: string | undefined
  for (const level of levels) if (EFFORT_RANK.indexOf(level) <= rank) best = level
  return best ?? levels[0] ?? 'medium'
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
