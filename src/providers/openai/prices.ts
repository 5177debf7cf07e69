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
// Other service tiers. A model has a tier's prices only where OpenAI publishes them; a turn that
// tier served of any other model has no `usage.cost`.
//
// Priority (read 2026-12-06): OpenAI's table at
// https://openai.com/api-priority-processing/ (input / cached input / output, short context),
// for the models of our catalog it lists: gpt-5.4 $5 / $0.50 / $30, gpt-5.4 mini $1.50 / $0.15 /
// $9, gpt-5.2 $3.50 / $0.35 / $28, gpt-5.1 and gpt-5 $2.50 / $0.25 / $20, gpt-5 mini $0.45 /
// $0.045 / $3.60, gpt-4.1 $3.50 / $0.875 / $14, gpt-4.1 mini $0.70 / $0.175 / $2.80, o3 $3.50 /
// $0.875 / $14, o4-mini $2 / $0.50 / $8. Not in that table: gpt-5.6, gpt-5.4 nano,
// gpt-5.3 codex, gpt-5.1 codex max, gpt-5 nano.
//
// Flex: "Tokens are priced at Batch API rates"
// (https://developers.openai.com/api/docs/guides/flex-processing), half of Standard on every rate
// as the pricing page's Batch column is (https://benchlm.ai/blog/posts/openai-api-pricing,
// https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch). The guide names the
// models it serves on the pricing page; the models the guide itself named are o3 and o4-mini
// (o4-mini at $0.55 / $2.20 in OpenAI's announcement), at half their Standard rates (o3 $2 /
// $0.50 / $8 since its June 2025 cut, o4-mini $1.10 / $0.275 / $4.40). No other model of the
// catalog was found with a Flex price. A tier with no line (`scale`, which is billed by
// commitment) has no price.

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
    'gpt-5.2': { tiers: { priority: { input: 3.5, cachedInput: 0.35, output: 28 } } },
    'gpt-5.1': { tiers: { priority: { input: 2.5, cachedInput: 0.25, output: 20 } } },
    'gpt-5': { tiers: { priority: { input: 2.5, cachedInput: 0.25, output: 20 } } },
    'gpt-5-mini': { tiers: { priority: { input: 0.45, cachedInput: 0.045, output: 3.6 } } },
    'gpt-4.1': { tiers: { priority: { input: 3.5, cachedInput: 0.875, output: 14 } } },
    'gpt-4.1-mini': { tiers: { priority: { input: 0.7, cachedInput: 0.175, output: 2.8 } } },
    o3: {
      tiers: {
        priority: { input: 3.5, cachedInput: 0.875, output: 14 },
        flex: { input: 1, cachedInput: 0.25, output: 4 },
      },
    },
    'o4-mini': {
      tiers: {
        priority: { input: 2, cachedInput: 0.5, output: 8 },
        flex: { input: 0.55, cachedInput: 0.1375, output: 2.2 },
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
