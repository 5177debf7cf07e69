import type { Capabilities, ThinkingSupport } from '../../../core/capabilities.ts'
import { withPricing } from '../../../core/pricing.ts'
import { capabilitiesOf, geminiModel } from '../models.ts'
import { geminiPricing } from '../prices.ts'

/**
 * How a model takes thinking on the Interactions API, from its row in Gemini's table. The
 * Interactions API takes a level only (`generation_config.thinking_level`), for Gemini 2.5 too:
 * Google's thinking page for this API lists `low`, `medium` and `high` for the 2.5 models, whose
 * generateContent row takes a token budget. No level turns thinking off.
 */
export function interactionsThinking(support: ThinkingSupport): ThinkingSupport {
  if (support.mode !== 'budget') return support
  return { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: false }
}

/**
 * What `model` supports on the Interactions API, with its price: Gemini's table (the same models,
 * limits and prices as `gemini()`), with thinking as {@link interactionsThinking} says. Read from
 * the tables alone, so a host can list a model before it loads the SDK.
 */
export function geminiInteractionsCapabilities(model: string): Capabilities {
  const capabilities = capabilitiesOf(geminiModel(model))
  return withPricing(
    { ...capabilities, thinking: interactionsThinking(capabilities.thinking) },
    geminiPricing(model),
  )
}
