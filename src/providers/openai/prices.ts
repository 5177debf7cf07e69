import type { Pricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'

// OpenAI's prices in US dollars per million tokens (Standard tier). Reasoning tokens are billed as
// output. A model with no line here has no price, and its turns carry no `usage.cost`.
//
// Source: OpenAI's pricing page, https://developers.openai.com/api/docs/pricing, as transcribed
// (March 2026) in https://docs.rs/crate/adk-model/latest/source/src/openai/pricing.rs, read
// 2026-12-02; gpt-5.4-mini agrees with https://dev.to/preecha/gpt-54-mini-pricing-and-how-to-use-gpt-54-mini-api-1jcg.
// Only these two were found with their cached-input price; every other model is left unpriced.

/** gpt-5.4: $2.50 input, $0.25 cached input, $15 output. */
const GPT_5_4: Pricing = { input: 2.5, cachedInput: 0.25, output: 15 }
/** gpt-5.4-mini: $0.75 input, $0.075 cached input, $4.50 output. */
const GPT_5_4_MINI: Pricing = { input: 0.75, cachedInput: 0.075, output: 4.5 }

const table = modelTable<{ pricing?: Pricing | undefined }>(
  {},
  {
    'gpt-5.4': { pricing: GPT_5_4 },
    'gpt-5.4-mini': { pricing: GPT_5_4_MINI },
  },
)

/** The prices of `model`, or undefined when unknown. */
export function openaiPricing(model: string): Pricing | undefined {
  return table.find(model)?.pricing
}
