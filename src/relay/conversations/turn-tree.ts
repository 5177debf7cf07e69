/** The parent of a conversation's first turns (each first turn is a version of the first). */
export const ROOT = -1

/** No turns: what `keep` is when none is kept. */
export const NO_TURNS: ReadonlySet<number> = new Set()

/** Where a turn is among its versions, 0-based: what `GET` shows on a turn that has siblings. */
export type BranchPlace = { index: number; count: number }

/** One stored turn as the tree knows it: its parent and its bytes, never its JSON. */
type TreeNode = { parent: number; bytes: number }

/**
 * The shape of a conversation's turns (DESIGN §14): each turn numbered (`seq`, in the order stored,
 * so a child's number is always above its parent's), under its parent. A regenerate or an edit adds
 * a sibling instead of replacing; each parent remembers which child is active (the one chosen, else
 * the newest), so the active path runs from the root along them, and a switch to an older version
 * finds the path that was active under it. It holds numbers only: the turns stay in storage.
 */
export class TurnTree {
  #nodes = new Map<number, TreeNode>()
  #children = new Map<number, number[]>()
  #chosen = new Map<number, number>()
  #path: number[] | undefined
  #bytes = 0
  #last = ROOT

  /** `nodes` in the order stored; `chosen`, each parent's active child where it is not the newest. */
  constructor(
    nodes: Iterable<{ seq: number; parent: number; bytes: number }> = [],
    chosen: Iterable<[parent: number, child: number]> = [],
  ) {
    for (const { seq, parent, bytes } of nodes) this.#link(seq, parent, bytes)
    for (const [parent, child] of chosen) {
      if (this.#nodes.get(child)?.parent === parent) this.#chosen.set(parent, child)
    }
  }

  /** How many turns are stored, on every branch, and their bytes. */
  get totals(): { turns: number; bytes: number } {
    return { turns: this.#nodes.size, bytes: this.#bytes }
  }

  /** The number the next stored turn takes. */
  get nextSeq(): number {
    return this.#last + 1
  }

  /** Every stored turn's number and parent, in the order stored. */
  nodes(): { seq: number; parent: number }[] {
    return [...this.#nodes]
      .map(([seq, { parent }]) => ({ seq, parent }))
      .toSorted((a, b) => a.seq - b.seq)
  }

  has(seq: number): boolean {
    return this.#nodes.has(seq)
  }

  parentOf(seq: number): number {
    return this.#nodes.get(seq)?.parent ?? ROOT
  }

  bytesOf(seq: number): number {
    return this.#nodes.get(seq)?.bytes ?? 0
  }

  /** The versions of a turn: its parent's children, oldest first. */
  siblingsOf(seq: number): readonly number[] {
    return this.#children.get(this.parentOf(seq)) ?? []
  }

  /** Where `seq` is among its versions; undefined when it has none besides itself. */
  branchOf(seq: number): BranchPlace | undefined {
    const siblings = this.siblingsOf(seq)
    if (siblings.length < 2) return undefined
    return { index: siblings.indexOf(seq), count: siblings.length }
  }

  /** The child of `parent` on its active path, if any: the one chosen, else the newest. */
  activeChild(parent: number): number | undefined {
    return this.#chosen.get(parent) ?? this.#children.get(parent)?.at(-1)
  }

  /** Whether `parent`'s active child is `child` only because it was chosen (not the newest). */
  isChosen(parent: number): boolean {
    return this.#chosen.has(parent)
  }

  /** Whether turn `seq` is on the active path: it and each turn above it are the active child. */
  isActive(seq: number): boolean {
    if (!this.#nodes.has(seq)) return false
    for (let at = seq; at !== ROOT; at = this.parentOf(at)) {
      if (this.activeChild(this.parentOf(at)) !== at) return false
    }
    return true
  }

  /** The active path: the turn numbers the provider gets, in order. */
  path(): readonly number[] {
    if (this.#path !== undefined) return this.#path
    const path: number[] = []
    for (let at = this.activeChild(ROOT); at !== undefined; at = this.activeChild(at)) path.push(at)
    this.#path = path
    return path
  }

  /** The turns from the first to `seq`, in order. */
  pathTo(seq: number): number[] {
    const path: number[] = []
    for (let at = seq; at !== ROOT && this.#nodes.has(at); at = this.parentOf(at)) path.push(at)
    return path.toReversed()
  }

  /** The bytes of the turns from the first to `seq`. */
  bytesTo(seq: number | undefined): number {
    let bytes = 0
    for (let at = seq ?? ROOT; at !== ROOT && this.#nodes.has(at); at = this.parentOf(at))
      bytes += this.bytesOf(at)
    return bytes
  }

  /** Adds a stored turn under `parent`, the newest of its versions. */
  add(seq: number, parent: number, bytes: number): void {
    this.#link(seq, parent, bytes)
    this.#path = undefined
  }

  /**
   * Makes `child` the active child of its parent; returns what storage must now hold for the
   * parent: the child chosen, or undefined when the newest is active by itself (and nothing need
   * be stored).
   */
  choose(child: number): { parent: number; chosen: number | undefined } {
    const parent = this.parentOf(child)
    const newest = this.#children.get(parent)?.at(-1)
    if (newest === child) this.#chosen.delete(parent)
    else this.#chosen.set(parent, child)
    this.#path = undefined
    return { parent, chosen: newest === child ? undefined : child }
  }

  /** Every turn under `seq`, `seq` included, parents before their children. */
  subtree(seq: number): number[] {
    const found = [seq]
    for (let i = 0; i < found.length; i++) found.push(...(this.#children.get(found[i]!) ?? []))
    return found
  }

  /** Removes `seq` and every turn under it; returns their numbers. */
  remove(seq: number): number[] {
    const removed = this.subtree(seq)
    const parent = this.parentOf(seq)
    const siblings = this.#children.get(parent)?.filter((child) => child !== seq) ?? []
    if (siblings.length === 0) this.#children.delete(parent)
    else this.#children.set(parent, siblings)
    if (this.#chosen.get(parent) === seq) this.#chosen.delete(parent)
    for (const gone of removed) {
      this.#bytes -= this.bytesOf(gone)
      this.#nodes.delete(gone)
      this.#children.delete(gone)
      this.#chosen.delete(gone)
    }
    this.#path = undefined
    return removed
  }

  /**
   * The oldest version off the active path that `keep` does not hold (nor holds a turn under):
   * the first to drop when the conversation needs room. Its parent is on the active path, since a
   * parent is always older than its children.
   */
  oldestInactive(keep: ReadonlySet<number> = NO_TURNS): number | undefined {
    if (this.#linear()) return undefined
    const onPath = new Set(this.path())
    const kept = new Set<number>()
    for (const seq of keep)
      if (this.#nodes.has(seq)) for (const at of this.subtree(seq)) kept.add(at)
    let oldest: number | undefined
    for (const seq of this.#nodes.keys()) {
      if (onPath.has(seq) || kept.has(seq)) continue
      if (oldest === undefined || seq < oldest) oldest = seq
    }
    return oldest
  }

  /** The turns and bytes off the active path that `keep` does not hold: what room can be made of. */
  inactiveTotals(keep: ReadonlySet<number> = NO_TURNS): { turns: number; bytes: number } {
    if (this.#linear()) return { turns: 0, bytes: 0 }
    let turns = 0
    let bytes = 0
    const onPath = new Set(this.path())
    const kept = new Set<number>()
    for (const seq of keep)
      if (this.#nodes.has(seq)) for (const at of this.subtree(seq)) kept.add(at)
    for (const [seq, node] of this.#nodes) {
      if (onPath.has(seq) || kept.has(seq)) continue
      turns++
      bytes += node.bytes
    }
    return { turns, bytes }
  }

  /** Every stored turn is on the active path (no turn has other versions): most conversations. */
  #linear(): boolean {
    return this.#nodes.size === this.path().length
  }

  #link(seq: number, parent: number, bytes: number): void {
    this.#nodes.set(seq, { parent, bytes })
    if (seq > this.#last) this.#last = seq
    const siblings = this.#children.get(parent)
    if (siblings === undefined) this.#children.set(parent, [seq])
    else siblings.push(seq)
    this.#bytes += bytes
  }
}
