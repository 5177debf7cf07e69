import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { StopReasonNames, StreamEncoder, StreamFailure } from '../dialects.ts'
import { writeDelta } from '../write-delta.ts'
import { statusFromKind } from '../status.ts'
import { completionErrorBody } from './errors.ts'
import { encodeReasoningDetails } from './reasoning-details.ts'

/** What every chunk and completion of one answer repeats. */
export type CompletionMeta = {
  /** `chatcmpl-…`, the same in every chunk of an answer. */
  id: string
  /** The relay id the client asked for (`anthropic/claude-sonnet-4-5`). */
  model: string
  /** Unix time in seconds. */
  created: number
}

/** Options of {@link createCompletionEncoder}. */
export type CompletionEncoderOptions = CompletionMeta & {
  /** Send a usage chunk before `[DONE]` (`stream_options.include_usage`). */
  includeUsage: boolean
}

/** OpenAI's `finish_reason`. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter'

/** OpenAI's `usage`, plus `cost` as OpenRouter reports it. */
export type CompletionUsage = {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details: { cached_tokens: number }
  completion_tokens_details: { reasoning_tokens: number }
  /** What the call cost in US dollars, when the model's price is known; absent otherwise. */
  cost?: number
}

type Delta = { [key: string]: unknown }

/**
 * Creates the encoder of one streamed answer as Chat Completions SSE text (`data: <json>\n\n`). A
 * pure state machine: it holds whether the role was sent and how many tool calls were, and does no
 * I/O.
 *
 * Each delta is a chunk. The end is the chunk that carries `finish_reason` (and
 * `reasoning_details`), the usage chunk when asked, then `[DONE]`; a failure is an error chunk in
 * its place, with no `[DONE]` after it, so that clients see the answer failed.
 *
 * @example
 * ```ts
 * const encode = createCompletionEncoder({ id, model: 'mock/echo', created, includeUsage: true })
 * for await (const event of adapter.stream(conversation)) write(encode.delta(event))
 * ```
 */
export function createCompletionEncoder(
  options: CompletionEncoderOptions,
): StreamEncoder<StreamFailure> {
  const { id, model, created, includeUsage } = options
  let roleSent = false
  let calls = 0

  const chunk = (delta: Delta, finish: FinishReason | null): string => {
    // Clients take the role from the first delta (the SDK's accumulator refuses an answer without one).
    const withRole = roleSent ? delta : { role: 'assistant', ...delta }
    roleSent = true
    return sse({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta: withRole, finish_reason: finish }],
    })
  }
  // The hot path: a text or thinking delta after the first chunk is the same text around one
  // `JSON.stringify` of the delta's text, so nothing else is built or serialized per token.
  const head = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{`
  const tail = '},"finish_reason":null}]}\n\n'
  const piece = (type: 'text' | 'thinking', text: string): string => {
    if (text === '') return ''
    const field = type === 'thinking' ? 'reasoning_content' : 'content'
    return roleSent
      ? `${head}"${field}":${JSON.stringify(text)}${tail}`
      : chunk({ [field]: text }, null)
  }
  const toolCallChunk = (call: ToolCall): string =>
    chunk({ tool_calls: [{ index: calls++, ...toolCall(call) }] }, null)

  return {
    delta: (event) => writeDelta(event, piece, toolCallChunk),
    done(turn) {
      // Whole and once, in the chunk with finish_reason: the SDK's accumulator overwrites (rather
      // than appends) delta fields it does not know, so a split record would arrive as its last piece.
      const details = encodeReasoningDetails(turn)
      let out = chunk(
        details === undefined ? {} : { reasoning_details: details },
        finishReason(turn.stopReason),
      )
      if (includeUsage) {
        out += sse({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [],
          usage: usageOf(turn.usage),
        })
      }
      return `${out}data: [DONE]\n\n`
    },
    error(failure) {
      const status = statusFromKind(failure.kind)
      return sse(completionErrorBody(status, failure.kind, failure.message, null))
    },
  }
}

/**
 * The non-streamed `chat.completion` of a turn. `content` is null when the answer is only tool
 * calls; `reasoning_details` is there when the turn is sealed.
 */
export function completionResponse(turn: AssistantTurn, meta: CompletionMeta) {
  const calls = turn.toolCalls ?? []
  const message: Delta = {
    role: 'assistant',
    content: turn.text === '' && calls.length > 0 ? null : turn.text,
    refusal: null,
  }
  if (turn.thinking !== undefined && turn.thinking !== '')
    message['reasoning_content'] = turn.thinking
  if (calls.length > 0) message['tool_calls'] = calls.map(toolCall)
  const details = encodeReasoningDetails(turn)
  if (details !== undefined) message['reasoning_details'] = details
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, finish_reason: finishReason(turn.stopReason), logprobs: null }],
    usage: usageOf(turn.usage),
  }
}

/** OpenAI's `finish_reason` for each stop reason. A caller's abort still ends a complete answer. */
const FINISH_REASONS: StopReasonNames<FinishReason> = {
  stop: 'stop',
  aborted: 'stop',
  other: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  refusal: 'content_filter',
}

/** OpenAI's `finish_reason` for a stop reason (see `FINISH_REASONS`). */
export function finishReason(reason: StopReason): FinishReason {
  return FINISH_REASONS[reason]
}

/**
 * OpenAI's `usage` for a turn's token counts, with the turn's `cost` in US dollars when it has one
 * (as OpenRouter puts it in its final chunk and in a non-streamed answer; OpenAI's SDKs keep
 * fields they do not know). No price, no `cost` field: never a made-up 0.
 */
export function usageOf(usage: Usage): CompletionUsage {
  const out: CompletionUsage = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  }
  if (usage.cost !== undefined) out.cost = usage.cost
  return out
}

function toolCall(call: ToolCall) {
  return {
    id: call.id,
    type: 'function' as const,
    // `?? null`: an input of undefined would otherwise make the arguments vanish from the JSON.
    function: { name: call.name, arguments: JSON.stringify(call.input ?? null) },
  }
}

// JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the chunk.
function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`
}
