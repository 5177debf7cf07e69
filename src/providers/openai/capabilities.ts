import { findModel, type ModelInfo } from '../../models.ts'

/**
 * What an unlisted model gets: no reasoning settings unless the caller asks for thinking (then the
 * three efforts every reasoning model takes), no sampling parameters (reasoning models refuse
 * them), and JSON by instruction.
 */
const fallback: Omit<ModelInfo, 'id'> = {
  provider: 'openai',
  thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false },
  tools: true,
  json: false,
  contextTokens: 128_000,
  maxOutputTokens: 16_384,
  rejects: ['temperature'],
}

/**
 * The table row of an OpenAI model, or the conservative default for one not listed, with `id` set
 * to the model itself (rows may match a family).
 */
export function openaiModelInfo(model: string): ModelInfo {
  return { ...(findModel('openai', model) ?? fallback), id: model }
}

/** True when the model is in the table. */
export function isKnownOpenaiModel(model: string): boolean {
  return findModel('openai', model) !== undefined
}
