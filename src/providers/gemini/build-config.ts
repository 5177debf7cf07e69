import {
  FunctionCallingConfigMode,
  ThinkingLevel,
  type GenerateContentConfig,
  type ThinkingConfig,
  type ToolConfig,
} from '@google/genai'
import type { CallOptions, ToolChoice } from '../../core/adapter.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import { keepStopSequences } from '../../kit/stop-sequences.ts'
import type { GeminiModel } from './models.ts'
import { fitThinkingBudget, thinkingConfigFor } from './thinking-config.ts'

/**
 * The request `config` for the call options: thinking per the model row, tools, tool choice,
 * JSON output, limits, stop sequences, the system prompt, then `providerOptions.gemini` merged
 * over the top (see `mergeProviderOptions`); last, a thinking budget is held under the output
 * cap. What the model cannot take is dropped or adjusted, with a warning.
 */
export function buildConfig(
  info: GeminiModel,
  system: string | undefined,
  options: CallOptions,
  warnings: string[],
): GenerateContentConfig {
  // A failed request is the caller's to retry (withRetry); a stream is never resumed half-way.
  const config: GenerateContentConfig = { automaticContinuation: false }
  if (system !== undefined && system !== '') config.systemInstruction = system

  const thinking = thinkingConfigFor(info.thinking, options.thinking, warnings)
  if (thinking !== undefined) {
    const { thinkingLevel, ...rest } = thinking
    const thinkingConfig: ThinkingConfig = rest
    const level = Object.values(ThinkingLevel).find((value) => value === thinkingLevel)
    if (level !== undefined) thinkingConfig.thinkingLevel = level
    config.thinkingConfig = thinkingConfig
  }

  const tools = options.tools ?? []
  if (tools.length > 0 && !info.tools) warnings.push('tools: this model takes no tools; dropped')
  else if (tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parametersJsonSchema: tool.parameters,
        })),
      },
    ]
    if (options.toolChoice !== undefined) config.toolConfig = toolConfigFor(options.toolChoice)
  }

  if (options.responseFormat !== undefined) {
    if (!info.json) warnings.push('responseFormat: this model has no JSON mode; dropped')
    else {
      config.responseMimeType = 'application/json'
      if (options.responseFormat.schema !== undefined)
        config.responseJsonSchema = options.responseFormat.schema
    }
  }

  if (options.maxTokens !== undefined) {
    const limit = info.maxOutputTokens
    if (limit !== undefined && options.maxTokens > limit) {
      warnings.push(`maxTokens: ${options.maxTokens} is over this model's ${limit}; used ${limit}`)
      config.maxOutputTokens = limit
    } else config.maxOutputTokens = options.maxTokens
  }
  if (options.temperature !== undefined) config.temperature = options.temperature
  if (options.stop !== undefined && options.stop.length > 0)
    config.stopSequences = keepStopSequences(options.stop, MAX_STOP_SEQUENCES, 'Gemini', warnings)
  cacheWarnings(options.cache, warnings)

  mergeProviderOptions(config, options, 'gemini', warnings)
  // After the merge, so a budget given in providerOptions is held to the cap as well.
  fitThinkingBudget(config, info.thinking, warnings)
  return config
}

/** Gemini takes at most this many stop sequences. */
const MAX_STOP_SEQUENCES = 5

/**
 * Gemini caches request prefixes on its own (implicit caching; what it read from the cache is in
 * the usage), so `cache: true` needs nothing sent. It has no per-request cache key or lifetime:
 * an explicit cache is a resource of its own, used with `providerOptions.gemini.cachedContent`.
 * So a `key` or `ttl` is not used, and the turn says so.
 */
function cacheWarnings(cache: CallOptions['cache'], warnings: string[]): void {
  if (typeof cache !== 'object') return
  const explicit = 'an explicit cache goes in providerOptions.gemini.cachedContent'
  if (cache.key !== undefined)
    warnings.push(`cache.key not used: Gemini caches on its own and takes no key (${explicit})`)
  if (cache.ttl !== undefined)
    warnings.push(`cache.ttl not used: Gemini caches on its own and takes no ttl (${explicit})`)
}

function toolConfigFor(choice: ToolChoice): ToolConfig {
  const { AUTO, ANY, NONE } = FunctionCallingConfigMode
  if (choice === 'auto') return { functionCallingConfig: { mode: AUTO } }
  if (choice === 'none') return { functionCallingConfig: { mode: NONE } }
  if (choice === 'required') return { functionCallingConfig: { mode: ANY } }
  return { functionCallingConfig: { mode: ANY, allowedFunctionNames: [choice.name] } }
}
