import type { BaseChatModel, BindToolsInput } from '@langchain/core/language_models/chat_models'
import type { AIMessageChunk } from '@langchain/core/messages'
import type { Adapter, CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation, StopReason, Usage } from '../../core/conversation.ts'
import { abortedError } from '../../core/errors.ts'
import type { Event, ToolCall } from '../../core/events.ts'
import { guardStream } from '../../core/guard-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../core/replay.ts'
import { encodeMessages, type LangChainTurnRecord } from './encode-messages.ts'
import { mapLangChainError } from './map-error.ts'
import { deltasOf } from './read-chunk.ts'
import { isRecord } from './record.ts'

/** Options of {@link fromLangChain}. */
export type FromLangChainOptions = {
  /** @defaultValue the model's `_llmType()`, else `'langchain'` */
  provider?: string | undefined
  /** @defaultValue the model's `model` or `modelName` field, else its `_llmType()` */
  model?: string | undefined
}

/**
 * Wraps any LangChain.js chat model as an adapter. Text streams as `text`, reasoning the model
 * exposes (`additional_kwargs.reasoning_content`, or `reasoning` / `thinking` content blocks) as
 * `thinking`, and tool calls, assembled by LangChain from their chunks, as complete `tool-call`s
 * at the end. Its items are the plain-text turn. Thinking levels, `maxTokens`, `temperature` and
 * `responseFormat` are set on the LangChain model itself; here they are dropped with a warning.
 * `providerOptions[provider]` is passed to `stream()` as call options.
 *
 * @example
 * ```ts
 * const adapter = fromLangChain(new ChatOpenAI({ model: 'gpt-5-mini' }))
 * ```
 */
export function fromLangChain(
  chatModel: BaseChatModel,
  options: FromLangChainOptions = {},
): Adapter {
  // oxlint-disable-next-line no-underscore-dangle -- LangChain's name for a model's type
  const type = typeof chatModel._llmType === 'function' ? chatModel._llmType() : ''
  const provider = options.provider ?? (type === '' ? 'langchain' : type)
  const model = options.model ?? modelName(chatModel) ?? (type === '' ? 'unknown' : type)

  async function* produce(
    conversation: Conversation,
    callOptions: CallOptions,
    signal: AbortSignal,
    touch: () => void,
  ): AsyncGenerator<Event> {
    const thinkingMode = thinkingModeOf(callOptions.thinking)
    const tag: ReplayTag = { provider, model, thinkingMode }
    const warnings = unsupported(callOptions)
    const messages = encodeMessages(conversation, tag)

    let runnable: Pick<BaseChatModel, 'stream'> = chatModel
    const tools = callOptions.tools ?? []
    if (tools.length > 0) {
      if (chatModel.bindTools === undefined)
        warnings.push('tools: this LangChain model cannot bind tools; dropped')
      else {
        const specs: BindToolsInput[] = tools.map((tool) => ({
          name: tool.name,
          description: tool.description ?? '',
          schema: { type: 'object', ...tool.parameters },
        }))
        const choice = callOptions.toolChoice
        runnable = chatModel.bindTools(
          specs,
          choice === undefined ? {} : { tool_choice: toolChoiceFor(choice) },
        )
      }
    }
    const extra = callOptions.providerOptions?.[provider]

    const stream = await runnable.stream(messages, { ...(isRecord(extra) ? extra : {}), signal })
    let full: AIMessageChunk | undefined
    let text = ''
    let thinking = ''
    for await (const chunk of stream) {
      touch()
      full = full === undefined ? chunk : full.concat(chunk)
      const delta = deltasOf(chunk)
      thinking += delta.thinking
      text += delta.text
      if (delta.thinking !== '') yield { type: 'thinking', text: delta.thinking }
      if (delta.text !== '') yield { type: 'text', text: delta.text }
    }
    // A model may end its stream quietly when aborted: that is no finished turn.
    if (signal.aborted) throw abortedError(provider, signal.reason)

    const turnPosition = conversation.turns.length
    const toolCalls: ToolCall[] = (full?.tool_calls ?? []).map((call, i) => ({
      id: call.id !== undefined && call.id !== '' ? call.id : `lc_${turnPosition}_${i}`,
      name: call.name,
      input: call.args,
    }))
    for (const bad of full?.invalid_tool_calls ?? [])
      warnings.push(
        `tool call ${bad.name ?? bad.id ?? '?'}: ${bad.error ?? 'its arguments are not valid JSON'}; dropped`,
      )
    for (const call of toolCalls) yield { type: 'tool-call', call }

    const record: LangChainTurnRecord = { text }
    if (thinking !== '') record.reasoning = thinking
    if (toolCalls.length > 0)
      record.toolCalls = toolCalls.map((call) => ({
        id: call.id,
        name: call.name,
        args: call.input,
      }))
    const turn: AssistantTurn = {
      role: 'assistant',
      text,
      usage: usageOf(full),
      stopReason: stopReasonOf(full, toolCalls.length > 0),
      items: { provider, model, thinkingMode, data: [record] },
    }
    if (thinking !== '') turn.thinking = thinking
    if (toolCalls.length > 0) turn.toolCalls = toolCalls
    if (warnings.length > 0) turn.warnings = warnings
    yield { type: 'done', turn }
  }

  return {
    provider,
    model,
    stream(conversation, callOptions = {}) {
      return guardStream(
        { provider, options: callOptions, mapError: (error) => mapLangChainError(error, provider) },
        ({ signal, touch }) => produce(conversation, callOptions, signal, touch),
      )
    },
  }
}

function modelName(chatModel: BaseChatModel): string | undefined {
  const fields: Record<string, unknown> = { ...chatModel }
  for (const key of ['model', 'modelName']) {
    const value = fields[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/** Call options a LangChain model takes at construction, not per call: dropped with a warning. */
function unsupported(options: CallOptions): string[] {
  const warnings: string[] = []
  const note = (name: string) =>
    warnings.push(`${name}: set it on the LangChain model itself; dropped`)
  if (options.thinking !== undefined) note('thinking')
  if (options.maxTokens !== undefined) note('maxTokens')
  if (options.temperature !== undefined) note('temperature')
  if (options.responseFormat !== undefined) note('responseFormat')
  return warnings
}

function toolChoiceFor(choice: ToolChoice): string {
  if (choice === 'required') return 'any'
  if (typeof choice === 'string') return choice
  return choice.name
}

/** Our usage from LangChain's `usage_metadata` (read defensively: integrations fill it unevenly). */
function usageOf(message: AIMessageChunk | undefined): Usage {
  const usage: unknown = message?.usage_metadata
  const count = (record: unknown, key: string): number => {
    const value = isRecord(record) ? record[key] : undefined
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }
  if (!isRecord(usage)) return { inputTokens: 0, outputTokens: 0 }
  const result: Usage = {
    inputTokens: count(usage, 'input_tokens'),
    outputTokens: count(usage, 'output_tokens'),
  }
  const reasoning = count(usage['output_token_details'], 'reasoning')
  if (reasoning > 0) result.reasoningTokens = reasoning
  const read = count(usage['input_token_details'], 'cache_read')
  if (read > 0) result.cacheReadTokens = read
  const write = count(usage['input_token_details'], 'cache_creation')
  if (write > 0) result.cacheWriteTokens = write
  return result
}

function stopReasonOf(message: AIMessageChunk | undefined, hasToolCalls: boolean): StopReason {
  if (hasToolCalls) return 'tool-calls'
  const metadata = message?.response_metadata ?? {}
  const reason = metadata['finish_reason'] ?? metadata['stop_reason']
  if (reason === 'length' || reason === 'max_tokens') return 'length'
  if (reason === 'content_filter' || reason === 'refusal') return 'refusal'
  return 'stop'
}
