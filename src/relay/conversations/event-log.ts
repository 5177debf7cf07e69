import { checkEventName, sseFrame } from '../sse.ts'

/**
 * Events with ids `firstId` to `lastId` as SSE frames, one after the other, as they are sent: what
 * a replay reads (from storage, or from memory while an answer runs).
 */
export type EventBatch = { firstId: number; lastId: number; text: string }

/**
 * Events as they are stored, one row for the batch: ids `firstId` to `lastId`, and `records`, the
 * text {@link storedFrames} reads back. A batch its subscribers were sent holds the very frames
 * they were sent; one no one was sent (no one listened) holds each event's record, its name and
 * data: the ids and the SSE field names are not stored, about 60% of the characters of the frames
 * for an answer of one token an event.
 */
export type StoredBatch = { firstId: number; lastId: number; records: string }

/** Options of {@link createEventLog}. */
export type EventLogOptions = {
  /** The id of the last event already logged (0 for a new conversation). */
  lastId: number
  /** Writes one batch (one storage row). Called synchronously, in id order. */
  write(batch: StoredBatch): void
  /** A batch is written once it holds this many events. @defaultValue {@link MAX_BATCH_EVENTS} */
  maxEvents?: number | undefined
  /**
   * Or once its events' records would hold this many characters (however its events are held).
   * @defaultValue 64 KiB
   */
  maxChars?: number | undefined
  /**
   * Called before a batch is written, while its events are still held: the live subscribers take
   * what they have not been sent (see `take`), so no event is written before it is sent.
   */
  beforeWrite?: (() => void) | undefined
}

/** The conversation's event log. */
export type EventLog = {
  /**
   * Numbers one event (`data` is its JSON, see `relayData`), holds it, and writes the batch when
   * it is full. Returns the characters it holds for it.
   */
  append(name: string, data: string): number
  /**
   * The SSE frames of the events appended since the last `take`, as one text, for the live
   * subscribers. Frames are made only here, for a replay, and for a batch written after some of
   * its events were taken: while no one listens, none is.
   */
  take(): string
  /** Marks the events appended since the last `take` as taken, without making their frames. */
  skip(): void
  /** Writes what is held (at the end of an answer). */
  flush(): void
  /**
   * The events held in memory (not yet written) with an id above `after` and at most `until`, as
   * a batch of their frames (made for that range only); null when none is.
   */
  held(after?: number, until?: number): EventBatch | null
  /** The id of the last event appended. */
  readonly lastId: number
  /** The id of the last event taken or skipped: those after it go out with the next `take`. */
  readonly takenId: number
  /** How many events are held (appended, not yet written). */
  readonly heldEvents: number
  /** How many characters are held: the frames of the events taken, the records of the others. */
  readonly heldChars: number
  /** The most characters held once an event was appended (see {@link heldChars}). */
  readonly peakHeldChars: number
}

/**
 * Most events held before a batch is written. The 64 KiB bound on their characters comes first
 * (the record of a relay event is at least 21 characters, so 64 KiB holds at most 3,121 of them):
 * a batch is as large as that bound lets it be, since each row written costs a storage call and a
 * B-tree insert whatever its size (a 1,000-token answer is one row). It bounds what an eviction
 * can lose, so an object that restarts mid-answer moves its ids past this many to never reuse one
 * a client has seen.
 */
export const MAX_BATCH_EVENTS = 4096

/**
 * Where a frame ends: the SSE encoder writes no blank line inside one (each line break in its data
 * starts another `data:` line), so a text of frames is cut at each.
 */
const FRAME_END = '\n\n'

/** An event's record: a line break, its name, one more, its data's length, one more, its data. */
const record = (name: string, data: string) => `\n${name}\n${data.length}\n${data}`

/** The characters of `record(name, data)`, without making it. */
const recordLength = (name: string, data: string) => {
  const n = data.length
  const digits = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : String(n).length
  return name.length + digits + n + 3
}

/**
 * A conversation's events: monotonic ids, held in memory and written in batches, so a 1,000-event
 * answer costs a few row writes instead of a thousand. An event is held as its name and data until
 * the live subscribers take it; its frame is made then, sent, and held in its place, and a batch
 * whose events were sent is written as those frames: each event is made into text once. A batch
 * no one was sent is written as records, made from the names and data. A state machine that does
 * no I/O: `write` is the caller's.
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const maxEvents = options.maxEvents ?? MAX_BATCH_EVENTS
  const maxChars = options.maxChars ?? 64 * 1024
  let lastId = options.lastId
  // The held events, in two runs. First those taken, as the frames the subscribers were sent
  // (`sent`, `sentCount` of them): making each event's record too, a second text of it for
  // storage, cost more in workerd than writing the frames' larger row (`bench/conversations.ts
  // floor`, a scripted 1,000-token answer: 1.16-1.19x of the floor making records, 1.07-1.10x
  // writing the frames, 1.01-1.02x writing neither). Then those not taken yet, as names and
  // data; `skipped` of them were marked taken while no one listened, and have no frame.
  let sent = ''
  let sentCount = 0
  let names: string[] = []
  let datas: string[] = []
  let skipped = 0
  // The characters of the held events' records (what bounds a batch), and of those of `names`.
  let recordChars = 0
  let pendingChars = 0
  // The name last checked: an answer repeats a few names, so each run of one is checked once.
  let checked = ''
  // The most held once an event was appended (and its batch written, when it filled one).
  let peak = 0
  /** The characters held: the frames of the events taken, the records of the others. */
  const held = () => sent.length + pendingChars

  /** The frames of the `from`th to the `to`th (not included) of the events not taken yet. */
  const frames = (from: number, to = names.length) => {
    let text = ''
    for (let i = from, id = lastId - names.length + from + 1; i < to; i++, id++) {
      text += sseFrame(id, names[i]!, datas[i]!)
    }
    return text
  }
  const flush = () => {
    if (sentCount + names.length === 0) return
    options.beforeWrite?.()
    const count = sentCount + names.length
    // Sent, the frames (with those of any events after them, which a replay would make anyway);
    // else records, the smaller form.
    const records =
      sentCount > 0 ? sent + frames(0) : names.map((name, i) => record(name, datas[i]!)).join('')
    const batch: StoredBatch = { firstId: lastId - count + 1, lastId, records }
    sent = ''
    sentCount = 0
    names = []
    datas = []
    skipped = 0
    recordChars = 0
    pendingChars = 0
    options.write(batch)
  }

  return {
    append(name, data) {
      if (name !== checked) checked = checkEventName(name)
      lastId++
      const added = recordLength(name, data)
      recordChars += added
      pendingChars += added
      names.push(name)
      datas.push(data)
      if (sentCount + names.length >= maxEvents || recordChars >= maxChars) flush()
      peak = Math.max(peak, held())
      return added
    },
    take() {
      const text = frames(skipped)
      // Those skipped before it get their frames now, so that `sent` stays a run from the first.
      sent += skipped === 0 ? text : frames(0, skipped) + text
      sentCount += names.length
      names = []
      datas = []
      skipped = 0
      pendingChars = 0
      return text
    },
    skip() {
      skipped = names.length
    },
    flush,
    held(after = 0, until = Infinity) {
      const firstHeld = lastId - sentCount - names.length + 1
      const from = Math.max(firstHeld, after + 1)
      const to = Math.min(lastId, until)
      if (from > to) return null
      const lastSent = firstHeld + sentCount - 1
      let text = ''
      if (from <= lastSent) {
        text = framesBetween({ firstId: firstHeld, lastId: lastSent, text: sent }, from - 1, to)
      }
      if (to > lastSent) {
        const start = lastSent + 1
        text += frames(Math.max(from, start) - start, to - start + 1)
      }
      return { firstId: from, lastId: to, text }
    },
    get lastId() {
      return lastId
    },
    get takenId() {
      return lastId - names.length + skipped
    },
    get heldEvents() {
      return sentCount + names.length
    },
    get heldChars() {
      return held()
    },
    get peakHeldChars() {
      return Math.max(peak, held())
    },
  }
}

/**
 * The SSE frames of a stored batch whose first event is `firstId`: the very frames its live
 * subscribers were sent. Its text is records (see `StoredBatch`, each begins with a line break);
 * batches stored before records hold their frames, as text or, earlier, as a JSON array.
 */
export function storedFrames(text: string, firstId: number): string {
  if (text.startsWith('[')) return (JSON.parse(text) as string[]).join('')
  if (!text.startsWith('\n')) return text
  let frames = ''
  let id = firstId
  for (let at = 0; at < text.length;) {
    const nameEnd = text.indexOf('\n', at + 1)
    const lengthEnd = text.indexOf('\n', nameEnd + 1)
    const end = lengthEnd + 1 + Number(text.slice(nameEnd + 1, lengthEnd))
    // Only a row this log did not write could fail this; reading on could loop.
    if (!(nameEnd > at && end > lengthEnd && end <= text.length)) {
      throw new Error(`stored events from id ${firstId}: record ${id - firstId + 1} is malformed`)
    }
    frames += sseFrame(id++, text.slice(at + 1, nameEnd), text.slice(lengthEnd + 1, end))
    at = end
  }
  return frames
}

/**
 * The frames of `batch` with an id above `after` and at most `until`: its text, cut at frame
 * ends (ids in a batch are consecutive).
 */
export function framesBetween(batch: EventBatch, after: number, until = Infinity): string {
  const skip = Math.max(0, after - batch.firstId + 1)
  const keep = Math.min(batch.lastId, until) - batch.firstId + 1
  if (skip >= keep) return ''
  const count = batch.lastId - batch.firstId + 1
  const start = skip === 0 ? 0 : frameOffset(batch.text, skip)
  const end = keep >= count ? batch.text.length : frameOffset(batch.text, keep, start, skip)
  return batch.text.slice(start, end)
}

/** Where frame number `n` (from 0) of `text` starts, scanning on from frame `from` at `offset`. */
function frameOffset(text: string, n: number, offset = 0, from = 0): number {
  let at = offset
  for (let i = from; i < n; i++) at = text.indexOf(FRAME_END, at) + FRAME_END.length
  return at
}

/** Each frame of a text of frames (as the log makes them), in order. */
export function* splitFrames(text: string): Generator<string> {
  for (let at = 0; at < text.length;) {
    const end = text.indexOf(FRAME_END, at)
    const next = end < 0 ? text.length : end + FRAME_END.length
    yield text.slice(at, next)
    at = next
  }
}

/**
 * The event name and data of a frame the log made (the other side of `append`), or null for text
 * that is not one.
 */
export function decodeFrame(frame: string): { name: string; data: unknown } | null {
  let name: string | undefined
  const data: string[] = []
  for (const line of frame.split('\n')) {
    if (line.startsWith('event: ')) name = line.slice(7)
    else if (line.startsWith('data: ')) data.push(line.slice(6))
  }
  if (name === undefined || data.length === 0) return null
  try {
    return { name, data: JSON.parse(data.join('\n')) }
  } catch {
    return null
  }
}

/**
 * The `Last-Event-ID` a client resumes from (the header, else `?lastEventId=`): a whole number, or
 * undefined when it sent none, or null when what it sent is not one.
 */
export function parseLastEventId(request: Request, url: URL): number | undefined | null {
  const raw = request.headers.get('last-event-id') ?? url.searchParams.get('lastEventId')
  if (raw === null || raw.trim() === '') return undefined
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : null
}
