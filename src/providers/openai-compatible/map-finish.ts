import type { StopDetails, StopReason, Usage } from '../../core/conversation.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'

/**
 * Our stop reason for a `finish_reason`. Tool calls decide `tool-calls` (some servers say `stop`
 * with calls); a `content_filter` stop or a refusal is a `refusal`, like every adapter's.
 */
export function mapFinishReason(
  reason: string | undefined,
  hasToolCalls: boolean,
  refused: boolean,
): StopReason {
  if (reason === 'length') return 'length'
  if (reason === 'content_filter' || refused) return 'refusal'
  if (hasToolCalls || reason === 'tool_calls' || reason === 'function_call') return 'tool-calls'
  if (reason === 'stop') return 'stop'
  return 'other'
}

/**
 * What the server said about a refusal: `category` is its own word (`content_filter` for a filter
 * stop, else `refusal`), `explanation` the refusal text it streamed. Undefined for any other stop.
 */
export function mapStopDetails(
  stopReason: StopReason,
  reason: string | undefined,
  refusal: string,
): StopDetails | undefined {
  if (stopReason !== 'refusal') return undefined
  const details: StopDetails = {
    category: reason === 'content_filter' ? 'content_filter' : 'refusal',
  }
  if (refusal !== '') details.explanation = refusal
  return details
}

/**
 * Our usage from a Chat Completions `usage`. `completion_tokens` normally includes reasoning;
 * a server that counts it apart (its `total_tokens` is prompt + completion + reasoning) gets it
 * added to the output. Cached input comes from `prompt_tokens_details.cached_tokens` or DeepSeek's
 * `prompt_cache_hit_tokens`; input written to the cache from OpenRouter's
 * `prompt_tokens_details.cache_write_tokens`. A cost the server states is the turn's `cost`
 * (see {@link statedCost}).
 */
export function mapUsage(usage: JsonRecord | undefined): Usage {
  const number = (record: unknown, key: string): number => {
    const value = isRecord(record) ? record[key] : undefined
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }
  const prompt = number(usage, 'prompt_tokens')
  const completion = number(usage, 'completion_tokens')
  const reasoning = number(usage?.['completion_tokens_details'], 'reasoning_tokens')
  const total = number(usage, 'total_tokens')
  const apart = reasoning > 0 && total === prompt + completion + reasoning
  const result: Usage = {
    inputTokens: prompt,
    outputTokens: apart ? completion + reasoning : completion,
  }
  if (reasoning > 0) result.reasoningTokens = reasoning
  const cached =
    number(usage?.['prompt_tokens_details'], 'cached_tokens') ||
    number(usage, 'prompt_cache_hit_tokens')
  if (cached > 0) result.cacheReadTokens = cached
  const written = number(usage?.['prompt_tokens_details'], 'cache_write_tokens')
  if (written > 0) result.cacheWriteTokens = written
  const cost = usage === undefined ? undefined : statedCost(usage)
  if (cost !== undefined) result.cost = cost
  return result
}

/** xAI's `cost_in_usd_ticks` in a US dollar. */
const TICKS_PER_USD = 1e10

/**
 * What the server says the call cost, in US dollars: xAI's `cost_in_usd_ticks`, or OpenRouter's
 * `cost` (its credits are dollars), to which a call on the caller's own key (`is_byok`) adds what
 * the upstream provider charged, `cost_details.upstream_inference_cost` (without BYOK, that field
 * repeats the part of `cost` the provider got). Undefined when the usage states none.
 */
function statedCost(usage: JsonRecord): number | undefined {
  const dollars = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
  const ticks = dollars(usage['cost_in_usd_ticks'])
  if (ticks !== undefined) return ticks / TICKS_PER_USD
  const cost = dollars(usage['cost'])
  if (cost === undefined || usage['is_byok'] !== true) return cost
  const details = usage['cost_details']
  const upstream = isRecord(details) ? dollars(details['upstream_inference_cost']) : undefined
  return upstream === undefined ? cost : cost + upstream
}
