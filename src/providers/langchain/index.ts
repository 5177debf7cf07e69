import type { BaseChatModel, BindToolsInput } from '@langchain/core/language_models/chat_models'
import type { AIMessageChunk } from '@langchain/core/messages'
import type { Adapter, CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { Conversation, StopReason, Usage } from '../../core/conversation.ts'
import { abortedError } from '../../core/errors.ts'
import type { ToolCall } from '../../core/events.ts'
import { guardStream, type Delta, type Producer } from '../../kit/guard-stream.ts'
import { isRecord } from '../../kit/json.ts'
import { encodeMessages, type LangChainTurnRecord } from './encode-messages.ts'
import { mapLangChainError } from './map-error.ts'
import { deltasOf } from './read-chunk.ts'

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
 * `providerOptions[provider]` is passed to `stream()` as call options. Its capabilities: no
 * thinking control, tools when the model can bind them, JSON by instruction.
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
  const mapError = (error: unknown) => mapLangChainError(error, provider)

  function produce(conversation: Conversation, callOptions: CallOptions): Producer {
    return async function* ({ signal, tag }) {
      const warnings = unsupported(callOptions)
      const messages = encodeMessages(conversation, tag)
      const runnable = withTools(chatModel, callOptions, warnings)
      const extra = callOptions.providerOptions?.[provider]
      const stream = await runnable.stream(messages, { ...(isRecord(extra) ? extra : {}), signal })
      let full: AIMessageChunk | undefined
      let text = ''
      let thinking = ''
      for await (const chunk of stream) {
        full = full === undefined ? chunk : full.concat(chunk)
        const delta = deltasOf(chunk)
        thinking += delta.thinking
        text += delta.text
        yield [
          { type: 'thinking', text: delta.thinking },
          { type: 'text', text: delta.text },
        ]
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
      yield toolCalls.map((call): Delta => ({ type: 'tool-call', call }))

      const record: LangChainTurnRecord = { text }
      if (thinking !== '') record.reasoning = thinking
      if (toolCalls.length > 0)
        record.toolCalls = toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          args: call.input,
        }))
      return {
        usage: usageOf(full),
        stopReason: stopReasonOf(full, toolCalls.length > 0),
        items: [record],
        warnings,
      }
    }
  }

  return {
    provider,
    model,
    capabilities: {
      thinking: { mode: 'none' },
      tools: typeof chatModel.bindTools === 'function',
      json: false,
    },
    stream(conversation, callOptions = {}) {
      return guardStream(
        { provider, model, options: callOptions, mapError },
        produce(conversation, callOptions),
      )
    },
  }
}

/** The model with the call's tools bound, when it can bind tools (else they are dropped). */
function withTools(
  chatModel: BaseChatModel,
  options: CallOptions,
  warnings: string[],
): Pick<BaseChatModel, 'stream'> {
  const tools = options.tools ?? []
  if (tools.length === 0) return chatModel
  if (chatModel.bindTools === undefined) {
    warnings.push('tools: this LangChain model cannot bind tools; dropped')
    return chatModel
  }
  const specs: BindToolsInput[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    schema: { type: 'object', ...tool.parameters },
  }))
  const choice = options.toolChoice
  return chatModel.bindTools(
    specs,
    choice === undefined ? {} : { tool_choice: toolChoiceFor(choice) },
  )
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
