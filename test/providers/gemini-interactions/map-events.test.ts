import { describe, expect, it } from 'vitest'
import { createEventMapper } from '../../../src/providers/gemini/interactions/map-events.ts'

const mapper = () => createEventMapper('gemini-interactions', (n) => `gemini_0_${n}`)
const start = (index: number, step: unknown) => ({ event_type: 'step.start', index, step })
const delta = (index: number, value: unknown) => ({ event_type: 'step.delta', index, delta: value })
const stop = (index: number) => ({ event_type: 'step.stop', index })

describe('the Interactions event mapper', () => {
  it('keeps a signature on the thought step it came with, whatever comes after it', () => {
    const map = mapper()
    map.map(start(0, { type: 'thought' }))
    map.map(delta(0, { type: 'thought_signature', signature: 'U0lHLTE=' }))
    map.map(stop(0))
    map.map(start(1, { type: 'function_call', id: 'a', name: 'f', arguments: {}, signature: '' }))
    map.map(delta(1, { type: 'arguments_delta', arguments: '{}' }))
    map.map(stop(1))
    map.map(start(2, { type: 'thought', signature: 'U0lHLTI=' }))
    map.map(stop(2))
    expect(map.summary().steps).toEqual([
      { type: 'thought', signature: 'U0lHLTE=' },
      { type: 'function_call', id: 'a', name: 'f', arguments: {} },
      { type: 'thought', signature: 'U0lHLTI=' },
    ])
  })

  it('orders steps by their index, not by when they started', () => {
    const map = mapper()
    map.map(start(1, { type: 'model_output' }))
    map.map(start(0, { type: 'thought', signature: 'U0lH' }))
    map.map(delta(1, { type: 'text', text: 'Hallo' }))
    expect(map.summary().steps.map((step) => step['type'])).toEqual(['thought', 'model_output'])
  })

  it('names a call that came without an id, and writes the id onto its step', () => {
    const map = mapper()
    map.map(start(0, { type: 'function_call', name: 'f', arguments: { a: 1 } }))
    expect(map.map(stop(0))).toEqual({
      type: 'tool-call',
      call: { id: 'gemini_0_0', name: 'f', input: { a: 1 } },
    })
    expect(map.summary().steps[0]).toMatchObject({ id: 'gemini_0_0' })
  })

  it('takes the SSE event name when the data has no event_type', () => {
    const map = mapper()
    map.map({ index: 0, step: { type: 'model_output' } }, 'step.start')
    expect(map.map({ index: 0, delta: { type: 'text', text: 'Ja' } }, 'step.delta')).toEqual({
      type: 'text',
      text: 'Ja',
    })
  })

  it('keeps image output as a content item between runs of text', () => {
    const map = mapper()
    map.map(start(0, { type: 'model_output' }))
    map.map(delta(0, { type: 'text', text: 'Hier: ' }))
    map.map(delta(0, { type: 'image', data: 'iVBO', mime_type: 'image/png' }))
    map.map(delta(0, { type: 'text', text: 'fertig.' }))
    map.map(stop(0))
    expect(map.summary().steps[0]).toEqual({
      type: 'model_output',
      content: [
        { type: 'text', text: 'Hier: ' },
        { type: 'image', data: 'iVBO', mime_type: 'image/png' },
        { type: 'text', text: 'fertig.' },
      ],
    })
  })

  it('throws the error of an error event', () => {
    const event = { event_type: 'error', error: { code: 'rate_limit_exceeded', message: 'Slow.' } }
    expect(() => mapper().map(event)).toThrow(
      expect.objectContaining({ kind: 'rate-limit', status: 429 }),
    )
  })
})
