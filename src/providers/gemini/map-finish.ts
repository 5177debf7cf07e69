import type { StopDetails, StopReason, Usage } from '../../core/conversation.ts'
import { providerError } from '../../core/errors.ts'
import type { Finish } from '../../kit/guard-stream.ts'
import type { JsonRecord } from '../../kit/json.ts'
import { continuationRecord } from './continuation.ts'
import type { ChunkSummary } from './map-chunks.ts'
import { sourcesOf } from './map-sources.ts'

/** Finish reasons that mean Gemini's safety or policy filters stopped the answer. */
const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
])

/**
 * Finish reasons that mean the model's tool use could not be taken as it came: a function call
 * Gemini could not parse (`MALFORMED_FUNCTION_CALL`), a call to a tool it was not given or not
 * allowed (`UNEXPECTED_TOOL_CALL`), or too many calls in a row (`TOO_MANY_TOOL_CALLS`). The turn
 * fails with `invalid-output`: nothing of it can be committed or replayed.
 */
const INVALID_TOOL_USE = new Set([
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
])

/**
 * Our stop reason for a Gemini `finishReason`. Gemini says `STOP` also when the step ends in
 * function calls, so calls decide `tool-calls`. A safety or recitation stop is a `refusal`: the
 * answer streamed so far is kept as a complete turn, as Anthropic's refusal stop is. `CONTINUATION`
 * (the per-request output limit, see `continuation.ts`) is `length`.
 */
export function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'length'
  if (reason !== undefined && FILTERED.has(reason)) return 'refusal'
  if (hasToolCalls) return 'tool-calls'
  if (reason === 'STOP') return 'stop'
  return 'other'
}

/**
 * True when a function call whose arguments are still streaming at this finish reason was cut
 * off (by the output limit, a filter, or anything but a normal end) and must be dropped.
 */
export function cutsOpenCall(reason: string | undefined): boolean {
  return reason !== 'STOP'
}

/**
 * The finish record of a stream that ended at its terminal chunk. A blocked prompt is a `refusal`
 * turn; a stream without a finish reason fails with `network`; an unusable tool call fails with
 * `invalid-output`, naming Gemini's `finishMessage`. `stopDetails` carries the finish (or block)
 * reason when it says more than the stop reason (a filter, an unusual stop, `CONTINUATION`), with
 * Gemini's message (else the blocked safety categories) as the explanation. Items are the parts,
 * plus the continuation token when there is one; a turn without parts has none, so it is left out
 * of the next request.
 */
export function finishOf(summary: ChunkSummary, provider: string, warnings: string[]): Finish {
  const usage = mapUsage(summary.usage)
  const sources = sourcesOf(summary.metadata)
  const extra = sources.length === 0 ? {} : { sources }
  const items = itemsOf(summary)
  if (summary.blockReason !== undefined) {
    const stopDetails = detailsOf(summary.blockReason, summary.blockReasonMessage, summary)
    return { usage, stopReason: 'refusal', stopDetails, items, warnings, ...extra }
  }
  const reason = summary.finishReason
  if (reason === undefined)
    throw providerError('network', provider, 'the stream ended without a finish reason')
  if (INVALID_TOOL_USE.has(reason)) {
    const said = summary.finishMessage === undefined ? '' : `: ${summary.finishMessage}`
    const message = `the model's tool use could not be taken (${reason})${said}`
    throw providerError('invalid-output', provider, message)
  }
  const stopReason = mapFinishReason(reason, summary.toolCallCount > 0)
  const detailed = stopReason === 'refusal' || stopReason === 'other' || reason === 'CONTINUATION'
  if (detailed) {
    const stopDetails = detailsOf(reason, summary.finishMessage, summary)
    return { usage, stopReason, stopDetails, items, warnings, ...extra }
  }
  return { usage, stopReason, items, warnings, ...extra }
}

function detailsOf(
  category: string,
  message: string | undefined,
  summary: ChunkSummary,
): StopDetails {
  const categories = summary.blockedCategories.join(', ')
  const explanation = message ?? (categories === '' ? undefined : categories)
  return explanation === undefined ? { category } : { category, explanation }
}

function itemsOf(summary: ChunkSummary): unknown[] | undefined {
  if (summary.parts.length === 0) return undefined
  const token = summary.finishReason === 'CONTINUATION' ? summary.continuationToken : undefined
  return token === undefined ? summary.parts : [...summary.parts, continuationRecord(token)]
}

/**
 * Our usage from Gemini's `usageMetadata`. `promptTokenCount` already counts the cached tokens
 * (`cachedContentTokenCount`, reported as `cacheReadTokens` of it) and tool-use prompt tokens are
 * input too. Gemini counts thoughts outside `candidatesTokenCount`, so output is candidates +
 * thoughts, with the thoughts as `reasoningTokens`.
 */
export function mapUsage(metadata: JsonRecord | undefined): Usage {
  return usageOf(metadata, {
    input: 'promptTokenCount',
    toolUse: 'toolUsePromptTokenCount',
    output: 'candidatesTokenCount',
    thoughts: 'thoughtsTokenCount',
    cached: 'cachedContentTokenCount',
  })
}

/**
 * Our usage from a Gemini API's counts, named by `keys`: both APIs count the cached tokens within
 * the input (reported as `cacheReadTokens` of it) and tool-use prompt tokens as input, and the
 * thoughts outside the output, so output is both, with the thoughts as `reasoningTokens`. A count
 * that is missing or not a number is 0.
 */
export function usageOf(
  record: JsonRecord | undefined,
  keys: { input: string; toolUse: string; output: string; thoughts: string; cached: string },
): Usage {
  const count = (key: string): number => {
    const value = record?.[key]
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }
  const thoughts = count(keys.thoughts)
  const usage: Usage = {
    inputTokens: count(keys.input) + count(keys.toolUse),
    outputTokens: count(keys.output) + thoughts,
  }
  if (thoughts > 0) usage.reasoningTokens = thoughts
  const cached = count(keys.cached)
  if (cached > 0) usage.cacheReadTokens = cached
  return usage
}
