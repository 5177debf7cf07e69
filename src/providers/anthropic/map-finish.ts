import type { StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { Finish } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import type { StreamedMessage } from './map-stream.ts'

/**
 * The finish record of a complete message: its stop reason and usage as ours, and its content
 * blocks as the items, every block kept in order (thinking with its signature, redacted thinking,
 * server-tool blocks). A tool call whose input is not JSON fails the turn, unless the response was
 * cut short (`length`), which is what leaves one.
 */
export function mapFinish(message: StreamedMessage, warnings: readonly string[]): Finish {
  const stopReason = mapStopReason(message.stopReason)
  if (message.brokenToolCall !== undefined && stopReason !== 'length') {
    throw new ThinkwireError({
      kind: 'server',
      message: `anthropic: the input of tool call '${message.brokenToolCall}' is not valid JSON`,
      provider: 'anthropic',
    })
  }
  return { usage: mapUsage(message.usage), stopReason, items: message.content, warnings }
}

/** Anthropic's stop reason as ours. */
export function mapStopReason(reason: unknown): StopReason {
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
export function mapUsage(usage: JsonRecord): Usage {
  const read = count(usage['cache_read_input_tokens'])
  const write = count(usage['cache_creation_input_tokens'])
  const out: Usage = {
    inputTokens: (count(usage['input_tokens']) ?? 0) + (read ?? 0) + (write ?? 0),
    outputTokens: count(usage['output_tokens']) ?? 0,
  }
  if (read !== undefined) out.cacheReadTokens = read
  if (write !== undefined) out.cacheWriteTokens = write
  const details = usage['output_tokens_details']
  const thinking = isRecord(details) ? count(details['thinking_tokens']) : undefined
  if (thinking !== undefined) out.reasoningTokens = thinking
  return out
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}
