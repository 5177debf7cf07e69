import { describe, expect, it } from 'vitest'
import {
  applyEvent,
  initialTurnState,
  partialTurn,
  toolCallsOf,
  turnOf,
  type TurnState,
} from '../../src/core/reducer.ts'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { Event, ToolCall } from '../../src/core/events.ts'

const done: AssistantTurn = {
  role: 'assistant',
  text: 'ab',
  usage: { inputTokens: 1, outputTokens: 2 },
  stopReason: 'stop',
  items: { provider: 'p', model: 'm', thinkingMode: 'default', data: [{ x: 1 }] },
}
const call = { id: 'c1', name: 'f', input: { a: 1 } }

describe('applyEvent', () => {
  type Expected = Partial<Omit<TurnState, 'calls'>> & { toolCalls?: ToolCall[] }
  const table: { name: string; events: Event[]; expected: Expected }[] = [
    {
      name: 'appends text deltas in order',
      events: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      expected: { text: 'ab', thinking: '' },
    },
    {
      name: 'keeps thinking apart from text',
      events: [
        { type: 'thinking', text: 'hm' },
        { type: 'text', text: 'x' },
        { type: 'thinking', text: 'm' },
      ],
      expected: { text: 'x', thinking: 'hmm' },
    },
    {
      name: 'collects tool calls in order',
      events: [
        { type: 'tool-call', call },
        { type: 'tool-call', call: { ...call, id: 'c2' } },
      ],
      expected: { toolCalls: [call, { ...call, id: 'c2' }] },
    },
    {
      name: 'takes the turn of done',
      events: [
        { type: 'text', text: 'ab' },
        { type: 'done', turn: done },
      ],
      expected: { text: 'ab', turn: done },
    },
  ]
  for (const row of table) {
    it(row.name, () => {
      const state = row.events.reduce(applyEvent, initialTurnState)
      const { toolCalls, ...rest } = row.expected
      expect(state).toMatchObject(rest)
      if (toolCalls !== undefined) expect(toolCallsOf(state)).toEqual(toolCalls)
    })
  }

  it('never mutates the state it is given', () => {
    const first = applyEvent(initialTurnState, { type: 'tool-call', call })
    const frozen = deepFreeze(first)
    const next = applyEvent(frozen, { type: 'tool-call', call: { ...call, id: 'c2' } })
    expect(toolCallsOf(frozen)).toEqual([call])
    expect(toolCallsOf(next)).toEqual([call, { ...call, id: 'c2' }])
    expect(initialTurnState).toEqual({ text: '', thinking: '', calls: null, turn: null })
  })

  it('links each tool call in front of the calls before it, copying none of them', () => {
    // Constant work per call: the new state holds one new link, whose tail is the very list of
    // the state it was given, however many calls that list holds.
    let state = initialTurnState
    const links: unknown[] = []
    for (let i = 0; i < 1000; i++) {
      const next = applyEvent(state, { type: 'tool-call', call: { ...call, id: `c${i}` } })
      const link = next.calls!
      links.push([Object.keys(link), link.call.id, link.before === state.calls])
      state = next
    }
    expect(links).toEqual(
      Array.from({ length: 1000 }, (_, i) => [['call', 'before'], `c${i}`, true]),
    )
    expect(toolCallsOf(state).map((c) => c.id)).toEqual(
      Array.from({ length: 1000 }, (_, i) => `c${i}`),
    )
  })

  it('leaves every later state as it was when an earlier one is folded again', () => {
    const one = applyEvent(initialTurnState, { type: 'tool-call', call })
    const two = applyEvent(one, { type: 'tool-call', call: { ...call, id: 'c2' } })
    const other = applyEvent(one, { type: 'tool-call', call: { ...call, id: 'other' } })
    const text = applyEvent(two, { type: 'text', text: 'after' })
    expect(toolCallsOf(one).map((c) => c.id)).toEqual(['c1'])
    expect(toolCallsOf(two).map((c) => c.id)).toEqual(['c1', 'c2'])
    expect(toolCallsOf(other).map((c) => c.id)).toEqual(['c1', 'other'])
    expect(toolCallsOf(text).map((c) => c.id)).toEqual(['c1', 'c2'])
    expect(text.calls).toBe(two.calls)
  })

  it('hands out a new array of calls each time, which a caller may change freely', () => {
    const state = applyEvent(initialTurnState, { type: 'tool-call', call })
    const calls = toolCallsOf(state)
    calls.push({ ...call, id: 'mine' })
    expect(toolCallsOf(state)).toEqual([call])
    const rest = { usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'tool-calls' } as const
    expect(turnOf(state, rest).toolCalls).toEqual([call])
    expect(turnOf(initialTurnState, rest)).not.toHaveProperty('toolCalls')
  })

  it('throws on an event after done', () => {
    const state = applyEvent(initialTurnState, { type: 'done', turn: done })
    expect(() => applyEvent(state, { type: 'text', text: 'late' })).toThrow(/after 'done'/)
  })
})

/** `value`, frozen with everything it refers to. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

describe('partialTurn', () => {
  it('makes a plain turn with no items from what arrived', () => {
    const state = [
      { type: 'thinking', text: 'hm' },
      { type: 'text', text: 'half' },
    ].reduce((s, e) => applyEvent(s, e as Event), initialTurnState)
    const turn = partialTurn(state)
    expect(turn).toEqual({
      role: 'assistant',
      text: 'half',
      thinking: 'hm',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'aborted',
    })
    expect('items' in turn).toBe(false)
  })

  it('returns the done turn when the stream finished', () => {
    expect(partialTurn(applyEvent(initialTurnState, { type: 'done', turn: done }))).toBe(done)
  })
})
