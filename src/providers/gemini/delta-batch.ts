import type { Delta } from '../../kit/guard-stream.ts'

/** The deltas of one chunk or event: usually one, sometimes several (parallel calls), often none. */
export type Deltas = Delta | Delta[] | undefined

/** Collects the deltas a mapper emits for one chunk or event; see {@link createDeltaBatch}. */
export type DeltaBatch = {
  /** Adds a delta to the batch being collected. */
  emit(delta: Delta): void
  /** Runs `read` on a new batch: the deltas it emitted. */
  collect(read: () => void): Deltas
}

/**
 * A batch of the deltas of one input at a time. Most inputs emit one delta or none, which come
 * back as they are: an array is made only for a second delta.
 */
export function createDeltaBatch(): DeltaBatch {
  let out: Deltas
  return {
    emit(delta) {
      if (out === undefined) out = delta
      else if (Array.isArray(out)) out.push(delta)
      else out = [out, delta]
    },
    collect(read) {
      out = undefined
      read()
      return out
    },
  }
}
