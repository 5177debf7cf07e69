import { describe, expect, it } from 'vitest'
import { decodeFrame } from '../../../src/relay/conversations/event-log.ts'
import { foldFrames } from '../../../src/relay/conversations/fold-frames.ts'
import { partialTurn } from '../../../src/core/reducer.ts'
import { createSseEncoder } from '../../../src/relay/sse.ts'

/** Event `id` as the event log writes it. */
const sseFrame = (id: number, name: string, data: unknown) =>
  createSseEncoder(id - 1).event(name, JSON.stringify(data))

describe('folding an answer from its logged frames', () => {
  it('decodes what the log encodes, line breaks and all', () => {
    const data = { text: 'two\nlines\r\nand \u2028 a separator', n: 1 }
    expect(decodeFrame(sseFrame(7, 'text', data))).toEqual({ name: 'text', data })
    expect(decodeFrame(': ping\n\n')).toBeNull()
    expect(decodeFrame('event: text\ndata: {not json\n\n')).toBeNull()
  })

  it('rebuilds the text and thinking that were streamed, in order, and nothing else', () => {
    const frames = [
      sseFrame(1, 'turn', { turn: { role: 'user', content: 'Hi' } }),
      sseFrame(2, 'thinking', { text: 'Let me ' }),
      sseFrame(3, 'thinking', { text: 'think.' }),
      sseFrame(4, 'text', { text: 'Hé🙂\n' }),
      sseFrame(5, 'tool-call', { call: { id: 'c', name: 'lookup', input: {} } }),
      sseFrame(6, 'text', { text: 'there' }),
    ]
    expect(partialTurn(foldFrames(frames))).toEqual({
      role: 'assistant',
      text: 'Hé🙂\nthere',
      thinking: 'Let me think.',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'aborted',
    })
  })

  it('folds a long answer from any iterable of frames', () => {
    function* many() {
      for (let i = 0; i < 10_000; i++) yield sseFrame(i + 1, 'text', { text: `${i % 10}` })
    }
    expect(foldFrames(many()).text).toBe('0123456789'.repeat(1000))
  })
})
