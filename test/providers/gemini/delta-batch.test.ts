import { describe, expect, it } from 'vitest'
import type { Delta } from '../../../src/kit/guard-stream.ts'
import { createDeltaBatch } from '../../../src/providers/gemini/delta-batch.ts'

const a: Delta = { type: 'thinking', text: 'a' }
const b: Delta = { type: 'text', text: 'b' }
const c: Delta = { type: 'tool-call', call: { id: 'c', name: 'clock', input: {} } }

describe('createDeltaBatch', () => {
  it('gives no delta as undefined and one as it is, without an array', () => {
    const { emit, collect } = createDeltaBatch()
    expect(collect(() => {})).toBeUndefined()
    expect(collect(() => emit(a))).toBe(a)
  })

  it('gives several deltas as an array, in the order they were emitted', () => {
    const { emit, collect } = createDeltaBatch()
    const deltas = collect(() => {
      emit(a)
      emit(b)
      emit(c)
    })
    expect(deltas).toEqual([a, b, c])
  })

  it('starts each batch empty, even after a read that threw', () => {
    const { emit, collect } = createDeltaBatch()
    expect(() =>
      collect(() => {
        emit(a)
        throw new Error('error event')
      }),
    ).toThrow('error event')
    expect(collect(() => emit(b))).toBe(b)
  })
})
