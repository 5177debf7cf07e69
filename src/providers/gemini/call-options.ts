import type { CallOptions, ResponseFormat, ToolSpec } from '../../core/adapter.ts'
import { keepStopSequences } from '../../kit/stop-sequences.ts'

/** What a Gemini model takes, as both APIs' model rows say it. */
export type GeminiSupport = {
  tools: boolean
  json: boolean
  maxOutputTokens?: number | undefined
}

/** The call options both Gemini APIs send alike, each kept only where the model takes it. */
export type GeminiCallOptions = {
  tools: readonly ToolSpec[]
  responseFormat: ResponseFormat | undefined
  maxTokens: number | undefined
  stop: string[] | undefined
}

/** Gemini takes at most this many stop sequences, on either API. */
const MAX_STOP_SEQUENCES = 5

/**
 * The tools, JSON output, output cap and stop sequences of a call, as either Gemini API sends
 * them (each API writes them in its own fields): what the model cannot take is dropped, a cap
 * over the model's own is lowered to it, extra stop sequences are dropped, and a cache `key` or
 * `ttl` is not used (Gemini caches request prefixes on its own, and takes neither), each with a
 * warning.
 */
export function geminiCallOptions(
  options: CallOptions,
  model: GeminiSupport,
  warnings: string[],
  /** Where an explicit cache goes instead, when the API has one. */
  explicitCache?: string,
): GeminiCallOptions {
  let tools = options.tools ?? []
  if (tools.length > 0 && !model.tools) {
    warnings.push('tools: this model takes no tools; dropped')
    tools = []
  }
  let responseFormat = options.responseFormat
  if (responseFormat !== undefined && !model.json) {
    warnings.push('responseFormat: this model has no JSON mode; dropped')
    responseFormat = undefined
  }
  let maxTokens = options.maxTokens
  const limit = model.maxOutputTokens
  if (maxTokens !== undefined && limit !== undefined && maxTokens > limit) {
    warnings.push(`maxTokens: ${maxTokens} is over this model's ${limit}; used ${limit}`)
    maxTokens = limit
  }
  const stop =
    options.stop !== undefined && options.stop.length > 0
      ? keepStopSequences(options.stop, MAX_STOP_SEQUENCES, 'Gemini', warnings)
      : undefined
  const { cache } = options
  if (typeof cache === 'object') {
    const instead = explicitCache === undefined ? '' : ` (${explicitCache})`
    if (cache.key !== undefined)
      warnings.push(`cache.key not used: Gemini caches on its own and takes no key${instead}`)
    if (cache.ttl !== undefined)
      warnings.push(`cache.ttl not used: Gemini caches on its own and takes no ttl${instead}`)
  }
  return { tools, responseFormat, maxTokens, stop }
}
