import type { Pricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'

// Gemini Developer API prices (paid tier) in US dollars per million tokens; output includes
// thinking tokens. Models priced by prompt length (Gemini 3.1 Pro, 2.5 Pro: more above 200k
// tokens) are left out, as is any model with no line here: its turns carry no `usage.cost`.

/**
 * Source: https://ai.google.dev/gemini-api/docs/pricing, as transcribed word for word on
 * 2026-10-07 in https://raw.githubusercontent.com/api-evangelist/deepmind/refs/heads/main/plans/deepmind-plans-pricing.yml
 * and https://github.com/api-evangelist/gemini (plans/gemini-plans-pricing.yml), read 2026-12-02:
 * $0.75 input, $3.75 output "through December 31, 2026", then $1.50 input, $7.50 output from
 * January 1, 2027. Cache reads $0.075 during the promotion:
 * https://github.com/BerriAI/litellm/discussions/39357; no cache price was found for 2027, so from
 * then cached tokens are billed at the input price (an over-estimate, never an under-estimate).
 */
const GEMINI_3_8_FLASH: Pricing = {
  input: 0.75,
  cachedInput: 0.075,
  output: 3.75,
  changes: [{ from: '2027-01-01', input: 1.5, output: 7.5 }],
}
/**
 * Same page and transcription (api-evangelist/gemini plans/gemini-plans-pricing.yml, generated
 * 2026-09-20), read 2026-12-02: $1.50 input, $9.00 output. No cache price was found, so cached
 * tokens are billed at the input price (an over-estimate, never an under-estimate).
 */
const GEMINI_3_5_FLASH: Pricing = { input: 1.5, output: 9 }

const table = modelTable<{ pricing?: Pricing | undefined }>(
  {},
  {
    'gemini-3.8-flash': { pricing: GEMINI_3_8_FLASH },
    'gemini-3.5-flash': { pricing: GEMINI_3_5_FLASH },
  },
)

/** The prices of `model`, or undefined when unknown. */
export function geminiPricing(model: string): Pricing | undefined {
  return table.find(model)?.pricing
}
