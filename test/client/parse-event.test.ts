import { describe, expect, it } from 'vitest'
import { parseEvent } from '../../src/client/parse-event.ts'
import { isThinkwireError } from '../../src/core/errors.ts'

const message = (event: string, data: unknown) => ({
  event,
  data: JSON.stringify(data),
  id: undefined,
})
/** What parsing `event` threw (it must throw). */
function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected parseEvent to throw')
}

const turn = {
  role: 'assistant',
  text: 'hi',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
}

describe('parseEvent', () => {
  it('passes a complete done turn through as the very object parsed', () => {
    expect(parseEvent(message('done', { turn }), 'mock')).toEqual({ type: 'done', turn })
  })

  it.each([
    ['without usage', { ...turn, usage: undefined }],
    ['without a stop reason', { ...turn, stopReason: undefined }],
    ['whose text is not a string', { ...turn, text: ['hi'] }],
  ])('refuses a done turn %s as a malformed event', (_, bad) => {
    const result = thrown(() => parseEvent(message('done', { turn: bad }), 'mock'))
    expect(isThinkwireError(result) && result.kind).toBe('server')
    expect(isThinkwireError(result) && result.message).toBe("relay: malformed 'done' event")
  })

  it('refuses a tool call without input, and keeps one whose input is null', () => {
    const missing = thrown(() =>
      parseEvent(message('tool-call', { call: { id: 'c', name: 'f' } }), 'mock'),
    )
    expect(isThinkwireError(missing)).toBe(true)
    const nullInput = parseEvent(
      message('tool-call', { call: { id: 'c', name: 'f', input: null } }),
      'mock',
    )
    expect(nullInput).toEqual({ type: 'tool-call', call: { id: 'c', name: 'f', input: null } })
  })

  it('throws the error event as a ThinkwireError with its kind and message', () => {
    const error = thrown(() =>
      parseEvent(message('error', { kind: 'overloaded', message: 'busy', retryable: true }), 'p'),
    )
    expect(error).toMatchObject({ kind: 'overloaded', message: 'busy', retryable: true })
  })

  it('refuses a done turn whose usage or warnings have the wrong type', () => {
    for (const bad of [
      { ...turn, usage: { inputTokens: '1', outputTokens: 1 } },
      { ...turn, usage: { inputTokens: 1, outputTokens: 1, reasoningTokens: -1 } },
      { ...turn, warnings: [1] },
      { ...turn, toolCalls: [{ id: 'c', name: 'f' }] },
      { ...turn, items: 'sealed' },
      { ...turn, sources: [{ url: 1 }] },
      { ...turn, stopDetails: 'refused' },
    ]) {
      expect(thrown(() => parseEvent(message('done', { turn: bad }), 'p'))).toMatchObject({
        kind: 'server',
        message: "relay: malformed 'done' event",
      })
    }
  })

  it('passes sources and stop details on with the turn', () => {
    const full = {
      ...turn,
      stopReason: 'refusal',
      stopDetails: { category: 'cyber', explanation: 'Declined.' },
      sources: [{ url: 'https://example.com', title: 'Example', quote: 'a line' }, {}],
    }
    expect(parseEvent(message('done', { turn: full }), 'p')).toEqual({ type: 'done', turn: full })
  })

  it('ignores an event name it does not know, and an event with no name', () => {
    expect(parseEvent(message('progress', {}), 'mock')).toBeUndefined()
    expect(parseEvent({ data: JSON.stringify({ text: 'hi' }) }, 'mock')).toBeUndefined()
  })
})
