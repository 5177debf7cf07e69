import OpenAI from 'openai'
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions'
import type { Adapter, CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../core/conversation.ts'
import { abortedError, ThinkwireError } from '../../core/errors.ts'
import type { Event } from '../../core/events.ts'
import { guardStream } from '../../core/guard-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../core/replay.ts'
import { assistantMessage, encodeMessages } from './encode-messages.ts'
import { mapFinishReason, mapUsage } from './map-finish.ts'
import { mapCompatibleError } from './map-error.ts'
import { createChunkReader } from './read-chunks.ts'
import { reasoningFor, type CompatibleModel, type CompatibleReasoning } from './reasoning.ts'
import { thinkingParams } from './thinking-params.ts'
import { mergeProviderOptions } from '../../core/provider-options.ts'

/** Options of {@link openaiCompatible}. Spread a preset in for a known server. */
export type OpenAICompatibleOptions = {
  /** The adapter's `provider` name, e.g. `'groq'`; also the key of its `providerOptions`. */
  provider: string
  /** The server's OpenAI-compatible base URL, e.g. `https://api.groq.com/openai/v1`. */
  baseURL: string
  model: string
  /** Sent as a bearer token. Local servers need none. */
  apiKey?: string | undefined
  /** A `fetch` to send requests with (tests pass one that replays recorded streams). */
  fetch?: typeof globalThis.fetch | undefined
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined
  /** How the server streams reasoning and takes a thinking setting. @defaultValue inline tags only */
  reasoning?: CompatibleReasoning | undefined
  /** Models that differ from the server's `reasoning`. */
  models?: readonly CompatibleModel[] | undefined
}

/**
 * An adapter for any server that speaks OpenAI Chat Completions (`chat.completions.create` with
 * `stream: true`), on the `openai` SDK with retries off. Reasoning streams as `thinking` from
 * whichever field the server uses or from inline `<think>` tags; the turn's items are the
 * assistant message with the reasoning fields the server needs back.
 *
 * @example
 * ```ts
 * const adapter = openaiCompatible({ ...presets.deepseek, model: 'deepseek-reasoner', apiKey })
 * ```
 */
export function openaiCompatible(options: OpenAICompatibleOptions): Adapter {
  const { provider, model } = options
  const reasoning = reasoningFor(model, options.reasoning, options.models)
  const client = new OpenAI({
    // The SDK insists on a key; without one, its header is removed below.
    apiKey: options.apiKey ?? 'none',
    baseURL: options.baseURL,
    // Never pick up OPENAI_* settings from the environment for another server.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
    defaultHeaders: {
      ...options.headers,
      ...(options.apiKey === undefined ? { authorization: null } : {}),
    },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  })

  async function* produce(
    conversation: Conversation,
    callOptions: CallOptions,
    signal: AbortSignal,
    touch: () => void,
  ): AsyncGenerator<Event> {
    const thinkingMode = thinkingModeOf(callOptions.thinking)
    const tag: ReplayTag = { provider, model, thinkingMode }
    const warnings: string[] = []
    const messages = encodeMessages(conversation, tag, reasoning)
    const params: ChatCompletionCreateParamsStreaming = {
      model,
      // Built above: our own messages, or messages this server sent, replayed as they came.
      messages: messages as unknown as ChatCompletionMessageParam[],
      stream: true,
      stream_options: { include_usage: true },
    }
    applyOptions(params, callOptions)
    Object.assign(params, thinkingParams(reasoning.control, callOptions.thinking, warnings))
    mergeProviderOptions(params, callOptions, provider, warnings)

    const turnPosition = conversation.turns.length
    const pending: Event[] = []
    const reader = createChunkReader({
      thinkTags: reasoning.thinkTags ?? 'tags',
      onThinking: (text) => pending.push({ type: 'thinking', text }),
      onText: (text) => pending.push({ type: 'text', text }),
      onToolCall: (call) => pending.push({ type: 'tool-call', call }),
      makeCallId: (position) => `call_${turnPosition}_${position}`,
      warnings,
    })
    const stream = await client.chat.completions.create(params, { signal })
    for await (const chunk of stream) {
      touch()
      reader.feed(chunk)
      yield* pending.splice(0)
    }
    // The SDK ends quietly when its request is aborted: that is no finished turn.
    if (signal.aborted) throw abortedError(provider, signal.reason)
    const summary = reader.finish()
    yield* pending.splice(0)
    if (summary.finishReason === undefined) {
      throw new ThinkwireError({
        kind: 'network',
        message: `${provider}: the stream ended without a finish reason`,
        provider,
      })
    }

    const message = assistantMessage(
      { text: summary.text, calls: summary.calls },
      summary,
      reasoning,
    )
    const turn: AssistantTurn = {
      role: 'assistant',
      text: summary.text,
      usage: mapUsage(summary.usage),
      stopReason: mapFinishReason(
        summary.finishReason,
        summary.toolCalls.length > 0,
        summary.refused,
      ),
      items: { provider, model, thinkingMode, data: [message] },
    }
    if (summary.reasoning !== '') turn.thinking = summary.reasoning
    if (summary.toolCalls.length > 0) turn.toolCalls = summary.toolCalls
    if (warnings.length > 0) turn.warnings = warnings
    yield { type: 'done', turn }
  }

  return {
    provider,
    model,
    stream(conversation, callOptions = {}) {
      return guardStream(
        {
          provider,
          options: callOptions,
          mapError: (error) => mapCompatibleError(error, provider),
        },
        ({ signal, touch }) => produce(conversation, callOptions, signal, touch),
      )
    },
  }
}

function applyOptions(params: ChatCompletionCreateParamsStreaming, options: CallOptions): void {
  const tools = options.tools ?? []
  if (tools.length > 0) {
    params.tools = tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
      },
    }))
    if (options.toolChoice !== undefined) params.tool_choice = toolChoiceFor(options.toolChoice)
  }
  if (options.maxTokens !== undefined) params.max_tokens = options.maxTokens
  if (options.temperature !== undefined) params.temperature = options.temperature
  const format = options.responseFormat
  if (format !== undefined) {
    params.response_format =
      format.schema === undefined
        ? { type: 'json_object' }
        : {
            type: 'json_schema',
            json_schema: { name: format.name ?? 'response', schema: format.schema },
          }
  }
}

function toolChoiceFor(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice
  return { type: 'function', function: { name: choice.name } }
}
