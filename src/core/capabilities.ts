import type { Pricing } from './pricing.ts'

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
      /** The model omits its thinking text unless asked to show it. */
      hiddenByDefault?: boolean | undefined
      /** The model thinks when the request says nothing about thinking. */
      defaultOn?: boolean | undefined
    }
  /** An effort level (Anthropic adaptive, OpenAI `reasoning.effort`, Gemini 3 `thinkingLevel`). */
  | {
      mode: 'effort'
      /** The levels it takes, lowest first. */
      levels: readonly string[]
      canDisable: boolean
      /** The model omits its thinking text unless asked to show it. */
      hiddenByDefault?: boolean | undefined
      /** The model thinks when the request says nothing about thinking. */
      defaultOn?: boolean | undefined
    }

/**
 * What a model supports, as its adapter knows it. The registry and the relay's `/v1/models` read
 * it from the adapter; nothing outside a provider's folder keeps a table of models.
 */
export type Capabilities = {
  thinking: ThinkingSupport
  /** It takes `CallOptions.tools`. */
  tools: boolean
  /** It takes a JSON schema for its output (otherwise JSON is asked for by instruction). */
  json: boolean
  /** Context window in tokens, when known. */
  contextTokens?: number | undefined
  /** Largest `maxTokens` it takes, when known. */
  maxOutputTokens?: number | undefined
  /** Its prices in US dollars per million tokens, when known (the `done` turn's `usage.cost` comes from them). */
  pricing?: Pricing | undefined
}
