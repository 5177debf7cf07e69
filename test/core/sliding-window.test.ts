import { describe, expect, it } from 'vitest'
import {
  admit,
  settle,
  type RateLimitDecision,
  type RateLimits,
  type WindowState,
} from '../../src/core/sliding-window.ts'

describe('sliding window', () => {
  it('admits requests up to the limit and says when the oldest leaves the window', () => {
    const state: WindowState = []
    const limits = { requestsPerMinute: 2 }
    expect(admit(state, 1_000, 0, limits)).toEqual({ ok: true })
    expect(admit(state, 5_000, 0, limits)).toEqual({ ok: true })
    expect(admit(state, 10_000, 0, limits)).toEqual({ ok: false, retryAfterMs: 51_000 })
    expect(admit(state, 61_000, 0, limits)).toEqual({ ok: true })
  })

  it('counts tokens and waits until enough of them have left the window', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    expect(admit(state, 0, 60, limits).ok).toBe(true)
    expect(admit(state, 10_000, 30, limits).ok).toBe(true)
    expect(admit(state, 20_000, 20, limits)).toEqual({ ok: false, retryAfterMs: 40_000 })
    expect(admit(state, 20_000, 10, limits).ok).toBe(true)
  })

  it('admits a call larger than the whole budget into an empty window only', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    expect(admit(state, 0, 500, limits).ok).toBe(true)
    expect(admit(state, 1_000, 500, limits)).toEqual({ ok: false, retryAfterMs: 59_000 })
  })

  it('settles with real usage: more is added, less is refunded from the latest entries', () => {
    const state: WindowState = []
    const limits = { tokensPerMinute: 100 }
    admit(state, 0, 50, limits)
    settle(state, 1_000, 90, 50)
    expect(admit(state, 2_000, 20, limits).ok).toBe(false)
    const other: WindowState = []
    admit(other, 0, 90, limits)
    settle(other, 1_000, 10, 90)
    expect(admit(other, 2_000, 80, limits).ok).toBe(true)
  })
})

/** One step of a table row: admit `tokens` at `at` and expect a decision, or settle a call. */
type Step =
  | { admit: number; at: number; expect: RateLimitDecision }
  | { settle: number; estimated: number; at: number }

const ok: RateLimitDecision = { ok: true }
const wait = (retryAfterMs: number): RateLimitDecision => ({ ok: false, retryAfterMs })

const table: { name: string; limits: RateLimits; steps: Step[]; state?: WindowState }[] = [
  {
    name: 'admits every call when no limit is set',
    limits: {},
    steps: [
      { admit: 1e6, at: 0, expect: ok },
      { admit: 1e6, at: 0, expect: ok },
    ],
    state: [
      [0, 1e6, 1],
      [0, 1e6, 1],
    ],
  },
  {
    name: 'lets an entry leave exactly windowMs after it was counted',
    limits: { requestsPerMinute: 1 },
    steps: [
      { admit: 0, at: 0, expect: ok },
      { admit: 0, at: 59_999, expect: wait(1) },
      { admit: 0, at: 60_000, expect: ok },
    ],
    state: [[60_000, 0, 1]],
  },
  {
    name: 'takes a window of another length',
    limits: { requestsPerMinute: 1, windowMs: 1_000 },
    steps: [
      { admit: 0, at: 0, expect: ok },
      { admit: 0, at: 400, expect: wait(600) },
      { admit: 0, at: 1_000, expect: ok },
    ],
  },
  {
    name: 'rounds a fractional wait up to a whole millisecond',
    limits: { requestsPerMinute: 1 },
    steps: [
      { admit: 0, at: 0, expect: ok },
      { admit: 0, at: 0.5, expect: wait(60_000) },
    ],
  },
  {
    name: 'admits a call that uses the token budget exactly, and nothing after it',
    limits: { tokensPerMinute: 100 },
    steps: [
      { admit: 100, at: 0, expect: ok },
      { admit: 0, at: 0, expect: ok },
      { admit: 1, at: 0, expect: wait(60_000) },
    ],
  },
  {
    name: 'waits for the later of the request limit and the token limit',
    limits: { requestsPerMinute: 2, tokensPerMinute: 100 },
    steps: [
      { admit: 0, at: 0, expect: ok },
      { admit: 100, at: 10_000, expect: ok },
      // A request slot frees at 60 s, the tokens only at 70 s.
      { admit: 5, at: 20_000, expect: wait(50_000) },
    ],
  },
  {
    name: 'counts the tokens of a correction but not as a request',
    limits: { requestsPerMinute: 1, tokensPerMinute: 100 },
    steps: [
      { admit: 10, at: 0, expect: ok },
      { settle: 60, estimated: 10, at: 1_000 },
      { admit: 60, at: 60_000, expect: wait(1_000) },
      { admit: 50, at: 60_000, expect: ok },
    ],
    state: [
      [1_000, 50, 0],
      [60_000, 50, 1],
    ],
  },
  {
    name: 'takes a refund back from the latest entries first, down to zero',
    limits: { tokensPerMinute: 100 },
    steps: [
      { admit: 30, at: 0, expect: ok },
      { admit: 40, at: 1_000, expect: ok },
      { settle: 0, estimated: 50, at: 2_000 },
    ],
    state: [
      [0, 20, 1],
      [1_000, 0, 1],
    ],
  },
  {
    name: 'changes nothing when a call used exactly its estimate',
    limits: { tokensPerMinute: 100 },
    steps: [
      { admit: 10, at: 0, expect: ok },
      { settle: 10, estimated: 10, at: 5 },
    ],
    state: [[0, 10, 1]],
  },
]

describe('admit and settle', () => {
  it.each(table)('$name', ({ limits, steps, state: expected }) => {
    const state: WindowState = []
    for (const step of steps) {
      if ('admit' in step) expect(admit(state, step.at, step.admit, limits)).toEqual(step.expect)
      else settle(state, step.at, step.settle, step.estimated)
    }
    if (expected !== undefined) expect(state).toEqual(expected)
  })
})
