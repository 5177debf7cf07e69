/**
 * The stop sequences a model takes: the first `limit`, the rest dropped with a warning that names
 * them (`who` says whose limit it is: `'Gemini'`, `'this model'`).
 *
 * @example
 * ```ts
 * const stop = keepStopSequences(options.stop ?? [], 4, 'Acme', warnings)
 * ```
 */
export function keepStopSequences(
  stop: readonly string[],
  limit: number,
  who: string,
  warnings: string[],
): string[] {
  const kept = stop.slice(0, limit)
  const dropped = stop.slice(limit)
  if (dropped.length === 0) return kept
  const names = dropped.map((sequence) => JSON.stringify(sequence)).join(', ')
  warnings.push(
    limit === 0
      ? `stop dropped: ${who} takes no stop sequences (${names})`
      : `stop: ${who} takes at most ${limit} stop sequences; dropped ${names}`,
  )
  return kept
}
