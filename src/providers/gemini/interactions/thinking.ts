import type { Interactions } from '@google/genai'
import type { Thinking } from '../../../core/adapter.ts'
import type { ThinkingSupport } from '../../../core/capabilities.ts'
import { thinkingLevel } from '../thinking-config.ts'

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
  const level = thinkingLevel(levels, thinking, warnings)
  return level === undefined
    ? { thinking_summaries: 'auto' }
    : { thinking_level: level, thinking_summaries: 'auto' }
}
