/**
 * What each model supports, as data. Adapters read this table; nothing else hard-codes a model
 * name. A model that is not listed gets its provider's conservative default row.
 */

/** How a model takes a thinking setting. */
export type ThinkingSupport =
  /** No reasoning control at all. */
  | { mode: 'none' }
  /** A token budget (Anthropic `enabled` + `budget_tokens`, Gemini 2.5 `thinkingBudget`). */
  | {
      mode: 'budget'
      min: number
      max: number
      canDisable: boolean
      hiddenByDefault?: boolean | undefined
    }
  /** An effort level chosen by the provider (Anthropic adaptive, OpenAI `reasoning.effort`, Gemini 3 `thinkingLevel`). */
  | {
      mode: 'effort'
      levels: readonly string[]
      canDisable: boolean
      hiddenByDefault?: boolean | undefined
    }

/** One row of the table. */
export type ModelInfo = {
  /** Provider name, as in `Adapter.provider`. */
  provider: string
  /** Model id, or a prefix ending in `*` that matches a family. */
  id: string
  thinking: ThinkingSupport
  tools: boolean
  json: boolean
  /** Context window in tokens. */
  contextTokens: number
  /** Largest `max_tokens` the model takes. */
  maxOutputTokens: number
  /** Request options the model rejects (dropped with a warning). */
  rejects?: readonly string[] | undefined
}

/** Anthropic rows (filled by the Anthropic adapter's work). */
const anthropicModels: readonly ModelInfo[] = []

/** OpenAI rows. */
const openaiModels: readonly ModelInfo[] = []

/** Gemini rows. */
const geminiModels: readonly ModelInfo[] = []

/** Offline mock models, served by the relay when no provider key is set. */
const mockModels: readonly ModelInfo[] = [
  {
    provider: 'mock',
    id: 'echo',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
  },
]

/** Every known model. */
export const models: readonly ModelInfo[] = [
  ...anthropicModels,
  ...openaiModels,
  ...geminiModels,
  ...mockModels,
]

/**
 * The row for `provider`/`model`: an exact id first, then the longest matching `prefix*` row,
 * else undefined (the adapter then uses its conservative default).
 */
export function findModel(provider: string, model: string): ModelInfo | undefined {
  let best: ModelInfo | undefined
  for (const row of models) {
    if (row.provider !== provider) continue
    if (row.id === model) return row
    if (row.id.endsWith('*') && model.startsWith(row.id.slice(0, -1))) {
      if (best === undefined || row.id.length > best.id.length) best = row
    }
  }
  return best
}
