import { describe, expect, it } from 'vitest'
import {
  createEventLog,
  framesAfter,
  MAX_BATCH_EVENTS,
  parseLastEventId,
  sseFrame,
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
  return framesAfter(batches, lastId).join('') + log.heldAfter(lastId).join('')
}

describe('the event log of a conversation', () => {
  it('numbers events on from the last id, one frame per event', () => {
    const { log } = logWith(41)
    const first = log.append('text', { text: 'Hi' })
    const second = log.append('done', { turn: { text: 'Hi' } })
    expect([first.id, second.id, log.lastId]).toEqual([42, 43, 43])
    expect(first.frame).toBe('id: 42\nevent: text\ndata: {"text":"Hi"}\n\n')
    expect(parseSse(first.frame + second.frame).events.map((e) => e.id)).toEqual(['42', '43'])
  })

  it('writes a 1,000-event answer in ten batches of whole events', () => {
    const { log, batches } = logWith()
    for (let i = 0; i < 1000; i++) log.append('text', { text: 'x' })
    log.flush()
    expect(batches).toHaveLength(1000 / MAX_BATCH_EVENTS)
    expect(batches.map((batch) => batch.firstId)).toEqual([
      1, 101, 201, 301, 401, 501, 601, 701, 801, 901,
    ])
    expect(log.heldAfter(0)).toEqual([])
  })

  it('writes a batch early when its frames reach the character bound', () => {
    const { log, batches } = logWith(0, { maxChars: 1000 })
    for (let i = 0; i < 10; i++) log.append('text', { text: 'y'.repeat(300) })
    expect(batches.map((batch) => batch.frames.length)).toEqual([3, 3, 3])
    expect(log.heldAfter(0)).toHaveLength(1)
  })

  it('replays exactly the events after any id, from storage and memory, with no gap or repeat', () => {
    const { log, batches } = logWith(0, { maxEvents: 7 })
    const all: string[] = []
    for (let i = 0; i < 40; i++) all.push(log.append('text', { text: String(i) }).frame)
    for (let after = 0; after <= 40; after++) {
      expect(replay(batches, log, after)).toBe(all.slice(after).join(''))
    }
  })

  it('splits data on every line ending and refuses one in an event name', () => {
    expect(sseFrame(1, 'text', 'a\nb')).toBe('id: 1\nevent: text\ndata: "a\\nb"\n\n')
    expect(() => sseFrame(1, 'te\nxt', {})).toThrow(/CR or LF/)
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
