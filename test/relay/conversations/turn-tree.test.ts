import { describe, expect, it } from 'vitest'
import { ROOT, TurnTree } from '../../../src/relay/conversations/turn-tree.ts'

// The shape of a conversation's turns (DESIGN §14): versions as siblings, an active path along
// each parent's chosen (else newest) child, and the oldest versions off it dropped first.

/** user 0 → answer 1; a regenerate adds answer 2; a message under it: user 3 → answer 4. */
function tree() {
  return new TurnTree([
    { seq: 0, parent: ROOT, bytes: 10 },
    { seq: 1, parent: 0, bytes: 20 },
    { seq: 2, parent: 0, bytes: 30 },
    { seq: 3, parent: 2, bytes: 40 },
    { seq: 4, parent: 3, bytes: 50 },
  ])
}

describe('a tree of turns', () => {
  it('follows the newest child unless another is chosen, and says where each turn is', () => {
    const turns = tree()
    expect(turns.path()).toEqual([0, 2, 3, 4])
    expect(turns.branchOf(2)).toEqual({ index: 1, count: 2 })
    expect(turns.branchOf(0)).toBeUndefined()
    expect(turns.totals).toEqual({ turns: 5, bytes: 150 })
    expect(turns.nextSeq).toBe(5)
    expect(turns.choose(1)).toEqual({ parent: 0, chosen: 1 })
    expect(turns.path()).toEqual([0, 1])
    // Active: on the path. Not: another version, a turn under one, a turn never stored.
    expect([0, 1, 2, 3, 4, 9].map((seq) => turns.isActive(seq))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ])
    // Back to the newest: nothing need be stored, and the path under it is as it was.
    expect(turns.choose(2)).toEqual({ parent: 0, chosen: undefined })
    expect(turns.path()).toEqual([0, 2, 3, 4])
    expect([1, 4].map((seq) => turns.isActive(seq))).toEqual([false, true])
    expect(turns.pathTo(3)).toEqual([0, 2, 3])
    expect(turns.bytesTo(3)).toBe(80)
    expect(turns.bytesTo(ROOT)).toBe(0)
  })

  it('reads the children chosen as stored, ignoring one that is not a child', () => {
    const turns = new TurnTree(
      [
        { seq: 0, parent: ROOT, bytes: 1 },
        { seq: 1, parent: 0, bytes: 1 },
        { seq: 2, parent: 0, bytes: 1 },
      ],
      [
        [0, 1],
        [1, 2],
      ],
    )
    expect(turns.path()).toEqual([0, 1])
    expect(turns.isChosen(0)).toBe(true)
    expect(turns.isChosen(1)).toBe(false)
  })

  it('drops the oldest version off the active path first, never the path or what it keeps', () => {
    const turns = tree()
    expect(turns.oldestInactive()).toBe(1)
    expect(turns.inactiveTotals()).toEqual({ turns: 1, bytes: 20 })
    expect(turns.remove(1)).toEqual([1])
    expect(turns.oldestInactive()).toBeUndefined()
    // An edit's version off the path, kept while it runs, and then the oldest.
    turns.add(5, ROOT, 5)
    turns.choose(0)
    expect(turns.path()).toEqual([0, 2, 3, 4])
    expect(turns.oldestInactive(new Set([5]))).toBeUndefined()
    expect(turns.inactiveTotals(new Set([5]))).toEqual({ turns: 0, bytes: 0 })
    expect(turns.oldestInactive()).toBe(5)
    // Removing a subtree removes what is under it, and what was chosen in it.
    turns.choose(5)
    expect(turns.path()).toEqual([5])
    expect(turns.remove(0).toSorted()).toEqual([0, 2, 3, 4])
    expect(turns.totals).toEqual({ turns: 1, bytes: 5 })
    expect(turns.path()).toEqual([5])
    // Numbers are not given again while the tree lives.
    expect(turns.nextSeq).toBe(6)
  })
})
