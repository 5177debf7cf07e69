import type {
  Message,
  StopReason as AnthropicStopReason,
} from '@anthropic-ai/sdk/resources/messages'
import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { ReplayTag } from '../../core/replay.ts'
import type { StreamTotals } from './map-stream.ts'

/**
 * The `done` turn of a finished stream. `items.data` is the final message's `content` as plain
 * JSON (the SDK's lazy getters and hidden fields dropped), every block kept in order: thinking
 * with its signature, redacted thinking, server-tool blocks.
 */
export function finishTurn(
  message: Message,
  totals: StreamTotals,
  tag: ReplayTag,
  warnings: readonly string[],
): AssistantTurn {
  const stopReason = mapStopReason(message.stop_reason)
  if (totals.brokenToolCall !== undefined && stopReason !== 'length') {
    throw new ThinkwireError({
      kind: 'server',
      message: `anthropic: the input of tool call '${totals.brokenToolCall}' is not valid JSON`,
      provider: 'anthropic',
    })
  }
  const turn: AssistantTurn = {
    role: 'assistant',
    text: totals.text,
    usage: mapUsage(message.usage),
    stopReason,
    items: { ...tag, data: JSON.parse(JSON.stringify(message.content)) as unknown[] },
  }
  if (totals.thinking !== '') turn.thinking = totals.thinking
  if (totals.toolCalls.length > 0) turn.toolCalls = totals.toolCalls
  if (warnings.length > 0) turn.warnings = [...warnings]
  return turn
}

/** Anthropic's stop reason as ours. */
export function mapStopReason(reason: AnthropicStopReason | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool-calls'
    case 'refusal':
      return 'refusal'
    default:
      return 'other'
  }
}

/** Anthropic usage as ours: input counts cache reads and writes too. */
export function mapUsage(usage: Message['usage']): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0
  const cacheWrite = usage.cache_creation_input_tokens ?? 0
  const out: Usage = {
    inputTokens: usage.input_tokens + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens,
  }
  if (usage.cache_read_input_tokens != null) out.cacheReadTokens = cacheRead
  if (usage.cache_creation_input_tokens != null) out.cacheWriteTokens = cacheWrite
  const thinkingTokens = usage.output_tokens_details?.thinking_tokens
  if (typeof thinkingTokens === 'number') out.reasoningTokens = thinkingTokens
  return out
}
