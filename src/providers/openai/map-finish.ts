import type { Response, ResponseUsage } from 'openai/resources/responses/responses'
import type { StopReason, Usage } from '../../core/conversation.ts'
import type { Finish } from '../../kit/guard-stream.ts'
import { isRecord } from '../../kit/json.ts'

/**
 * The finish record of a finished response: its usage, its stop reason, and as items the
 * response's `output` exactly as the provider sent it (the completed items, so
 * `encrypted_content` is whole), or, when the terminal event carries no `output`, the completed
 * items in `output_index` order.
 */
export function mapFinish(response: Response, doneItems: readonly unknown[]): Finish {
  const items: unknown[] =
    Array.isArray(response.output) && response.output.length > 0
      ? response.output
      : doneItems.filter((item) => item !== undefined)
  return { usage: mapUsage(response.usage), stopReason: mapStopReason(response, items), items }
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
  return isRecord(item) ? item['type'] : undefined
}

function isRefusal(item: unknown): boolean {
  if (!isRecord(item) || item['type'] !== 'message') return false
  const content = item['content']
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
