/** Runs a callback soon: once per animation frame in a browser, at once in tests. */
export type Scheduler = (flush: () => void) => void

const immediate: Scheduler = (flush) => flush()

/**
 * The `subscribe`/`getSnapshot` half of a store (what React's `useSyncExternalStore` binds to): a
 * new snapshot on every change, listeners told at once by `emit()`, or once through the scheduler
 * by `schedule()`, however many changes come before it runs. A snapshot is made when it is first
 * read, so a store no one reads (a `Chat` driven by its `send()` alone) makes none.
 */
export class Notifier<Snapshot> {
  readonly #make: () => Snapshot
  readonly #scheduler: () => Scheduler | undefined
  #listeners = new Set<() => void>()
  /** Undefined until read after a change. */
  #snapshot: Snapshot | undefined
  #dirty = false

  /** `scheduler` is read at each `schedule()`, so a store may change it later. @defaultValue at once */
  constructor(make: () => Snapshot, scheduler: () => Scheduler | undefined) {
    this.#make = make
    this.#scheduler = scheduler
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The current snapshot (the same object until something changes). */
  getSnapshot = (): Snapshot => (this.#snapshot ??= this.#make())

  /** Drops the snapshot (the next read makes a new one) and tells every listener now. */
  emit(): void {
    this.#dirty = false
    this.#snapshot = undefined
    for (const listener of this.#listeners) listener()
  }

  /** Emits once through the scheduler, however many changes arrive before it runs. */
  schedule(): void {
    if (this.#dirty) return
    this.#dirty = true
    ;(this.#scheduler() ?? immediate)(() => {
      if (this.#dirty) this.emit()
    })
  }
}
