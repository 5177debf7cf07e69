import { describe, expect, it } from 'vitest'
import {
  applyEvent,
  initialTurnState,
  partialTurn,
  type TurnState,
} from '../../src/core/reducer.ts'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'

const done: AssistantTurn = {
  role: 'assistant',
  text: 'ab',
  usage: { inputTokens: 1, outputTokens: 2 },
  stopReason: 'stop',
  items: { provider: 'p', model: 'm', thinkingMode: 'default', data: [{ x: 1 }] },
}
const call = { id: 'c1', name: 'f', input: { a: 1 } }

describe('applyEvent', () => {
  const table: { name: string; events: Event[]; expected: Partial<TurnState> }[] = [
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
      expect(state).toMatchObject(row.expected)
    })
  }

  it('never mutates the state it is given', () => {
    const frozen = Object.freeze({ ...initialTurnState, toolCalls: Object.freeze([]) })
    const next = applyEvent(frozen, { type: 'tool-call', call })
    expect(frozen.toolCalls).toEqual([])
    expect(next.toolCalls).toEqual([call])
    expect(initialTurnState).toEqual({ text: '', thinking: '', toolCalls: [], turn: null })
  })

  it('throws on an event after done', () => {
    const state = applyEvent(initialTurnState, { type: 'done', turn: done })
    expect(() => applyEvent(state, { type: 'text', text: 'late' })).toThrow(/after 'done'/)
  })
})

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
