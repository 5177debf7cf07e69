import {
  FunctionCallingConfigMode,
  ThinkingLevel,
  type GenerateContentConfig,
  type ThinkingConfig,
  type ToolConfig,
} from '@google/genai'
import type { CallOptions, ToolChoice } from '../../core/adapter.ts'
import { mergeProviderOptions } from '../../kit/provider-options.ts'
import type { GeminiModel } from './models.ts'
import { thinkingConfigFor } from './thinking-config.ts'

/**
 * The request `config` for the call options: thinking per the model row, tools, tool choice,
 * JSON output, limits, the system prompt, then `providerOptions.gemini` merged over the top
 * (shallow). What the model cannot take is dropped or adjusted, with a warning.
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

  mergeProviderOptions(config, options, 'gemini', warnings)
  return config
}

function toolConfigFor(choice: ToolChoice): ToolConfig {
  const { AUTO, ANY, NONE } = FunctionCallingConfigMode
  if (choice === 'auto') return { functionCallingConfig: { mode: AUTO } }
  if (choice === 'none') return { functionCallingConfig: { mode: NONE } }
  if (choice === 'required') return { functionCallingConfig: { mode: ANY } }
  return { functionCallingConfig: { mode: ANY, allowedFunctionNames: [choice.name] } }
}
