import type { Pricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'

// OpenAI's prices in US dollars per million tokens. Reasoning tokens are billed as output. A model
// with no line here has no price, and its turns carry no `usage.cost`.
//
// Standard: OpenAI's pricing page, https://developers.openai.com/api/docs/pricing, as transcribed
// (March 2026) in https://docs.rs/crate/adk-model/latest/source/src/openai/pricing.rs, read
// 2026-12-02; gpt-5.4-mini agrees with https://dev.to/preecha/gpt-54-mini-pricing-and-how-to-use-gpt-54-mini-api-1jcg.
// Only these two were found with their cached-input price; every other model is left unpriced.
//
// Other service tiers, read 2026-12-06. Priority: OpenAI's table at
// https://openai.com/api-priority-processing/ (gpt-5.4 $5 / $0.50 / $30, gpt-5.4 mini $1.50 /
// $0.15 / $9, short context). Flex: "Tokens are priced at Batch API rates"
// (https://developers.openai.com/api/docs/guides/flex-processing), half of Standard on every rate
// as the pricing page's Batch column is (https://benchlm.ai/blog/posts/openai-api-pricing,
// https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch). A tier with no line
// (`scale`, which is billed by commitment) has no price.

/** gpt-5.4: $2.50 input, $0.25 cached input, $15 output. */
const GPT_5_4: Pricing = { input: 2.5, cachedInput: 0.25, output: 15 }
/** gpt-5.4-mini: $0.75 input, $0.075 cached input, $4.50 output. */
const GPT_5_4_MINI: Pricing = { input: 0.75, cachedInput: 0.075, output: 4.5 }

/** A model's prices: Standard, and those of the other service tiers it is sold at. */
type Priced = {
  pricing?: Pricing | undefined
  /** By the `service_tier` a response names (`'priority'`, `'flex'`); Standard is `pricing`. */
  tiers?: Readonly<Record<string, Pricing>> | undefined
}

const table = modelTable<Priced>(
  {},
  {
    'gpt-5.4': {
      pricing: GPT_5_4,
      tiers: {
        priority: { input: 5, cachedInput: 0.5, output: 30 },
        flex: { input: 1.25, cachedInput: 0.125, output: 7.5 },
      },
    },
    'gpt-5.4-mini': {
      pricing: GPT_5_4_MINI,
      tiers: {
        priority: { input: 1.5, cachedInput: 0.15, output: 9 },
        flex: { input: 0.375, cachedInput: 0.0375, output: 2.25 },
      },
    },
  },
)

/** The prices of `model` (Standard tier), or undefined when unknown. */
export function openaiPricing(model: string): Pricing | undefined {
  return table.find(model)?.pricing
}

/**
 * The prices of a turn of `model` served at `tier`, as its response names it: undefined for
 * Standard (`'default'`, or no tier named: the model's own prices apply), the tier's prices where
 * the table has them, else null (a tier without a price: `'scale'`, or `'auto'`, which names none).
 */
export function openaiTierPricing(
  model: string,
  tier: string | null | undefined,
): Pricing | null | undefined {
  if (tier === null || tier === undefined || tier === 'default') return undefined
  return table.find(model)?.tiers?.[tier] ?? null
}
