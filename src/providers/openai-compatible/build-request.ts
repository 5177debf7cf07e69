import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions'
import type { CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import type { ReplayTag } from '../../kit/replay.ts'
import {
  cacheParams,
  maxTokensParams,
  outputCap,
  stopParams,
  temperatureParams,
} from './call-options.ts'
import { encodeMessages } from './encode-messages.ts'
import type { CompatibleModelInfo } from './models.ts'
import { thinkingParams } from './thinking-params.ts'

/** A request body, and what was changed or dropped from the caller's options to build it. */
export type BuiltRequest = { params: ChatCompletionCreateParamsStreaming; warnings: string[] }

/**
 * The Chat Completions request of one call: the conversation under the replay policy, usage asked
 * for at the end of the stream, the call's options as this model takes them (what it does not take
 * is dropped and named in `warnings`), and `providerOptions[provider]` merged over it all.
 */
export function buildRequest(
  info: CompatibleModelInfo,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
): BuiltRequest {
  const warnings: string[] = []
  const messages = encodeMessages(conversation, tag, info.reasoning)
  const params: ChatCompletionCreateParamsStreaming = {
    model: tag.model,
    // Built above: our own messages, or messages this server sent, replayed as they came.
    messages: messages as unknown as ChatCompletionMessageParam[],
    stream: true,
    stream_options: { include_usage: true },
  }
  applyOptions(params, options, info, warnings)
  const cap = outputCap(options.maxTokens, info, warnings)
  Object.assign(
    params,
    maxTokensParams(cap, info),
    temperatureParams(options.temperature, info, warnings),
    stopParams(options.stop, info, tag.provider, warnings),
    cacheParams(options.cache, info, tag.provider, warnings),
    thinkingParams(info.reasoning.control, options.thinking, warnings, cap),
  )
  mergeProviderOptions(params, options, tag.provider, warnings)
  return { params, warnings }
}

function applyOptions(
  params: ChatCompletionCreateParamsStreaming,
  options: CallOptions,
  info: CompatibleModelInfo,
  warnings: string[],
): void {
  const tools = options.tools ?? []
  if (tools.length > 0 && !info.tools) warnings.push('tools: this model takes no tools; dropped')
  else if (tools.length > 0) {
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
  const format = options.responseFormat
  if (format === undefined) return
  if (format.schema !== undefined && !info.json)
    warnings.push('responseFormat.schema: this model takes no JSON schema; asked for a JSON object')
  params.response_format =
    format.schema === undefined || !info.json
      ? { type: 'json_object' }
      : {
          type: 'json_schema',
          json_schema: { name: format.name ?? 'response', schema: format.schema },
        }
}

function toolChoiceFor(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice
  return { type: 'function', function: { name: choice.name } }
}
