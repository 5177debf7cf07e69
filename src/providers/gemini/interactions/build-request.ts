import type { Interactions } from '@google/genai'
import type { CallOptions, ToolChoice } from '../../../core/adapter.ts'
import type { Capabilities } from '../../../core/capabilities.ts'
import type { Conversation } from '../../../core/conversation.ts'
import { mergeProviderOptions } from '../../../kit/provider-options.ts'
import type { ReplayTag } from '../../../kit/replay.ts'
import { geminiCallOptions } from '../call-options.ts'
import { encodeInput } from './encode-input.ts'
import { thinkingFields } from './thinking.ts'

/** The body of a streamed model interaction, as the SDK types it. */
export type InteractionBody =
  Interactions.InteractionCreateParams.CreateModelInteractionParamsStreaming

/**
 * The request body for a call: `store: false` and the whole conversation as `input` (the adapter
 * keeps no state on the server), the system prompt, function tools, and `generation_config`
 * (thinking level and thought summaries, output cap, temperature, stop sequences, tool choice),
 * JSON output as `response_format`; then `providerOptions[provider]` merged over the top, which is
 * where a caller who wants the server's state passes `previous_interaction_id` (with `store: true`).
 * What the model cannot take is dropped or adjusted, with a warning.
 */
export function buildRequest(
  model: string,
  capabilities: Capabilities,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
  warnings: string[],
): InteractionBody {
  const body: InteractionBody = {
    model,
    input: encodeInput(conversation.turns, tag),
    stream: true,
    store: false,
  }
  if (conversation.system !== undefined && conversation.system !== '')
    body.system_instruction = conversation.system

  const config: Interactions.GenerationConfig = thinkingFields(
    capabilities.thinking,
    options.thinking,
    warnings,
  )

  const { tools, responseFormat, maxTokens, stop } = geminiCallOptions(
    options,
    capabilities,
    warnings,
  )
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    }))
    if (options.toolChoice !== undefined) config.tool_choice = toolChoiceFor(options.toolChoice)
  }
  if (responseFormat !== undefined) {
    const { schema } = responseFormat
    body.response_format = {
      type: 'text',
      mime_type: 'application/json',
      ...(schema === undefined ? {} : { schema }),
    }
  }
  if (maxTokens !== undefined) config.max_output_tokens = maxTokens
  if (options.temperature !== undefined) config.temperature = options.temperature
  if (stop !== undefined) config.stop_sequences = stop
  if (Object.keys(config).length > 0) body.generation_config = config

  mergeProviderOptions(body, options, tag.provider, warnings)
  return body
}

function toolChoiceFor(choice: ToolChoice): Interactions.GenerationConfig['tool_choice'] {
  if (choice === 'auto' || choice === 'none') return choice
  if (choice === 'required') return 'any'
  return { allowed_tools: { mode: 'any', tools: [choice.name] } }
}
