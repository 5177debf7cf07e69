import type { StopReason, Usage } from '../../core/conversation.ts'
import type { JsonRecord } from '../../kit/json.ts'

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
 * Our stop reason for a Gemini `finishReason`. Gemini says `STOP` also when the step ends in
 * function calls, so calls decide `tool-calls`. A safety or recitation stop is a `refusal`: the
 * answer streamed so far is kept as a complete turn, as Anthropic's refusal stop is.
 */
export function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === 'MAX_TOKENS') return 'length'
  if (reason !== undefined && FILTERED.has(reason)) return 'refusal'
  if (hasToolCalls) return 'tool-calls'
  if (reason === 'STOP') return 'stop'
  return 'other'
}

/**
 * Our usage from Gemini's `usageMetadata`. Gemini counts thoughts outside `candidatesTokenCount`,
 * so output is candidates + thoughts; tool-use prompt tokens are input.
 */
export function mapUsage(metadata: JsonRecord | undefined): Usage {
  const count = (key: string): number => {
    const value = metadata?.[key]
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }
  const thoughts = count('thoughtsTokenCount')
  const usage: Usage = {
    inputTokens: count('promptTokenCount') + count('toolUsePromptTokenCount'),
    outputTokens: count('candidatesTokenCount') + thoughts,
  }
  if (thoughts > 0) usage.reasoningTokens = thoughts
  const cached = count('cachedContentTokenCount')
  if (cached > 0) usage.cacheReadTokens = cached
  return usage
}
