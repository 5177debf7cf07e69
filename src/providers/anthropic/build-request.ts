import type {
  MessageCreateParamsBase,
  ToolChoice as AnthropicToolChoice,
  Tool,
} from '@anthropic-ai/sdk/resources/messages'
import type { CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import { withJsonInstruction } from '../../kit/json-instruction.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import type { ReplayTag } from '../../kit/replay.ts'
import { cacheControlOf, markCacheBreakpoints } from './cache-control.ts'
import { encodeConversation } from './encode-conversation.ts'
import type { ModelEntry } from './models.ts'
import { planThinking } from './thinking.ts'

/** A request body ready for `messages.create()`, and what the adapter noted while building it. */
export type BuiltRequest = {
  body: MessageCreateParamsBase
  /** What was dropped or changed from the caller's options. */
  warnings: string[]
  /** The body replays `thinking`/`redacted_thinking` blocks (so a stale-signature 400 can be retried without them). */
  replayedThinking: boolean
}

/**
 * Builds the Messages request for one call: thinking per model, tools and tool choice, output
 * format, stop sequences, the conversation under the replay policy (with the container of a turn
 * being continued), `providerOptions.anthropic` merged, and last the cache breakpoints when
 * `options.cache` asks for caching. Options the model rejects are left out and named in
 * `warnings`.
 */
export function buildRequest(
  model: ModelEntry,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
  stripThinking = false,
): BuiltRequest {
  const warnings: string[] = []
  const info = model.row
  const rejects = info.rejects
  const plan = planThinking(model, options.thinking, options.maxTokens, warnings)
  const encoded = encodeConversation(conversation.turns, tag, stripThinking)
  if (encoded.unfinished.length > 0) {
    warnings.push(
      `${encoded.unfinished.join(', ')} call left out: a paused turn that was not continued ended with it, without its result`,
    )
  }

  const body: MessageCreateParamsBase = {
    model: model.id,
    max_tokens: plan.maxTokens,
    messages: encoded.messages,
  }
  if (encoded.container !== undefined) body.container = encoded.container

  let thinking = plan.thinking
  let manual = plan.manual
  if (
    manual &&
    encoded.openLoopWithoutThinking &&
    info.thinking.mode !== 'none' &&
    info.thinking.canDisable
  ) {
    // Manual mode needs the last assistant turn of a tool loop to start with a thinking block; a
    // turn from another model has none, so this one step runs without thinking.
    thinking = { type: 'disabled' }
    manual = false
    warnings.push('thinking off for this step: the tool call it answers came without thinking')
  }
  if (thinking !== undefined) body.thinking = thinking
  if (plan.effort !== undefined) body.output_config = { effort: plan.effort }

  let system = conversation.system
  const format = options.responseFormat
  if (format !== undefined) {
    if (info.json && format.schema !== undefined) {
      body.output_config = {
        ...body.output_config,
        format: { type: 'json_schema', schema: format.schema },
      }
    } else {
      system = withJsonInstruction(system, format)
    }
  }
  if (system !== undefined && system !== '') body.system = system

  if (options.tools !== undefined && options.tools.length > 0) {
    if (!info.tools) warnings.push(`tools dropped: ${model.id} does not take tools`)
    else {
      body.tools = options.tools.map((tool): Tool => {
        const out: Tool = { name: tool.name, input_schema: { type: 'object', ...tool.parameters } }
        if (tool.description !== undefined) out.description = tool.description
        return out
      })
      const choice = toolChoice(options.toolChoice, manual, rejects, warnings)
      if (choice !== undefined) body.tool_choice = choice
    }
  }

  if (options.temperature !== undefined) {
    if (rejects.includes('temperature'))
      warnings.push(`temperature dropped: ${model.id} does not take sampling parameters`)
    else Object.assign(body, { temperature: options.temperature })
  }

  const stop = stopSequences(options.stop, warnings)
  if (stop !== undefined) body.stop_sequences = stop

  mergeProviderOptions(body, options, 'anthropic', warnings, rejects)
  // Last, so that the last tool is the last one sent, the caller's own included.
  const cacheControl = cacheControlOf(options.cache)
  if (cacheControl !== undefined) markCacheBreakpoints(body, cacheControl, warnings)
  return { body, warnings, replayedThinking: encoded.replayedThinking }
}

/** `stop` as `stop_sequences`: the API refuses an empty or whitespace-only one, so those are dropped. */
function stopSequences(
  stop: readonly string[] | undefined,
  warnings: string[],
): string[] | undefined {
  if (stop === undefined || stop.length === 0) return undefined
  const kept = [...new Set(stop.filter((sequence) => /\S/.test(sequence)))]
  const dropped = stop.filter((sequence) => !/\S/.test(sequence))
  if (dropped.length > 0)
    warnings.push(
      `stop sequences ${dropped.map((sequence) => JSON.stringify(sequence)).join(', ')} dropped: Anthropic takes none that is empty or only whitespace`,
    )
  return kept.length === 0 ? undefined : kept
}

function toolChoice(
  choice: ToolChoice | undefined,
  manual: boolean,
  rejects: readonly string[],
  warnings: string[],
): AnthropicToolChoice | undefined {
  if (choice === undefined) return undefined
  if (choice === 'auto') return { type: 'auto' }
  if (choice === 'none') return { type: 'none' }
  if (manual || rejects.includes('forced-tool-choice')) {
    warnings.push(
      manual
        ? 'toolChoice sent as auto: forced tool use does not combine with budget thinking'
        : 'toolChoice sent as auto: this model does not take forced tool use',
    )
    return { type: 'auto' }
  }
  if (choice === 'required') return { type: 'any' }
  return { type: 'tool', name: choice.name }
}
