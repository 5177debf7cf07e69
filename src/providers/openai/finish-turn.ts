import type { Response, ResponseUsage } from 'openai/resources/responses/responses'
import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { ReplayTag } from '../../core/replay.ts'
import type { StreamTotals } from './map-stream.ts'

/**
 * The `done` turn of a finished response. `items.data` is the response's `output` exactly as the
 * provider sent it (the completed items, so `encrypted_content` is whole); when the terminal
 * event carries no `output`, the completed items in `output_index` order.
 */
export function finishTurn(
  response: Response,
  totals: StreamTotals,
  tag: ReplayTag,
  warnings: readonly string[],
): AssistantTurn {
  const output: unknown[] =
    Array.isArray(response.output) && response.output.length > 0
      ? response.output
      : totals.doneItems.filter((item) => item !== undefined)
  const stopReason = mapStopReason(response, output)
  if (totals.brokenToolCall !== undefined && stopReason !== 'length') {
    throw new ThinkwireError({
      kind: 'server',
      message: `openai: the arguments of function call '${totals.brokenToolCall}' are not valid JSON`,
      provider: 'openai',
    })
  }
  const turn: AssistantTurn = {
    role: 'assistant',
    text: totals.text,
    usage: mapUsage(response.usage),
    stopReason,
    items: { ...tag, data: output },
  }
  if (totals.thinking !== '') turn.thinking = totals.thinking
  if (totals.toolCalls.length > 0) turn.toolCalls = totals.toolCalls
  if (warnings.length > 0) turn.warnings = [...warnings]
  return turn
}

/** Why the response ended, as our stop reason. */
export function mapStopReason(response: Response, output: readonly unknown[]): StopReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason
    if (reason === 'max_output_tokens') return 'length'
    if (reason === 'content_filter') return 'refusal'
    return 'other'
  }
  if (output.some((item) => typeOf(item) === 'function_call')) return 'tool-calls'
  if (output.some(isRefusal)) return 'refusal'
  return response.status === 'completed' || response.status === undefined ? 'stop' : 'other'
}

function typeOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null && 'type' in item ? item.type : undefined
}

function isRefusal(item: unknown): boolean {
  if (typeOf(item) !== 'message' || typeof item !== 'object' || item === null) return false
  const content = 'content' in item ? item.content : undefined
  return Array.isArray(content) && content.some((part: unknown) => typeOf(part) === 'refusal')
}

/** Responses usage as ours; absent usage counts as zero. */
export function mapUsage(usage: ResponseUsage | null | undefined): Usage {
  if (usage === null || usage === undefined) return { inputTokens: 0, outputTokens: 0 }
  const out: Usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }
  const reasoning = usage.output_tokens_details?.reasoning_tokens
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning
  const cached = usage.input_tokens_details?.cached_tokens
  if (typeof cached === 'number') out.cacheReadTokens = cached
  const written = usage.input_tokens_details?.cache_write_tokens
  if (typeof written === 'number') out.cacheWriteTokens = written
  return out
}
