/**
 * A provider's models as data: what every model shares, then a line per model or family that
 * says only how it differs.
 */
export type ModelTable<Row> = {
  /**
   * The row of `model`: the defaults with the override of its exact id, else of the longest
   * `prefix*` family it belongs to. Undefined for a model the table does not know.
   */
  find(model: string): Row | undefined
}

/**
 * Creates a model table. Keys are exact ids or families written `'prefix*'`; an override is merged
 * over `defaults` one level deep (a field it gives replaces the default's whole field).
 *
 * @example
 * ```ts
 * const table = modelTable({ tools: true, maxOutputTokens: 64_000 }, {
 *   'claude-opus-4-7*': { maxOutputTokens: 128_000 },
 * })
 * table.find('claude-opus-4-7-20260101')?.maxOutputTokens // 128000
 * ```
 */
export function modelTable<Row extends object>(
  defaults: Row,
  overrides: { readonly [idOrFamily: string]: Partial<Row> },
): ModelTable<Row> {
  const exact = new Map<string, Row>()
  // Longest prefix first, so the first match is the most specific family.
  const families: [prefix: string, row: Row][] = []
  for (const [key, override] of Object.entries(overrides)) {
    const row = { ...defaults, ...override }
    if (key.endsWith('*')) families.push([key.slice(0, -1), row])
    else exact.set(key, row)
  }
  families.sort((a, b) => b[0].length - a[0].length)
  return {
    find(model) {
      return exact.get(model) ?? families.find(([prefix]) => model.startsWith(prefix))?.[1]
    },
  }
}
