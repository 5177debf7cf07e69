/** Runs a callback soon: once per animation frame in a browser, at once in tests. */
export type Scheduler = (flush: () => void) => void

const immediate: Scheduler = (flush) => flush()

/**
 * The `subscribe`/`getSnapshot` half of a store (what React's `useSyncExternalStore` binds to): a
 * new snapshot on every change, listeners told at once by `emit()`, or once through the scheduler
 * by `schedule()`, however many changes come before it runs.
 */
export class Notifier<Snapshot> {
  readonly #make: () => Snapshot
  readonly #scheduler: () => Scheduler | undefined
  #listeners = new Set<() => void>()
  #snapshot: Snapshot
  #dirty = false

  /** `scheduler` is read at each `schedule()`, so a store may change it later. @defaultValue at once */
  constructor(make: () => Snapshot, scheduler: () => Scheduler | undefined) {
    this.#make = make
    this.#scheduler = scheduler
    this.#snapshot = make()
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The current snapshot (the same object until something changes). */
  getSnapshot = (): Snapshot => this.#snapshot

  /** Makes a new snapshot and tells every listener now. */
  emit(): void {
    this.#dirty = false
    this.#snapshot = this.#make()
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
