/** Runs a callback soon: once per animation frame in a browser, at once in tests. */
export type Scheduler = (flush: () => void) => void

/**
 * The `subscribe`/`getSnapshot` half of a store (what React's `useSyncExternalStore` binds to),
 * made by {@link createNotifier}. Its functions need no `this`: a store hands them out as they are.
 */
export type Notifier<Snapshot> = {
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** The current snapshot (the same object until something changes). */
  getSnapshot(): Snapshot
  /** Drops the snapshot (the next read makes a new one) and tells every listener now. */
  emit(): void
  /** Emits once through the scheduler, however many changes arrive before it runs. */
  schedule(): void
}

const immediate: Scheduler = (flush) => flush()

/**
 * A new snapshot on every change, listeners told at once by `emit()`, or once through the
 * scheduler by `schedule()`, however many changes come before it runs. A snapshot is made when it
 * is first read, so a store no one reads (a `Chat` driven by its `send()` alone) makes none.
 * `scheduler` is read at each `schedule()`, so a store may change it later (at once when it gives
 * none).
 */
export function createNotifier<Snapshot>(
  make: () => Snapshot,
  scheduler: () => Scheduler | undefined,
): Notifier<Snapshot> {
  const listeners = new Set<() => void>()
  /** Undefined until read after a change. */
  let snapshot: Snapshot | undefined
  let dirty = false
  const emit = () => {
    dirty = false
    snapshot = undefined
    for (const listener of listeners) listener()
  }
  return {
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    getSnapshot: () => (snapshot ??= make()),
    emit,
    schedule() {
      if (dirty) return
      dirty = true
      ;(scheduler() ?? immediate)(() => {
        if (dirty) emit()
      })
    },
  }
}
