import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { createSseEncoder } from '../../src/relay/sse.ts'
import { parseSse } from './sse-reader.ts'

describe('createSseEncoder', () => {
  it('writes one event with an id, a name and one data line', () => {
    const sse = createSseEncoder()
    expect(sse.event('text', '{"text":"Hi"}')).toBe('id: 1\nevent: text\ndata: {"text":"Hi"}\n\n')
    expect(sse.event('done', '{}')).toBe('id: 2\nevent: done\ndata: {}\n\n')
  })

  it('starts a data line at every line ending: LF, CRLF and CR', () => {
    const sse = createSseEncoder()
    expect(sse.event('x', 'a\nb\r\nc\rd')).toBe(
      'id: 1\nevent: x\ndata: a\ndata: b\ndata: c\ndata: d\n\n',
    )
    expect(sse.event('x', 'end\n')).toBe('id: 2\nevent: x\ndata: end\ndata: \n\n')
  })

  it('refuses an event name holding CR or LF, so data cannot forge fields', () => {
    const sse = createSseEncoder()
    expect(() => sse.event('text\ndata: forged', '{}')).toThrow(/must not contain CR or LF/)
    expect(() => sse.event('text\r', '{}')).toThrow(TypeError)
    // A refused event uses no id.
    expect(sse.event('text', '{}')).toMatch(/^id: 1\n/)
  })

  it('refuses a bad event name between good ones, however often the good one came before', () => {
    const sse = createSseEncoder()
    expect(sse.event('text', '{}')).toMatch(/^id: 1\n/)
    expect(sse.event('text', '{}')).toMatch(/^id: 2\n/)
    expect(() => sse.event('text\nevent: done', '{}')).toThrow(/must not contain CR or LF/)
    expect(sse.event('text', '{}')).toMatch(/^id: 3\n/)
    expect(() => sse.event('text\r', '{}')).toThrow(TypeError)
    expect(() => sse.event('text\r', '{}')).toThrow(TypeError)
  })

  it('writes comments line by line', () => {
    expect(createSseEncoder().comment('ping')).toBe(': ping\n\n')
    expect(createSseEncoder().comment('a\nb')).toBe(': a\n: b\n\n')
  })

  it(
    'round-trips any JSON payload through a real SSE parser',
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom('text', 'thinking', 'done'), fc.jsonValue())),
          (events) => {
            const sse = createSseEncoder()
            const raw = events
              .map(([name, value]) => sse.event(name, JSON.stringify(value)))
              .join('')
            const parsed = parseSse(raw).events
            expect(parsed.map((e) => [e.event, JSON.parse(e.data)])).toEqual(
              events.map(([name, value]) => [name, JSON.parse(JSON.stringify(value))]),
            )
            expect(parsed.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)))
          },
        ),
        { seed: 7, numRuns: 300, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it(
    'keeps any text intact across line endings, as a parser joins data lines with LF',
    () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', 'é', ':', '\u2028') }),
          (text) => {
            const [event] = parseSse(createSseEncoder().event('t', text)).events
            expect(event?.data).toBe(text.replace(/\r\n|\r/g, '\n'))
          },
        ),
        { seed: 11, numRuns: 300, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
