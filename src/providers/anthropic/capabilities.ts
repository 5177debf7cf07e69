import { findModel, type ModelInfo } from '../../models.ts'

/**
 * What an unlisted model gets: the modern request shape (adaptive thinking with an effort level
 * every current model takes), never `disabled` (some models always think), thinking asked to be
 * shown, no sampling parameters, and JSON by instruction rather than structured output.
 */
const fallback: Omit<ModelInfo, 'id'> = {
  provider: 'anthropic',
  thinking: {
    mode: 'effort',
    levels: ['low', 'medium', 'high'],
    canDisable: false,
    hiddenByDefault: true,
  },
  tools: true,
  json: false,
  contextTokens: 200_000,
  maxOutputTokens: 32_000,
  rejects: ['temperature', 'top_p', 'top_k'],
}

/**
 * The table row of an Anthropic model, or the conservative default for one not listed, with `id`
 * set to the model itself (rows may match a family).
 */
export function anthropicModelInfo(model: string): ModelInfo {
  return { ...(findModel('anthropic', model) ?? fallback), id: model }
}

/** True when the model is in the table (an unlisted one gets the most conservative requests). */
export function isKnownAnthropicModel(model: string): boolean {
  return findModel('anthropic', model) !== undefined
}
