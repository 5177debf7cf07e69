import type { ThinkingConfigParam } from '@anthropic-ai/sdk/resources/messages'
import type { Thinking } from '../../core/adapter.ts'
import { levelForBudget, nearestLevel } from '../../kit/effort.ts'
import type { ModelEntry } from './models.ts'

/** The `output_config.effort` levels the API takes. */
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const

/** An `output_config.effort` value. */
export type Effort = (typeof EFFORTS)[number]

/** The thinking part of a request, worked out for one model. */
export type ThinkingPlan = {
  thinking?: ThinkingConfigParam | undefined
  effort?: Effort | undefined
  maxTokens: number
  /** `enabled` + `budget_tokens` (manual mode), which forbids forced tool use. */
  manual: boolean
}

/** `max_tokens` when the caller gives none (the API requires one; it caps thinking too). */
const DEFAULT_MAX_TOKENS = 32_000
/** Room left for the answer above a thinking budget that had to grow `max_tokens` or shrink. */
const ANSWER_ROOM = 4_096
const LEVEL_BUDGET = { low: 2_048, medium: 8_192, high: 16_384, max: 32_768 } as const

/**
 * The `thinking`, `output_config.effort` and `max_tokens` to send for `thinking` on this model.
 * Budget models get `enabled` with a budget of at least the model's minimum and below
 * `max_tokens`; the caller's `maxTokens` is a cap that is never raised (the budget shrinks to fit
 * under it, and thinking is turned off when even the minimum does not fit), while the default
 * `max_tokens` grows to fit the budget. Effort models get `adaptive` plus an effort; a model that
 * cannot stop thinking never gets `disabled`; a model that hides its thinking by default is asked
 * for a summary; an unlisted model (`known` false) is never sent `disabled`. Every change to what
 * the caller asked for is pushed to `warnings`.
 */
export function planThinking(
  { id: model, row: info, known }: ModelEntry,
  thinking: Thinking | undefined,
  requestedMaxTokens: number | undefined,
  warnings: string[],
): ThinkingPlan {
  const support = info.thinking
  let maxTokens = requestedMaxTokens ?? Math.min(DEFAULT_MAX_TOKENS, info.maxOutputTokens)
  if (maxTokens > info.maxOutputTokens) {
    warnings.push(
      `maxTokens lowered from ${maxTokens} to ${info.maxOutputTokens}, the most ${model} takes`,
    )
    maxTokens = info.maxOutputTokens
  }
  const room: Room = {
    model,
    maxTokens,
    maxOutputTokens: info.maxOutputTokens,
    capped: requestedMaxTokens !== undefined,
  }
  if (support.mode === 'none') {
    if (thinking !== undefined && thinking !== 'off')
      warnings.push(`thinking dropped: ${model} does not think`)
    return { maxTokens, manual: false }
  }
  const display = support.hiddenByDefault === true ? ({ display: 'summarized' } as const) : {}

  if (thinking === undefined) {
    // The model's default; when that is to think but not show it, ask to see the thinking.
    const show =
      support.mode === 'effort' && support.defaultOn === true && support.hiddenByDefault === true
    return {
      thinking: show ? { type: 'adaptive', display: 'summarized' } : undefined,
      maxTokens,
      manual: false,
    }
  }

  if (thinking === 'off') {
    if (support.canDisable) return { thinking: { type: 'disabled' }, maxTokens, manual: false }
    if (!known) {
      // Whether an unlisted model can stop thinking is unknown, and `disabled` is refused by
      // models that cannot: leave thinking to the model's default.
      warnings.push(`thinking 'off' not sent: whether ${model} can stop thinking is unknown`)
      return { maxTokens, manual: false }
    }
    warnings.push(`${model} cannot stop thinking; it thinks at its lowest effort and shows none`)
    if (support.mode === 'effort') {
      return {
        thinking: { type: 'adaptive', display: 'omitted' },
        effort: toEffort(support.levels[0]),
        maxTokens,
        manual: false,
      }
    }
    return budgetPlan(room, support.min, support, {}, warnings)
  }

  if (support.mode === 'budget') {
    const wanted = typeof thinking === 'string' ? LEVEL_BUDGET[thinking] : thinking.budgetTokens
    const budget = Math.min(Math.max(wanted, support.min), support.max)
    if (budget !== wanted)
      warnings.push(
        `thinking budget ${wanted} moved to ${budget}, within ${model}'s ${support.min}–${support.max}`,
      )
    return budgetPlan(room, budget, support, display, warnings)
  }

  const wanted = typeof thinking === 'string' ? thinking : levelForBudget(thinking.budgetTokens)
  const level = nearestLevel(support.levels, wanted, 'down')
  if (typeof thinking !== 'string')
    warnings.push(
      `${model} takes an effort level, not a budget: ${thinking.budgetTokens} tokens sent as '${level}'`,
    )
  else if (level !== wanted)
    warnings.push(`thinking '${wanted}' sent as '${level}', the nearest level ${model} takes`)
  return {
    thinking: { type: 'adaptive', ...display },
    effort: toEffort(level),
    maxTokens,
    manual: false,
  }
}

/** The output room a budget must fit in. */
type Room = {
  model: string
  /** `max_tokens` as it stands: the caller's (within the model's limit) or the default. */
  maxTokens: number
  maxOutputTokens: number
  /** The caller set `maxTokens`: it is never raised. */
  capped: boolean
}

/**
 * `enabled` with a `budget_tokens` below `max_tokens` (the API's rule). The default `max_tokens`
 * grows to leave room above the budget; the caller's never does: the budget shrinks to fit under
 * it (leaving room for the answer when it can, never below the model's minimum), and when even
 * the minimum does not fit, thinking is sent `disabled` (or, for a model that cannot stop, left to
 * its default).
 */
function budgetPlan(
  room: Room,
  budget: number,
  support: { min: number; canDisable: boolean },
  display: { display?: 'summarized' },
  warnings: string[],
): ThinkingPlan {
  const { model, capped } = room
  let maxTokens = room.maxTokens
  if (budget >= maxTokens && !capped)
    maxTokens = Math.min(room.maxOutputTokens, budget + ANSWER_ROOM)
  let spend = budget
  if (spend >= maxTokens) {
    spend = Math.min(spend, Math.max(support.min, maxTokens - ANSWER_ROOM))
    if (spend >= maxTokens) {
      const why = `maxTokens ${maxTokens} leaves no room for ${model}'s smallest thinking budget (${support.min})`
      if (!support.canDisable) {
        warnings.push(`thinking not sent: ${why}`)
        return { maxTokens, manual: false }
      }
      warnings.push(`thinking off: ${why}`)
      return { thinking: { type: 'disabled' }, maxTokens, manual: false }
    }
    warnings.push(
      `thinking budget ${budget} lowered to ${spend} to fit under maxTokens ${maxTokens}`,
    )
  }
  return {
    thinking: { type: 'enabled', budget_tokens: spend, ...display },
    maxTokens,
    manual: true,
  }
}

function toEffort(level: string | undefined): Effort | undefined {
  return EFFORTS.find((effort) => effort === level)
}
