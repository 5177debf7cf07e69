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
      /** The model thinks when the request says nothing about thinking. */
      defaultOn?: boolean | undefined
    }
  /** An effort level chosen by the provider (Anthropic adaptive, OpenAI `reasoning.effort`, Gemini 3 `thinkingLevel`). */
  | {
      mode: 'effort'
      levels: readonly string[]
      canDisable: boolean
      hiddenByDefault?: boolean | undefined
      /** The model thinks when the request says nothing about thinking. */
      defaultOn?: boolean | undefined
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
  /**
   * The provider refuses a replayed tool call without its reasoning signature (Gemini 3: the first
   * function call of each step), so turns from elsewhere carry the provider's documented placeholder.
   */
  requiresToolCallSignature?: boolean | undefined
}

/**
 * Anthropic rows. API version 2026-10-21 (SDK 1.x) removed `temperature`, `top_p` and `top_k`, so
 * every row rejects them. Budget rows take `enabled` + `budget_tokens`; effort rows take `adaptive`
 * plus `output_config.effort` (levels lowest first). `hiddenByDefault`: the model omits thinking
 * text unless asked for `display: 'summarized'`. `forced-tool-choice`: `tool_choice` `any`/`tool`
 * is refused.
 */
const anthropicModels: readonly ModelInfo[] = [
  {
    provider: 'anthropic',
    id: 'claude-haiku-4-5*',
    thinking: { mode: 'budget', min: 1024, max: 63_999, canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-5*',
    thinking: { mode: 'budget', min: 1024, max: 63_999, canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-5*',
    thinking: { mode: 'budget', min: 1024, max: 63_999, canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-6*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'max'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-4-6*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'max'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-7*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-4-8*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-preview*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-fable-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-fable-5-1*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k', 'forced-tool-choice'],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-5-1*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k', 'forced-tool-choice'],
  },
  {
    provider: 'anthropic',
    id: 'claude-opus-5-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k', 'forced-tool-choice'],
  },
  {
    provider: 'anthropic',
    id: 'claude-sonnet-5-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k', 'forced-tool-choice'],
  },
  {
    provider: 'anthropic',
    id: 'claude-haiku-5-5*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 64_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-fable-5-2*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-5-2*',
    thinking: {
      mode: 'effort',
      levels: ['low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: false,
      hiddenByDefault: true,
      defaultOn: true,
    },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature', 'top_p', 'top_k'],
  },
]

/**
 * OpenAI rows (Responses API). Effort rows list `reasoning.effort` levels lowest first, without
 * `'none'`; `canDisable` means the model takes `'none'`. Reasoning models refuse sampling
 * parameters, so they reject `temperature`. The `*-chat-latest` models take no reasoning settings.
 */
const openaiModels: readonly ModelInfo[] = [
  {
    provider: 'openai',
    id: 'gpt-5.6*',
    thinking: {
      mode: 'effort',
      levels: ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
      canDisable: true,
    },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.4*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'xhigh'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.3*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'xhigh'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.2*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'xhigh'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.2-pro*',
    thinking: { mode: 'effort', levels: ['high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.1*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: true },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.1-codex*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.1-codex-max*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high', 'xhigh'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5*',
    thinking: { mode: 'effort', levels: ['minimal', 'low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 128_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5-pro*',
    thinking: { mode: 'effort', levels: ['high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 400_000,
    maxOutputTokens: 272_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5-chat-latest',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 128_000,
    maxOutputTokens: 16_384,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.1-chat-latest',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 128_000,
    maxOutputTokens: 16_384,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.2-chat-latest',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 128_000,
    maxOutputTokens: 16_384,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-5.3-chat-latest',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 128_000,
    maxOutputTokens: 16_384,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'o4-mini*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 100_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'o3*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 100_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'o1*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 100_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'codex-mini-latest',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 100_000,
    rejects: ['temperature'],
  },
  {
    provider: 'openai',
    id: 'gpt-4.1*',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 1_047_576,
    maxOutputTokens: 32_768,
  },
  {
    provider: 'openai',
    id: 'gpt-4o*',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 128_000,
    maxOutputTokens: 16_384,
  },
]

/**
 * Gemini rows. Gemini 2.5 takes a token budget (`thinkingBudget`); Gemini 3 takes a level
 * (`thinkingLevel`, levels listed lowest first, none of them off) and wants a signature on
 * replayed function calls. `gemini-*` covers later models the way Gemini 3 works, with the two
 * levels every Gemini 3 model takes.
 */
const geminiModels: readonly ModelInfo[] = [
  {
    provider: 'gemini',
    id: 'gemini-2.5-pro*',
    thinking: { mode: 'budget', min: 128, max: 32_768, canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
  },
  {
    provider: 'gemini',
    id: 'gemini-2.5-flash*',
    thinking: { mode: 'budget', min: 1, max: 24_576, canDisable: true },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
  },
  {
    provider: 'gemini',
    id: 'gemini-2.5-flash-lite*',
    thinking: { mode: 'budget', min: 512, max: 24_576, canDisable: true },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
  },
  {
    provider: 'gemini',
    id: 'gemini-3-pro*',
    thinking: { mode: 'effort', levels: ['low', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3.1-pro*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3-flash*',
    thinking: { mode: 'effort', levels: ['minimal', 'low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3.1-flash-lite*',
    thinking: { mode: 'effort', levels: ['minimal', 'low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3.5-flash*',
    thinking: { mode: 'effort', levels: ['minimal', 'low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3.6-flash*',
    thinking: { mode: 'effort', levels: ['minimal', 'low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3.7-flash*',
    thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-3*',
    thinking: { mode: 'effort', levels: ['low', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-*',
    thinking: { mode: 'effort', levels: ['low', 'high'], canDisable: false },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    provider: 'gemini',
    id: 'gemini-2.0-*',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 8_192,
  },
  {
    provider: 'gemini',
    id: 'gemini-1.5-*',
    thinking: { mode: 'none' },
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 8_192,
  },
]

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
