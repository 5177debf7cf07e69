import type { CallOptions } from '../core/adapter.ts'
import { isRecord, type JsonRecord } from './json.ts'
import { isSafeKey } from './safe-json.ts'

/**
 * Merges `options.providerOptions[provider]` into a request body, leaving out the keys the model
 * rejects. The merge adds to what the adapter built rather than replacing it: objects merge key by
 * key, arrays get the caller's entries after the adapter's own (without repeating one), other
 * values replace. So a caller's server tools join the function tools, and a caller's `include`
 * keeps the encrypted reasoning the adapter asked for. What is left out, and a value that is not
 * an object, is reported in `warnings`.
 */
export function mergeProviderOptions(
  body: object,
  options: CallOptions,
  provider: string,
  warnings: string[],
  rejects: readonly string[] = [],
): void {
  const extra = options.providerOptions?.[provider]
  if (extra === undefined) return
  if (!isRecord(extra)) {
    warnings.push(`providerOptions.${provider} ignored: it must be an object`)
    return
  }
  const target = body as JsonRecord
  for (const [key, value] of Object.entries(extra)) {
    if (rejects.includes(key)) {
      warnings.push(`providerOptions.${provider}.${key} dropped: the model rejects it`)
    } else if (isSafeKey(key)) target[key] = merged(target[key], value)
  }
}

function merged(base: unknown, extra: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(extra)) {
    const seen = new Set(base.map((item) => JSON.stringify(item)))
    return [...base, ...extra.filter((item) => !seen.has(JSON.stringify(item)))]
  }
  if (isRecord(base) && isRecord(extra)) {
    const out: JsonRecord = { ...base }
    for (const [key, value] of Object.entries(extra)) {
      if (isSafeKey(key)) out[key] = merged(out[key], value)
    }
    return out
  }
  return extra
}
