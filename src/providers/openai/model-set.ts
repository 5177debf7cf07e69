/** A set of model ids that holds at most a given number, forgetting the oldest first. */
export type ModelSet = {
  has(model: string): boolean
  add(model: string): void
}

/**
 * A {@link ModelSet} of at most `limit` ids. Model ids may come from clients (a relay's
 * `provider/model`), so what an adapter factory learns about models is bounded.
 */
export function boundedModelSet(limit: number): ModelSet {
  const models = new Set<string>()
  return {
    has: (model) => models.has(model),
    add(model) {
      models.delete(model)
      models.add(model)
      if (models.size > limit) models.delete(models.values().next().value!)
    },
  }
}
