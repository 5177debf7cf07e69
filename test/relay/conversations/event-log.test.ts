import { describe, expect, it } from 'vitest'
import {
  createEventLog,
  framesBetween,
  MAX_BATCH_EVENTS,
  parseLastEventId,
  splitFrames,
  type EventBatch,
} from '../../../src/relay/conversations/event-log.ts'
import { parseSse } from '../sse-reader.ts'

function logWith(lastId = 0, options: { maxEvents?: number; maxChars?: number } = {}) {
  const batches: EventBatch[] = []
  const log = createEventLog({ lastId, write: (batch) => batches.push(batch), ...options })
  return { log, batches }
}

/** Everything a client would get after `lastId`: the stored batches, then what memory holds. */
function replay(batches: EventBatch[], log: ReturnType<typeof logWith>['log'], lastId: number) {
  const held = log.held()
  return [...batches, ...(held === null ? [] : [held])]
    .map((batch) => framesBetween(batch, lastId))
    .join('')
}

describe('the event log of a conversation', () => {
  it('numbers events on from the last id, one frame per event', () => {
    const { log } = logWith(41)
    const first = log.append('text', JSON.stringify({ text: 'Hi' }))
    const second = log.append('done', JSON.stringify({ turn: { text: 'Hi' } }))
    expect(log.lastId).toBe(43)
    expect(first).toBe('id: 42\nevent: text\ndata: {"text":"Hi"}\n\n')
    expect(parseSse(first + second).events.map((e) => e.id)).toEqual(['42', '43'])
    expect(log.held()).toEqual({ firstId: 42, lastId: 43, text: first + second })
  })

  it('hands out the frames since the last take, first when a batch is due, and writes the batch from those texts', () => {
    const batches: EventBatch[] = []
    const taken: string[] = []
    const log = createEventLog({
      lastId: 0,
      maxEvents: 3,
      // As the live subscribers take it: what they were not sent, before the batch is written.
      beforeWrite: () => {
        expect(log.held()?.lastId).toBe(3)
        taken.push(log.take())
      },
      write: (batch) => batches.push(batch),
    })
    const a = log.append('text', JSON.stringify({ text: 'a' }))
    expect(log.take()).toBe(a)
    expect(log.take()).toBe('')
    const b = log.append('text', JSON.stringify({ text: 'b' }))
    expect(log.held()).toEqual({ firstId: 1, lastId: 2, text: a + b })
    expect(log.heldChars).toBe((a + b).length)
    const c = log.append('text', JSON.stringify({ text: 'c' }))
    expect(taken).toEqual([b + c])
    expect(batches).toEqual([{ firstId: 1, lastId: 3, text: a + b + c }])
    expect(log.held()).toBeNull()
    expect(log.take()).toBe('')
  })

  it('writes a 1,000-token answer as one batch of whole events, at its end', () => {
    const { log, batches } = logWith()
    for (let i = 0; i < 1000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(batches).toHaveLength(0)
    log.flush()
    expect(batches.map((batch) => [batch.firstId, batch.lastId])).toEqual([[1, 1000]])
    expect([...splitFrames(batches[0]!.text)]).toHaveLength(1000)
    expect(log.held()).toBeNull()
  })

  it('holds at most MAX_BATCH_EVENTS events, however small', () => {
    const { log, batches } = logWith(0, { maxChars: Infinity })
    for (let i = 0; i < 5000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(batches.map((batch) => batch.lastId - batch.firstId + 1)).toEqual([
      MAX_BATCH_EVENTS,
      MAX_BATCH_EVENTS,
    ])
    expect(log.heldEvents).toBe(5000 - 2 * MAX_BATCH_EVENTS)
  })

  it('fills a batch to the character bound before the event bound, whatever the frames', () => {
    const { log, batches } = logWith(9)
    // The smallest frames there are: one-character texts.
    for (let i = 0; i < 4000; i++) log.append('text', JSON.stringify({ text: 'x' }))
    expect(batches.length).toBeGreaterThan(0)
    for (const batch of batches) {
      expect(batch.text.length).toBeGreaterThanOrEqual(64 * 1024)
      expect(batch.lastId - batch.firstId + 1).toBeLessThan(MAX_BATCH_EVENTS)
    }
  })

  it('writes a batch early when its frames reach the character bound', () => {
    const { log, batches } = logWith(0, { maxChars: 1000 })
    for (let i = 0; i < 10; i++) log.append('text', JSON.stringify({ text: 'y'.repeat(300) }))
    expect(batches.map((batch) => [...splitFrames(batch.text)].length)).toEqual([3, 3, 3])
    expect(log.heldEvents).toBe(1)
  })

  it('replays exactly the events after any id, from storage and memory, with no gap or repeat', () => {
    const { log, batches } = logWith(0, { maxEvents: 7 })
    const all: string[] = []
    for (let i = 0; i < 40; i++) all.push(log.append('text', JSON.stringify({ text: `${i}\n\r` })))
    for (let after = 0; after <= 40; after++) {
      expect(replay(batches, log, after)).toBe(all.slice(after).join(''))
    }
  })

  it('cuts a batch to the frames between two ids', () => {
    const { log, batches } = logWith(9, { maxEvents: 5 })
    const all: string[] = []
    for (let i = 0; i < 5; i++) all.push(log.append('text', JSON.stringify({ text: `line\n${i}` })))
    const [batch] = batches
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
    const { log } = logWith()
    expect(log.append('text', JSON.stringify('a\nb\r\u2028'))).toBe(
      'id: 1\nevent: text\ndata: "a\\nb\\r\u2028"\n\n',
    )
    // Data that is not JSON text is still one frame: each line break starts a `data:` line.
    const raw = log.append('text', 'a\n\nb\r\n')
    expect(raw).toBe('id: 2\nevent: text\ndata: a\ndata: \ndata: b\ndata: \n\n')
    expect([...splitFrames(log.held()!.text)]).toHaveLength(2)
    expect(() => log.append('te\nxt', '{}')).toThrow(/CR or LF/)
  })

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
