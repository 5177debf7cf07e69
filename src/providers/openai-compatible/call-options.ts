import type { CacheOptions } from '../../core/adapter.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { JsonRecord } from '../../kit/json.ts'
import { keepStopSequences } from '../../kit/stop-sequences.ts'
import type { CompatibleModelInfo } from './models.ts'

/**
 * The caller's output cap as this model takes it: lowered to the most the model takes when its row
 * knows that (with a warning), never raised.
 */
export function outputCap(
  maxTokens: number | undefined,
  info: CompatibleModelInfo,
  warnings: string[],
): number | undefined {
  if (maxTokens === undefined || info.maxOutputTokens === undefined) return maxTokens
  if (maxTokens <= info.maxOutputTokens) return maxTokens
  warnings.push(
    `maxTokens lowered from ${maxTokens} to ${info.maxOutputTokens}, the most this model takes`,
  )
  return info.maxOutputTokens
}

/** The output cap in the field this model takes it in: `max_tokens` or `max_completion_tokens`. */
export function maxTokensParams(cap: number | undefined, info: CompatibleModelInfo): JsonRecord {
  return cap === undefined ? {} : { [info.maxTokensField]: cap }
}

/** `temperature`, unless the model takes none (then dropped with a warning). */
export function temperatureParams(
  temperature: number | undefined,
  info: CompatibleModelInfo,
  warnings: string[],
): JsonRecord {
  if (temperature === undefined) return {}
  if (info.temperature) return { temperature }
  warnings.push(`temperature ${temperature} dropped: this model takes no temperature`)
  return {}
}

/**
 * `stop`: the caller's stop sequences, as many as the model takes; the rest are dropped and named
 * in a warning. A list that is not of strings is refused, naming the entry at fault.
 */
export function stopParams(
  stop: unknown,
  info: CompatibleModelInfo,
  provider: string,
  warnings: string[],
): JsonRecord {
  if (stop === undefined) return {}
  if (!Array.isArray(stop))
    throw invalidOption(provider, `options.stop must be a list of strings, got ${typeName(stop)}`)
  const sequences: string[] = []
  for (const [i, sequence] of stop.entries()) {
    if (typeof sequence !== 'string')
      throw invalidOption(
        provider,
        `options.stop[${i}] must be a string, got ${typeName(sequence)}`,
      )
    sequences.push(sequence)
  }
  const kept = keepStopSequences(sequences, info.stopSequences, 'this model', warnings)
  return kept.length > 0 ? { stop: kept } : {}
}

/**
 * Prompt caching on a Chat Completions server. These servers cache a repeated prefix on their own,
 * so `true` needs nothing; a `key` becomes `prompt_cache_key` where the model takes it (OpenAI),
 * and is dropped with a warning elsewhere; a `ttl` has no field here and is dropped with a warning.
 */
export function cacheParams(
  cache: CacheOptions | undefined,
  info: CompatibleModelInfo,
  provider: string,
  warnings: string[],
): JsonRecord {
  if (cache === undefined || typeof cache === 'boolean') return {}
  if (typeof cache !== 'object' || cache === null)
    throw invalidOption(provider, `options.cache must be true, false or { key?, ttl? }`)
  const { key, ttl } = cache
  if (key !== undefined && (typeof key !== 'string' || key === ''))
    throw invalidOption(provider, `options.cache.key must be a non-empty string`)
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h')
    throw invalidOption(provider, `options.cache.ttl must be '5m' or '1h', got ${String(ttl)}`)
  if (ttl !== undefined)
    warnings.push(`cache.ttl '${ttl}' dropped: this server takes no cache lifetime`)
  if (key === undefined) return {}
  if (info.cacheKey) return { prompt_cache_key: key }
  warnings.push('cache.key dropped: this server takes no cache key')
  return {}
}

function invalidOption(provider: string, message: string): ThinkwireError {
  return new ThinkwireError({
    kind: 'invalid-request',
    message: `${provider}: ${message}`,
    provider,
  })
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : typeof value
}
