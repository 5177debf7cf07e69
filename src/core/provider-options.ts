import type { CallOptions } from './adapter.ts'

/**
 * Merges `options.providerOptions[provider]` over a request body, leaving out the keys the model
 * rejects. What is left out, and a value that is not an object, is reported in `warnings`.
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
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    warnings.push(`providerOptions.${provider} ignored: it must be an object`)
    return
  }
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(extra)) {
    if (rejects.includes(key)) {
      warnings.push(`providerOptions.${provider}.${key} dropped: the model rejects it`)
    } else kept[key] = value
  }
  Object.assign(body, kept)
}
