import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { createSseParser, type EventSourceMessage } from '../../src/kit/sse-parser.ts'
import { chunksOf, ownParse, referenceParse, sameAsReference } from './sse-parser.ts'

describe('createSseParser', () => {
  it(
    'sees what eventsource-parser sees, for random streams cut at random points',
    () => {
      fc.assert(sameAsReference, { numRuns: 2000, seed: 20_261_202, plugins: timeBound() })
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('ends a line at a CRLF that a chunk boundary splits, and at a lone CR', () => {
    const stream = 'event: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n'
    const expected: EventSourceMessage[] = [
      { event: 'a', id: undefined, data: '1' },
      { event: undefined, id: undefined, data: '2' },
      { event: undefined, id: undefined, data: '3' },
    ]
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(ownParse(chunksOf(stream, [cut]))).toEqual(expected)
    }
    expect(referenceParse([stream])).toEqual(expected)
  })

  it('joins data lines, keeps the id and event of their event only, and ignores an id with NUL', () => {
    const seen = ownParse(['id: 7\nevent: x\ndata: a\ndata:\ndata:  b\n\ndata: c\nid: 8\0\n\n'])
    expect(seen).toEqual([
      { event: 'x', id: '7', data: 'a\n\n b' },
      { event: undefined, id: undefined, data: 'c' },
    ])
  })

  it('stops at an event longer than its bound, counting the unfinished line and the data held', () => {
    const overflow = (chunks: string[]) => {
      const events: string[] = []
      let overflows = 0
      const parser = createSseParser({
        onEvent: (message) => events.push(message.data),
        maxBufferSize: 10,
        onOverflow: () => overflows++,
      })
      for (const chunk of chunks) parser.feed(chunk)
      return { events, overflows }
    }
    // 10 characters held at most: a finished event of any length is not held.
    expect(overflow(['data: 0123456789abcdef\n\n', 'data: 0123', '456789\n\n'])).toEqual({
      events: ['0123456789abcdef', '0123456789'],
      overflows: 0,
    })
    // An unfinished line past the bound, fed in pieces; nothing after it is read.
    expect(overflow(['data: 01234', '56789', '\n\ndata: 1\n\n'])).toEqual({
      events: [],
      overflows: 1,
    })
    // Data lines of one event past the bound.
    expect(overflow(['data: 012345\ndata: 6789', '\n', 'data: x\n\n'])).toEqual({
      events: [],
      overflows: 1,
    })
  })
})
