import {
  FunctionCallingConfigMode,
  ThinkingLevel,
  type GenerateContentConfig,
  type ThinkingConfig,
  type ToolConfig,
} from '@google/genai'
import type { CallOptions, ToolChoice } from '../../core/adapter.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import { geminiCallOptions } from './call-options.ts'
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

  const { tools, responseFormat, maxTokens, stop } = geminiCallOptions(
    options,
    info,
    warnings,
    'an explicit cache goes in providerOptions.gemini.cachedContent',
  )
  if (tools.length > 0) {
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
  if (responseFormat !== undefined) {
    config.responseMimeType = 'application/json'
    if (responseFormat.schema !== undefined) config.responseJsonSchema = responseFormat.schema
  }
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens
  if (options.temperature !== undefined) config.temperature = options.temperature
  if (stop !== undefined) config.stopSequences = stop

  mergeProviderOptions(config, options, 'gemini', warnings)
  // After the merge, so a budget given in providerOptions is held to the cap as well.
  fitThinkingBudget(config, info.thinking, warnings)
  return config
}

function toolConfigFor(choice: ToolChoice): ToolConfig {
  const { AUTO, ANY, NONE } = FunctionCallingConfigMode
  if (choice === 'auto') return { functionCallingConfig: { mode: AUTO } }
  if (choice === 'none') return { functionCallingConfig: { mode: NONE } }
  if (choice === 'required') return { functionCallingConfig: { mode: ANY } }
  return { functionCallingConfig: { mode: ANY, allowedFunctionNames: [choice.name] } }
}
