import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import {
  createEventLog,
  framesBetween,
  MAX_BATCH_CHARS,
  MAX_BATCH_EVENTS,
  parseLastEventId,
  splitFrames,
  storedFrames,
  type EventBatch,
} from '../../../src/relay/conversations/event-log.ts'
import { createSseEncoder, sseFrame } from '../../../src/relay/sse.ts'
import { parseSse } from '../sse-reader.ts'

/**
 * A log as the object wires it: a live subscriber takes what it was not sent before a batch is
 * written (with `listening: false`, no one listens, and what is held is skipped instead).
 */
function logWith(
  lastId = 0,
  {
    listening = true,
    ...options
  }: { maxEvents?: number; maxChars?: number; listening?: boolean } = {},
) {
  const stored: EventBatch[] = []
  let untaken = ''
  const log = createEventLog({
    lastId,
    write: (batch) => stored.push(batch),
    beforeWrite: () => (listening ? (untaken += log.take()) : log.skip()),
    ...options,
  })
  /** Appends one event and returns its frame, as a live subscriber is sent it. */
  const appendFrame = (name: string, data: string) => {
    log.append(name, data)
    const frames = untaken + log.take()
    untaken = ''
    return frames
  }
  /** The stored batches, read back as a replay reads them. */
  const batches = () => stored.map(readBack)
  return { log, stored, batches, appendFrame }
}

const readBack = (batch: EventBatch): EventBatch => ({
  firstId: batch.firstId,
  lastId: batch.lastId,
  text: storedFrames(batch.text, batch.firstId),
})

/** Everything a client would get after `lastId`: the stored batches, then what memory holds. */
function replay(batches: EventBatch[], log: ReturnType<typeof logWith>['log'], lastId: number) {
  const held = log.held()
  return [...batches, ...(held === null ? [] : [held])]
    .map((batch) => framesBetween(batch, lastId))
    .join('')
}

describe('the event log of a conversation', () => {
  it('numbers events on from the last id, one frame per event, as the SSE encoder writes them', () => {
    const { log } = logWith(41)
    log.append('text', JSON.stringify({ text: 'Hi' }))
    log.append('done', JSON.stringify({ turn: { text: 'Hi' } }))
    expect(log.lastId).toBe(43)
    const frames = log.take()
    const sse = createSseEncoder(41)
    const first = sse.event('text', '{"text":"Hi"}')
    expect(first).toBe('id: 42\nevent: text\ndata: {"text":"Hi"}\n\n')
    expect(frames).toBe(first + sse.event('done', JSON.stringify({ turn: { text: 'Hi' } })))
    expect(parseSse(frames).events.map((e) => e.id)).toEqual(['42', '43'])
    expect(log.held()).toEqual({ firstId: 42, lastId: 43, text: frames })
  })

  it('hands out the frames since the last take, first when a batch is due, then writes the batch', () => {
    const stored: EventBatch[] = []
    const taken: string[] = []
    const log = createEventLog({
      lastId: 0,
      maxEvents: 3,
      // As the live subscribers take it: what they were not sent, before the batch is written.
      beforeWrite: () => {
        expect(log.held()?.lastId).toBe(3)
        taken.push(log.take())
      },
      write: (batch) => stored.push(batch),
    })
    log.append('text', JSON.stringify({ text: 'a' }))
    const a = log.take()
    expect(log.take()).toBe('')
    log.append('text', JSON.stringify({ text: 'b' }))
    const b = log.held()!.text.slice(a.length)
    expect(log.held()).toEqual({ firstId: 1, lastId: 2, text: a + b })
    const held = log.heldChars
    log.append('text', JSON.stringify({ text: 'c' }))
    expect(taken).toHaveLength(1)
    expect(taken[0]!.startsWith(b)).toBe(true)
    const c = taken[0]!.slice(b.length)
    expect(stored).toHaveLength(1)
    // Read back as the very frames its subscribers were sent.
    expect(readBack(stored[0]!)).toEqual({ firstId: 1, lastId: 3, text: a + b + c })
    // Held meanwhile, counted as the two events' frames.
    expect(held).toBe(a.length + b.length)
    expect(log.held()).toBeNull()
    expect(log.heldChars).toBe(0)
    // The most it held once an event was appended: what it held before the third filled the batch.
    expect(log.peakHeldChars).toBe(held)
    expect(log.take()).toBe('')
  })

  it('writes a batch as the very frames its subscribers were sent, or would have been', () => {
    for (const listening of [true, false]) {
      const { log, stored, appendFrame } = logWith(0, { listening })
      let frames = ''
      for (const [name, text] of [
        ['thinking', 'a'],
        ['thinking', 'b'],
        ['text', 'c'],
        ['thinking', 'd'],
      ] as const) {
        frames += listening
          ? appendFrame(name, JSON.stringify({ text }))
          : (log.append(name, JSON.stringify({ text })), '')
      }
      log.append('done', '{"turn":{}}')
      log.flush()
      const sse = createSseEncoder()
      const all = ['thinking', 'thinking', 'text', 'thinking']
        .map((name, i) => sse.event(name, JSON.stringify({ text: 'abcd'[i] })))
        .join('')
      if (listening) expect(frames).toBe(all)
      expect(stored[0]!.text).toBe(all + sse.event('done', '{"turn":{}}'))
      expect(storedFrames(stored[0]!.text, 1)).toBe(stored[0]!.text)
    }
  })

  it("writes a batch with a line break in an event's data as its frames, a data line each", () => {
    const { log, stored, appendFrame } = logWith()
    const frames = appendFrame('text', '{"text":"a"}') + appendFrame('text', 'b\nc')
    log.flush()
    expect(stored[0]!.text).toBe(frames)
    expect(frames.endsWith('id: 2\nevent: text\ndata: b\ndata: c\n\n')).toBe(true)
  })

  it('makes the frames of the events skipped or taken for a replay, as they were sent', () => {
    const { log, stored, batches } = logWith(0, { listening: false })
    const sse = createSseEncoder()
    const frame = (text: string) => sse.event('text', JSON.stringify({ text }))
    const [a, b, c, d] = [frame('a'), frame('b'), frame('c'), frame('d')]
    log.append('text', '{"text":"a"}')
    log.skip()
    log.append('text', '{"text":"b"}')
    // Only what followed the skip goes out.
    expect(log.take()).toBe(b)
    expect(log.held()).toEqual({ firstId: 1, lastId: 2, text: a + b })
    expect(log.heldChars).toBe((a + b).length)
    log.append('text', '{"text":"c"}')
    log.skip()
    log.append('text', '{"text":"d"}')
    expect(log.held(1)).toEqual({ firstId: 2, lastId: 4, text: b + c + d })
    expect(log.held(1, 2)).toEqual({ firstId: 2, lastId: 2, text: b })
    expect(log.held(2, 3)).toEqual({ firstId: 3, lastId: 3, text: c })
    log.flush()
    expect(stored).toEqual([{ firstId: 1, lastId: 4, text: a + b + c + d }])
    expect(batches()).toEqual(stored)
  })

  it('hands out none of the events skipped, and still writes them', () => {
    const { log, batches, appendFrame } = logWith()
    log.append('text', JSON.stringify({ text: 'unheard' }))
    log.skip()
    const next = appendFrame('text', JSON.stringify({ text: 'heard' }))
    expect(parseSse(next).events.map((e) => [e.id, e.data])).toEqual([['2', '{"text":"heard"}']])
    log.flush()
    expect(parseSse(batches()[0]!.text).events.map((e) => e.id)).toEqual(['1', '2'])
  })

  it('writes a 1,000-token answer as one batch of whole events, at its end', () => {
    const { log, batches } = logWith()
    for (let i = 0; i < 1000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(batches()).toHaveLength(0)
    log.flush()
    expect(batches().map((batch) => [batch.firstId, batch.lastId])).toEqual([[1, 1000]])
    expect([...splitFrames(batches()[0]!.text)]).toHaveLength(1000)
    expect(log.held()).toBeNull()
  })

  it('forgets the held events before an id, unwritten, and goes on from what it keeps', () => {
    const { log, stored, batches, appendFrame } = logWith(10)
    const data = (text: string) => JSON.stringify({ text })
    for (const text of ['a', 'b', 'c']) appendFrame('text', data(text))
    log.dropBefore(13)
    expect(stored).toHaveLength(0)
    expect(log.held()).toEqual({ firstId: 13, lastId: 13, text: sseFrame(13, 'text', data('c')) })
    expect(log.heldChars).toBe(sseFrame(13, 'text', data('c')).length)
    // An id at or before the first held changes nothing; one past the last forgets them all.
    log.dropBefore(13)
    expect(log.heldEvents).toBe(1)
    const next = appendFrame('text', data('d'))
    expect(parseSse(next).events.map((e) => e.id)).toEqual(['14'])
    log.flush()
    expect(batches().map((batch) => [batch.firstId, batch.lastId])).toEqual([[13, 14]])
    log.append('text', data('e'))
    log.dropBefore(99)
    expect([log.held(), log.heldChars, log.lastId]).toEqual([null, 0, 15])
  })

  it('forgets held events before an id inside what was taken together, and keeps the rest exact', () => {
    const { log, stored } = logWith(0)
    const data = (text: string) => JSON.stringify({ text })
    const sent: string[] = []
    // Three taken together (one with a line break in its data: two data lines), two more taken,
    // one not yet.
    log.append('text', data('a'))
    log.append('text', 'b\nc')
    log.append('text', data('d'))
    sent.push(log.take())
    for (const text of ['e', 'f']) log.append('thinking', data(text))
    sent.push(log.take())
    log.append('text', data('g'))
    const all = [...splitFrames(sent.join(''))]
    expect(all).toHaveLength(5)
    expect(log.held()!.text).toBe(all.join('') + sseFrame(6, 'text', data('g')))
    log.dropBefore(3)
    const held = log.held()!
    expect([held.firstId, held.lastId]).toEqual([3, 6])
    expect(held.text).toBe(all.slice(2).join('') + sseFrame(6, 'text', data('g')))
    expect(log.heldChars).toBe(held.text.length)
    expect(log.takenId).toBe(5)
    log.flush()
    expect(stored).toEqual([held])
    // Forgetting inside what was not yet taken.
    for (const text of ['h', 'i', 'j']) log.append('text', data(text))
    log.dropBefore(9)
    expect(log.held()).toEqual({ firstId: 9, lastId: 9, text: sseFrame(9, 'text', data('j')) })
    expect(log.take()).toBe(sseFrame(9, 'text', data('j')))
  })

  it('holds at most MAX_BATCH_EVENTS events, however small', () => {
    const { log, stored } = logWith(0, { maxChars: Infinity })
    for (let i = 0; i < 10_000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(stored.map((batch) => batch.lastId - batch.firstId + 1)).toEqual([
      MAX_BATCH_EVENTS,
      MAX_BATCH_EVENTS,
    ])
    expect(log.heldEvents).toBe(10_000 - 2 * MAX_BATCH_EVENTS)
  })

  it('fills a batch to the character bound before the event bound, whatever the events', () => {
    const { log, stored } = logWith(9)
    // The smallest events there are: one-character texts.
    for (let i = 0; i < 8000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(stored.length).toBeGreaterThan(0)
    for (const batch of stored) {
      const events = batch.lastId - batch.firstId + 1
      expect(batch.text.length).toBeGreaterThanOrEqual(MAX_BATCH_CHARS)
      expect(batch.text.length).toBeLessThan(MAX_BATCH_CHARS + 40)
      expect(events).toBeLessThan(MAX_BATCH_EVENTS)
    }
  })

  it('writes a batch early when its frames reach the character bound', () => {
    const { log, stored } = logWith(0, { maxChars: 1000 })
    // Each frame is 338 characters (339 from id 10): a batch is written with its third.
    const data = JSON.stringify({ text: 'y'.repeat(300) })
    for (let i = 0; i < 10; i++) log.append('text', data)
    expect(stored.map((batch) => batch.lastId - batch.firstId + 1)).toEqual([3, 3, 3])
    expect(log.heldEvents).toBe(1)
    expect(log.heldChars).toBe(sseFrame(10, 'text', data).length)
  })

  it('counts the characters of each frame it holds, whatever the length of its data or id', () => {
    for (const length of [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 123_456]) {
      for (const lastId of [0, 8, 98, 998, 9998, 99_998, 999_999_998]) {
        const { log, stored } = logWith(lastId, { maxChars: Infinity, listening: false })
        const data = 'x'.repeat(length)
        const added = log.append('thinking', data) + log.append('text', '{}')
        expect(log.heldChars).toBe(added)
        const frames = sseFrame(lastId + 1, 'thinking', data) + sseFrame(lastId + 2, 'text', '{}')
        expect(added).toBe(frames.length)
        log.flush()
        expect(stored[0]!.text).toBe(frames)
      }
    }
    // A line break in an event's data adds a data line, counted once the frame is made.
    const { log } = logWith()
    log.append('text', 'a\nb')
    expect(log.take()).toBe('id: 1\nevent: text\ndata: a\ndata: b\n\n')
    expect(log.heldChars).toBe('id: 1\nevent: text\ndata: a\ndata: b\n\n'.length)
  })

  it('replays exactly the events after any id, from storage and memory, with no gap or repeat', () => {
    const { log, batches, appendFrame } = logWith(0, { maxEvents: 7 })
    const all: string[] = []
    for (let i = 0; i < 40; i++) all.push(appendFrame('text', JSON.stringify({ text: `${i}\n\r` })))
    for (let after = 0; after <= 40; after++) {
      expect(replay(batches(), log, after)).toBe(all.slice(after).join(''))
    }
  })

  it('makes the frames of the held events between two ids, and only those', () => {
    const { log, appendFrame } = logWith(20, { maxEvents: 100 })
    const all: string[] = []
    for (let i = 0; i < 5; i++) all.push(appendFrame('text', JSON.stringify({ text: `${i}` })))
    expect(log.held()).toEqual({ firstId: 21, lastId: 25, text: all.join('') })
    expect(log.held(22, 24)).toEqual({ firstId: 23, lastId: 24, text: all[2]! + all[3]! })
    expect(log.held(0, 21)).toEqual({ firstId: 21, lastId: 21, text: all[0] })
    expect(log.held(25)).toBeNull()
    expect(log.held(10, 20)).toBeNull()
  })

  it('cuts a batch to the frames between two ids', () => {
    const { batches, appendFrame } = logWith(9, { maxEvents: 5 })
    const all: string[] = []
    for (let i = 0; i < 5; i++)
      all.push(appendFrame('text', JSON.stringify({ text: `line\n${i}` })))
    const [batch] = batches()
    expect(batch).toMatchObject({ firstId: 10, lastId: 14 })
    for (let after = 8; after <= 15; after++) {
      for (let until = after; until <= 15; until++) {
        const want = all.filter((_, i) => i + 10 > after && i + 10 <= until).join('')
        expect(framesBetween(batch!, after, until), `${after}..${until}`).toBe(want)
      }
    }
    expect([...splitFrames(batch!.text)]).toEqual(all)
  })

  it('keeps every frame free of blank lines, whatever its data, and refuses a line break in a name', () => {
    const { log, batches, appendFrame } = logWith()
    expect(appendFrame('text', JSON.stringify('a\nb\r\u2028'))).toBe(
      'id: 1\nevent: text\ndata: "a\\nb\\r\u2028"\n\n',
    )
    // Data that is not JSON text is still one frame: each line break starts a `data:` line, and
    // the stored record gives back the same frame.
    const raw = appendFrame('text', 'a\n\nb\r\n')
    expect(raw).toBe('id: 2\nevent: text\ndata: a\ndata: \ndata: b\ndata: \n\n')
    expect([...splitFrames(log.held()!.text)]).toHaveLength(2)
    expect(() => log.append('te\nxt', '{}')).toThrow(/CR or LF/)
    log.flush()
    expect([...splitFrames(batches()[0]!.text)][1]).toBe(raw)
  })

  it('reads back every stored form: joined, records, frames as text, a JSON array of frames', () => {
    const sse = createSseEncoder(6)
    const frames = [sse.event('text', '{"text":"a"}'), sse.event('done', '{"turn":{}}')]
    const all = frames.join('')
    expect(storedFrames('1 text\n1 done\n\n{"text":"a"}\n{"turn":{}}', 7)).toBe(all)
    // Older forms: records (written until the joined form), frames, and a JSON array of them.
    expect(storedFrames('\ntext\n12\n{"text":"a"}\ndone\n11\n{"turn":{}}', 7)).toBe(all)
    expect(storedFrames(all, 7)).toBe(all)
    expect(storedFrames(JSON.stringify(frames), 7)).toBe(all)
    // Empty data, first, last and between.
    const empty = createSseEncoder(6)
    expect(storedFrames('3 text\n\n\n{}\n', 7)).toBe(
      empty.event('text', '') + empty.event('text', '{}') + empty.event('text', ''),
    )
  })

  it('refuses a joined batch it cannot read, naming the batch and the fault, rather than loop', () => {
    const joined = '2 text\n\n{"text":"a"}\n{"text":"b"}'
    expect(storedFrames(joined, 7)).toContain('id: 8\n')
    expect(() => storedFrames('2 text\n{"text":"a"}', 7)).toThrow(
      'stored events from id 7: no blank line ends its names',
    )
    expect(() => storedFrames(joined.replace('2 text', '3 text'), 7)).toThrow(
      'stored events from id 7: event 9 is missing',
    )
    expect(() => storedFrames(joined.replace('2 text', '1 text'), 7)).toThrow(
      'more data than its names count',
    )
    expect(() => storedFrames(joined.replace('2 text', '2 text\n0 done'), 7)).toThrow(
      "'0 done' is not a run of names",
    )
    expect(() => storedFrames(joined.replace('2 text', '2text'), 7)).toThrow(
      "'2text' is not a run of names",
    )
  })

  it('refuses stored records it cannot read, naming the batch and the record, rather than loop', () => {
    const records = '\ntext\n12\n{"text":"a"}\ntext\n12\n{"text":"b"}'
    // The second record's length says more than is there; then a record with no length line.
    expect(() => storedFrames(records.replace(/\n12\n(?=\{"text":"b")/, '\n99\n'), 7)).toThrow(
      'stored events from id 7: record 2 is malformed',
    )
    expect(() => storedFrames('\ntext', 7)).toThrow('record 1 is malformed')
    expect(() => storedFrames('\ntext\nx\n{}', 7)).toThrow('record 1 is malformed')
  })

  it(
    'sends and replays exactly the frames the SSE encoder writes, whatever the events, bounds, takes and skips',
    () => {
      const step = fc.oneof(
        fc.record({
          name: fc.constantFrom('text', 'thinking', 'tool-call', 'turn', 'done', 'error'),
          // JSON and text that is not: line breaks, empty, astral characters, digits after the length.
          data: fc.oneof(
            fc.json(),
            fc.string({ unit: fc.constantFrom('a', '7', ' ', ':', '\n', '\r', 'é', '😀') }),
            fc.string({ unit: 'binary' }),
          ),
        }),
        fc.constantFrom('take' as const, 'skip' as const, 'flush' as const),
      )
      const run = fc.record({
        lastId: fc.nat(1000),
        maxEvents: fc.integer({ min: 1, max: 6 }),
        maxChars: fc.integer({ min: 1, max: 400 }),
        steps: fc.array(step, { maxLength: 60 }),
      })
      fc.assert(
        fc.property(run, ({ lastId, maxEvents, maxChars, steps }) => {
          const stored: EventBatch[] = []
          let sent = ''
          const log = createEventLog({
            lastId,
            maxEvents,
            maxChars,
            // As the object wires it: the live subscribers take what they were not sent.
            beforeWrite: () => (sent += log.take()),
            write: (batch) => stored.push(batch),
          })
          const sse = createSseEncoder(lastId)
          let all = ''
          // The model: frames appended since the last take, skip or write, and what should be sent.
          let pending = ''
          let expected = ''
          for (const next of steps) {
            const written = stored.length
            if (next === 'skip') {
              log.skip()
              pending = ''
            } else if (next === 'take') {
              sent += log.take()
            } else if (next === 'flush') {
              log.flush()
            } else {
              log.append(next.name, next.data)
              const frame = sse.event(next.name, next.data)
              all += frame
              pending += frame
            }
            if (next === 'take' || stored.length > written) {
              expected += pending
              pending = ''
            }
          }
          expect(sent).toBe(expected)
          // Every event once, in order, from storage then memory, after any id.
          const batches = stored.map(readBack)
          const frames = [...splitFrames(all)]
          for (const after of [lastId, lastId + 1, log.lastId - 1, log.lastId]) {
            expect(replay(batches, log, after)).toBe(
              frames.slice(Math.max(0, after - lastId)).join(''),
            )
          }
        }),
        { numRuns: 300, seed: 20_261_203, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('reads Last-Event-ID from the header, else the query, and refuses what is not a count', () => {
    const url = new URL('https://relay.test/v1/conversations/x/stream?lastEventId=7')
    const header = (value: string) => new Request(url, { headers: { 'last-event-id': value } })
    expect(parseLastEventId(header('12'), url)).toBe(12)
    expect(parseLastEventId(new Request(url), url)).toBe(7)
    const bare = new URL('https://relay.test/stream')
    expect(parseLastEventId(new Request(bare), bare)).toBeUndefined()
    expect(parseLastEventId(header('-1'), url)).toBeNull()
    expect(parseLastEventId(header('1e3'), url)).toBeNull()
  })
})
