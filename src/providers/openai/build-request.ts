import type {
  FunctionTool,
  ResponseCreateParamsBase,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses'
import type { CacheOptions, CallOptions, ToolChoice } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import { withJsonInstruction } from '../../kit/json-instruction.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import type { ReplayTag } from '../../kit/replay.ts'
import { keepStopSequences } from '../../kit/stop-sequences.ts'
import { encodeInput } from './encode-input.ts'
import type { OpenAIModel } from './models.ts'
import { planReasoning } from './reasoning.ts'

/** A Responses request body, without `stream` (the adapter sets it). */
export type ResponsesBody = Omit<ResponseCreateParamsBase, 'stream'>

/** A request body ready to stream, and what was dropped or changed on the way. */
export type BuiltRequest = { body: ResponsesBody; warnings: string[] }

/** What a request leaves out after the API refused an earlier form of it. */
export type RequestPlan = {
  /**
   * Ask for encrypted reasoning (`include: ['reasoning.encrypted_content']`) where the model may
   * reason; false for a model that refuses it. @defaultValue true
   */
  encryptedReasoning?: boolean | undefined
  /**
   * Replay the encrypted items of earlier turns (reasoning and compaction items); false after the
   * API could not verify them. @defaultValue true
   */
  replayEncrypted?: boolean | undefined
}

const ENCRYPTED_REASONING = 'reasoning.encrypted_content'

/**
 * Builds the Responses request for one call: `store: false` with the conversation inline, reasoning
 * per model (with encrypted reasoning included so it can be replayed), tools, tool choice, output
 * format, the prompt cache key, and `providerOptions.openai` merged last. Options the model
 * rejects, and stop sequences (the Responses API has none), are left out and named in `warnings`.
 * A model the table does not know is asked for encrypted reasoning even when the call sends no
 * reasoning settings: it may reason anyway (a fine-tuned o4-mini does), and reasoning it cannot
 * replay costs its calls their item ids. `plan` says what to leave out that the API refused.
 */
export function buildRequest(
  row: OpenAIModel,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
  plan: RequestPlan = {},
): BuiltRequest {
  const warnings: string[] = []
  const { model } = tag
  const { rejects } = row
  const body: ResponsesBody = {
    model,
    input: encodeInput(conversation.turns, tag, warnings, { encrypted: plan.replayEncrypted }),
    store: false,
  }
  let instructions = conversation.system
  const reasoning = planReasoning(model, row, options, warnings)
  if (reasoning !== undefined) body.reasoning = reasoning
  const encrypted = plan.encryptedReasoning ?? true
  if (encrypted && (reasoning !== undefined || row.mayNotReason))
    body.include = [ENCRYPTED_REASONING]
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens

  const format = options.responseFormat
  if (format !== undefined) {
    if (format.schema !== undefined && row.json) {
      body.text = {
        format: {
          type: 'json_schema',
          name: format.name ?? 'response',
          schema: format.schema,
          strict: false,
        },
      }
    } else {
      // `json_object` needs the word JSON in the input; the instruction carries it.
      if (row.json) body.text = { format: { type: 'json_object' } }
      instructions = withJsonInstruction(instructions, format)
    }
  }
  if (instructions !== undefined && instructions !== '') body.instructions = instructions

  if (options.tools !== undefined && options.tools.length > 0) {
    if (!row.tools) warnings.push(`tools dropped: ${model} does not take tools`)
    else {
      body.tools = options.tools.map((tool): FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description ?? null,
        parameters: tool.parameters,
        // Strict mode demands closed schemas with every property required; tools here are plain JSON Schema.
        strict: false,
      }))
      const choice = toolChoice(options.toolChoice)
      if (choice !== undefined) body.tool_choice = choice
    }
  }

  // The Responses API has no stop sequences: any given is dropped, and named.
  keepStopSequences(options.stop ?? [], 0, 'the Responses API', warnings)
  planCache(body, options.cache, warnings)

  if (options.temperature !== undefined) {
    if (rejects.includes('temperature'))
      warnings.push(`temperature dropped: ${model} does not take sampling parameters`)
    else body.temperature = options.temperature
  }

  mergeProviderOptions(body, options, 'openai', warnings, rejects)
  if (!encrypted) withoutEncryptedReasoning(body)
  return { body, warnings }
}

/** `body` without encrypted reasoning in its `include`, the caller's included. */
function withoutEncryptedReasoning(body: ResponsesBody): void {
  if (!Array.isArray(body.include)) return
  const include = body.include.filter((entry) => entry !== ENCRYPTED_REASONING)
  if (include.length > 0) body.include = include
  else delete body.include
}

/**
 * Prompt caching. OpenAI caches every long enough prompt prefix on its own, so `cache: true` (and
 * `ttl: '5m'`, which its in-memory cache keeps anyway: prefixes stay 5 to 10 minutes idle) sends
 * nothing; `cache.key` is `prompt_cache_key`, which routes requests that share it to the same
 * cache. A lifetime of an hour has no honest equal: `prompt_cache_retention` takes `'in_memory'`
 * (minutes, an hour at most, promised for none) or `'24h'` (extended caching, kept up to a day,
 * for the models that offer it), so `ttl: '1h'` sends nothing and says so; a caller who wants the
 * extended cache sets `providerOptions.openai.prompt_cache_retention: '24h'`.
 */
function planCache(body: ResponsesBody, cache: CacheOptions | undefined, warnings: string[]): void {
  if (typeof cache !== 'object') return
  if (cache.key !== undefined) body.prompt_cache_key = cache.key
  if (cache.ttl === '1h')
    warnings.push(
      "cache ttl '1h' dropped: OpenAI takes no cache lifetime of an hour (its cache keeps a prefix for minutes; providerOptions.openai.prompt_cache_retention: '24h' keeps it up to a day)",
    )
}

function toolChoice(
  choice: ToolChoice | undefined,
): ToolChoiceOptions | ToolChoiceFunction | undefined {
  if (choice === undefined || typeof choice === 'string') return choice
  return { type: 'function', name: choice.name }
}
