import type { Capabilities, ThinkingSupport } from '../../core/capabilities.ts'
import { withPricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'
import { geminiPricing } from './prices.ts'

/** What the adapter knows about one Gemini model: its capabilities, plus Gemini's own rules. */
export type GeminiModel = Capabilities & {
  /**
   * Gemini refuses a replayed step whose first function call has no signature (Gemini 3), so a
   * turn rebuilt from elsewhere carries the documented placeholder signature.
   */
  requiresToolCallSignature: boolean
}

/** A model that takes `thinkingLevel`, lowest level first; none of them turns thinking off. */
const levels = (...names: string[]): ThinkingSupport => ({
  mode: 'effort',
  levels: names,
  canDisable: false,
})

/** A model that takes `thinkingBudget` between `min` and `max` tokens (`0`: off, when it can). */
const budget = (min: number, max: number, canDisable: boolean): ThinkingSupport => ({
  mode: 'budget',
  min,
  max,
  canDisable,
})

const MINIMAL_TO_HIGH = levels('minimal', 'low', 'medium', 'high')
/** Before Gemini 3: no signature asked for on replayed calls. */
const gemini2 = { requiresToolCallSignature: false }

/**
 * Gemini's models. Gemini 3 takes a level (`thinkingLevel`) and wants a signature on replayed
 * function calls; Gemini 2.5 takes a token budget (`thinkingBudget`). `gemini-*` covers later
 * models the way Gemini 3 works, with the two levels every Gemini 3 model takes.
 */
const table = modelTable<GeminiModel>(
  {
    thinking: levels('low', 'high'),
    tools: true,
    json: true,
    contextTokens: 1_048_576,
    maxOutputTokens: 65_536,
    requiresToolCallSignature: true,
  },
  {
    'gemini-*': {},
    'gemini-3.1-pro*': { thinking: levels('low', 'medium', 'high') },
    'gemini-3-flash*': { thinking: MINIMAL_TO_HIGH },
    'gemini-3.1-flash-lite*': { thinking: MINIMAL_TO_HIGH },
    'gemini-3.5-flash*': { thinking: MINIMAL_TO_HIGH },
    'gemini-3.6-flash*': { thinking: MINIMAL_TO_HIGH },
    'gemini-3.7-flash*': { thinking: levels('low', 'medium', 'high') },
    'gemini-2.5-pro*': { ...gemini2, thinking: budget(128, 32_768, false) },
    'gemini-2.5-flash*': { ...gemini2, thinking: budget(1, 24_576, true) },
    'gemini-2.5-flash-lite*': { ...gemini2, thinking: budget(512, 24_576, true) },
    'gemini-2.0-*': { ...gemini2, thinking: { mode: 'none' }, maxOutputTokens: 8_192 },
    'gemini-1.5-*': { ...gemini2, thinking: { mode: 'none' }, maxOutputTokens: 8_192 },
  },
)

/** Gemini's current text models (shut-down and deprecated ones left out), for `/v1/models`. */
export const geminiModels: readonly string[] = [
  'gemini-3.1-pro-preview',
  'gemini-3-flash-preview',
  'gemini-3.1-flash-lite-preview',
  'gemini-3.5-flash',
  'gemini-3.5-flash-lite',
  'gemini-3.6-flash',
  'gemini-3.7-flash',
  'gemini-3.8-flash',
  'gemini-4-argon',
  'gemini-2.5-pro',
]

/**
 * The row of a model the table does not know (e.g. a Gemma model): no thinking setting is sent
 * and `maxTokens` is passed on as it is, so no request is refused for a reason known in advance.
 */
export const UNKNOWN_GEMINI_MODEL: GeminiModel = {
  thinking: { mode: 'none' },
  tools: true,
  json: true,
  requiresToolCallSignature: false,
}

/** The row of `model`: its exact id, else its longest family, else {@link UNKNOWN_GEMINI_MODEL}. */
export function geminiModel(model: string): GeminiModel {
  return table.find(model) ?? UNKNOWN_GEMINI_MODEL
}

/** What a row says to the registry and `/v1/models`: its capabilities, without Gemini's rules. */
export function capabilitiesOf(row: GeminiModel): Capabilities {
  const { requiresToolCallSignature: _, ...capabilities } = row
  return capabilities
}

/**
 * What `model`'s adapter says it supports, with its price: read from the tables alone, so a host
 * can list a model before it loads the SDK.
 */
export function geminiCapabilities(model: string): Capabilities {
  return withPricing(capabilitiesOf(geminiModel(model)), geminiPricing(model))
}
