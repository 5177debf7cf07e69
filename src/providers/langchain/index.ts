import type { BaseChatModel, BindToolsInput } from '@langchain/core/language_models/chat_models'
import type { AIMessageChunk } from '@langchain/core/messages'
import type { Adapter, CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { Conversation, Usage } from '../../core/conversation.ts'
import { abortedError } from '../../core/errors.ts'
import type { ToolCall } from '../../core/events.ts'
import { guardStream, type Delta, type Producer } from '../../kit/guard-stream.ts'
import { withJsonInstruction } from '../../kit/json-instruction.ts'
import { isRecord } from '../../kit/json.ts'
import { encodeMessages, type LangChainTurnRecord, type NativeMessage } from './encode-messages.ts'
import { mapLangChainError } from './map-error.ts'
import { deltasOf } from './read-chunk.ts'

/** Options of {@link fromLangChain}. */
export type FromLangChainOptions = {
  /**
   * The adapter's provider name, which tags its turns for replay.
   * @defaultValue `langchain-` and the model's `_llmType()` (`'langchain-anthropic'`), else
   * `'langchain'`: never a native adapter's name, whose turns are shaped differently
   */
  provider?: string | undefined
  /** @defaultValue the model's `model` or `modelName` field, else its `_llmType()` */
  model?: string | undefined
}

/**
 * Wraps any LangChain.js chat model as an adapter. Text streams as `text`, reasoning the model
 * exposes (`additional_kwargs.reasoning_content`, or `reasoning` / `thinking` content blocks) as
 * `thinking`, and tool calls, assembled by LangChain from their chunks, as complete `tool-call`s
 * at the end. Its items keep the message the integration assembled (its content blocks,
 * `additional_kwargs` and `response_metadata`, as plain JSON), so the same model gets back what
 * its integration needs: Anthropic thinking with its signature, OpenAI encrypted reasoning, Gemini
 * thought signatures. `stop` is passed as LangChain's `stop` call option and `responseFormat` is
 * asked for by a system instruction; thinking levels, `maxTokens` and `temperature` are set on the
 * LangChain model itself, so here they are dropped with a warning. `providerOptions[provider]` is
 * passed to `stream()` as call options. Its capabilities: no thinking control, tools when the model
 * can bind them, JSON by instruction.
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
  const provider = options.provider ?? (type === '' ? 'langchain' : `langchain-${type}`)
  const model = options.model ?? modelName(chatModel) ?? (type === '' ? 'unknown' : type)
  const mapError = (error: unknown) => mapLangChainError(error, provider)

  function produce(conversation: Conversation, callOptions: CallOptions): Producer {
    return async function* ({ signal, tag }) {
      const warnings = unsupported(callOptions)
      const messages = encodeMessages(askingForJson(conversation, callOptions), tag)
      const runnable = withTools(chatModel, callOptions, warnings)
      const extra = callOptions.providerOptions?.[provider]
      const stop = callOptions.stop?.length ? { stop: callOptions.stop } : {}
      const stream = await runnable.stream(messages, {
        ...stop,
        ...(isRecord(extra) ? extra : {}),
        signal,
      })
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
      const ended = endOf(full)
      const toolCalls: ToolCall[] = (full?.tool_calls ?? []).map((call, i) => ({
        id: call.id !== undefined && call.id !== '' ? call.id : `lc_${turnPosition}_${i}`,
        name: call.name,
        input: call.args,
      }))
      // LangChain parses a call's arguments however far they got: when the model was cut off,
      // the last call is the one it was writing, and it is never run or replayed.
      const cut = ended === 'length' || ended === 'refusal' ? toolCalls.pop() : undefined
      if (cut !== undefined)
        warnings.push(`tool call ${cut.name}: cut off before its arguments were complete; dropped`)
      const invalid = full?.invalid_tool_calls ?? []
      for (const bad of invalid)
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
      // The integration's own message, unless it holds a call that was dropped: replaying that
      // would send a call with no result.
      if (full !== undefined && invalid.length === 0 && cut === undefined) {
        const native = nativeMessage(full)
        if (native !== undefined) record.message = native
      }
      return {
        usage: usageOf(full),
        stopReason: ended ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
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
  const cache = options.cache
  if (typeof cache === 'object' && (cache.key !== undefined || cache.ttl !== undefined))
    note('cache.key and cache.ttl')
  return warnings
}

/** The conversation with JSON asked for in its system prompt, when the call wants JSON. */
function askingForJson(conversation: Conversation, options: CallOptions): Conversation {
  const format = options.responseFormat
  if (format === undefined) return conversation
  return { ...conversation, system: withJsonInstruction(conversation.system, format) }
}

/**
 * The parts of the assembled message its integration reads back on replay, as plain JSON: content
 * blocks (a plain string content is the text, already kept), `additional_kwargs` and
 * `response_metadata`. Undefined when there is nothing beyond the text.
 */
function nativeMessage(message: AIMessageChunk): NativeMessage | undefined {
  const out: NativeMessage = {}
  if (Array.isArray(message.content)) out.content = plainJson(message.content)
  if (Object.keys(message.additional_kwargs).length > 0)
    out.additional_kwargs = plainJson(message.additional_kwargs)
  if (Object.keys(message.response_metadata).length > 0)
    out.response_metadata = plainJson(message.response_metadata)
  return Object.keys(out).length === 0 ? undefined : out
}

/** A JSON copy: no class instances, functions or undefined values reach a stored conversation. */
function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T
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

/**
 * How the model ended, when it did not simply finish: integrations keep the provider's reason in
 * `response_metadata` (`finish_reason`, `stop_reason`, `incomplete_details`) or in
 * `additional_kwargs.stop_reason`.
 */
function endOf(message: AIMessageChunk | undefined): 'length' | 'refusal' | undefined {
  if (message === undefined) return undefined
  const metadata: { [key: string]: unknown } = message.response_metadata
  const incomplete = metadata['incomplete_details']
  const reasons = [
    metadata['finish_reason'],
    metadata['stop_reason'],
    message.additional_kwargs['stop_reason'],
    isRecord(incomplete) ? incomplete['reason'] : undefined,
  ]
  for (const reason of reasons) {
    if (typeof reason !== 'string') continue
    if (LENGTH_REASONS.has(reason)) return 'length'
    if (REFUSAL_REASONS.has(reason)) return 'refusal'
  }
  return undefined
}

// Anthropic's `model_context_window_exceeded` ends a turn the way its `max_tokens` does: the
// context window, not the output cap, ran out mid-answer, so a call being written is cut.
const LENGTH_REASONS = new Set([
  'length',
  'max_tokens',
  'max_output_tokens',
  'MAX_TOKENS',
  'model_context_window_exceeded',
])
const REFUSAL_REASONS = new Set(['content_filter', 'refusal', 'SAFETY', 'PROHIBITED_CONTENT'])
