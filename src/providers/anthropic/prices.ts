import type { Pricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'

// Anthropic's prices in US dollars per million tokens. Cache writes cost 1.25x input for the
// 5-minute cache and 2x for the 1-hour cache; reasoning (thinking) tokens are billed as output.
// A model with no line here has no price, and its turns carry no `usage.cost`.

/**
 * Source: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing"), read 2026-12-02.
 * Claude Fable 5.1: $10 input, $12.50 5m write, $20 1h write, $0.25 cache hit, $50 output.
 */
const FABLE_5_1: Pricing = {
  input: 10,
  cacheWrite: 12.5,
  cacheWrite1h: 20,
  cachedInput: 0.25,
  output: 50,
}
/** Same source and date. Claude Fable 5: $10, $12.50, $20, $1 cache hit, $50. */
const FABLE_5: Pricing = {
  input: 10,
  cacheWrite: 12.5,
  cacheWrite1h: 20,
  cachedInput: 1,
  output: 50,
}
/** Same source and date. Claude Opus 5, 4.8, 4.7, 4.6, 4.5: $5, $6.25, $10, $0.50, $25. */
const OPUS: Pricing = { input: 5, cacheWrite: 6.25, cacheWrite1h: 10, cachedInput: 0.5, output: 25 }
/**
 * Source: https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview ("Pricing"), read
 * 2026-12-02. Claude Sonnet 5: $2 input, $2.50 5m write, $4 1h write, $0.20 cache read, $10 output.
 */
const SONNET_5: Pricing = {
  input: 2,
  cacheWrite: 2.5,
  cacheWrite1h: 4,
  cachedInput: 0.2,
  output: 10,
}
/**
 * Source: https://platform.claude.com/docs/zh-CN/about-claude/pricing (model table), read
 * 2026-12-02. Claude Sonnet 4.6 and 4.5: $3, $3.75, $6, $0.30, $15.
 */
const SONNET_4: Pricing = {
  input: 3,
  cacheWrite: 3.75,
  cacheWrite1h: 6,
  cachedInput: 0.3,
  output: 15,
}
/** Same source and date. Claude Haiku 4.5: $1, $1.25, $2, $0.10, $5. */
const HAIKU_4_5: Pricing = {
  input: 1,
  cacheWrite: 1.25,
  cacheWrite1h: 2,
  cachedInput: 0.1,
  output: 5,
}

// Left out, for want of one flat price from Anthropic's own pages: Claude Haiku 5.5 (priced by
// prompt length), Sonnet 5.5 and Opus 5.5 (cache prices changed on 2026-10-07), Fable 5.2, Mythos.
const table = modelTable<{ pricing?: Pricing | undefined }>(
  {},
  {
    'claude-fable-5-1*': { pricing: FABLE_5_1 },
    'claude-fable-5': { pricing: FABLE_5 },
    'claude-fable-5-2*': {},
    'claude-opus-5': { pricing: OPUS },
    'claude-opus-4-8*': { pricing: OPUS },
    'claude-opus-4-7*': { pricing: OPUS },
    'claude-opus-4-6*': { pricing: OPUS },
    'claude-opus-4-5*': { pricing: OPUS },
    'claude-sonnet-5': { pricing: SONNET_5 },
    'claude-sonnet-4-6*': { pricing: SONNET_4 },
    'claude-sonnet-4-5*': { pricing: SONNET_4 },
    'claude-haiku-4-5*': { pricing: HAIKU_4_5 },
  },
)

/** The prices of `model` (its exact id or its family), or undefined when unknown. */
export function anthropicPricing(model: string): Pricing | undefined {
  return table.find(model)?.pricing
}
