import type { Interactions } from '@google/genai'
import type { CallOptions, ToolChoice } from '../../../core/adapter.ts'
import type { Capabilities } from '../../../core/capabilities.ts'
import type { Conversation } from '../../../core/conversation.ts'
import { mergeProviderOptions } from '../../../kit/provider-options.ts'
import type { ReplayTag } from '../../../kit/replay.ts'
import { keepStopSequences } from '../../../kit/stop-sequences.ts'
import { encodeInput } from './encode-input.ts'
import { thinkingFields } from './thinking.ts'

/** The body of a streamed model interaction, as the SDK types it. */
export type InteractionBody =
  Interactions.InteractionCreateParams.CreateModelInteractionParamsStreaming

/** The Interactions API takes at most this many stop sequences (as generateContent does). */
const MAX_STOP_SEQUENCES = 5

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

  const tools = options.tools ?? []
  if (tools.length > 0 && !capabilities.tools)
    warnings.push('tools: this model takes no tools; dropped')
  else if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    }))
    if (options.toolChoice !== undefined) config.tool_choice = toolChoiceFor(options.toolChoice)
  }

  if (options.responseFormat !== undefined) {
    if (!capabilities.json) warnings.push('responseFormat: this model has no JSON mode; dropped')
    else {
      const { schema } = options.responseFormat
      body.response_format = {
        type: 'text',
        mime_type: 'application/json',
        ...(schema === undefined ? {} : { schema }),
      }
    }
  }

  if (options.maxTokens !== undefined) {
    const limit = capabilities.maxOutputTokens
    if (limit !== undefined && options.maxTokens > limit) {
      warnings.push(`maxTokens: ${options.maxTokens} is over this model's ${limit}; used ${limit}`)
      config.max_output_tokens = limit
    } else config.max_output_tokens = options.maxTokens
  }
  if (options.temperature !== undefined) config.temperature = options.temperature
  if (options.stop !== undefined && options.stop.length > 0)
    config.stop_sequences = keepStopSequences(options.stop, MAX_STOP_SEQUENCES, 'Gemini', warnings)
  if (Object.keys(config).length > 0) body.generation_config = config
  cacheWarnings(options.cache, warnings)

  mergeProviderOptions(body, options, tag.provider, warnings)
  return body
}

function toolChoiceFor(choice: ToolChoice): Interactions.GenerationConfig['tool_choice'] {
  if (choice === 'auto' || choice === 'none') return choice
  if (choice === 'required') return 'any'
  return { allowed_tools: { mode: 'any', tools: [choice.name] } }
}

/**
 * Gemini caches request prefixes on its own (what it read from the cache is in the usage), so
 * `cache: true` needs nothing sent; it takes no per-request key or lifetime, so a `key` or `ttl`
 * is not used, and the turn says so.
 */
function cacheWarnings(cache: CallOptions['cache'], warnings: string[]): void {
  if (typeof cache !== 'object') return
  if (cache.key !== undefined)
    warnings.push('cache.key not used: Gemini caches on its own and takes no key')
  if (cache.ttl !== undefined)
    warnings.push('cache.ttl not used: Gemini caches on its own and takes no ttl')
}
