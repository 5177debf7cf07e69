import { checkEventName, sseFrame, sseFrameLength } from '../sse.ts'

/**
 * Events with ids `firstId` to `lastId` as SSE frames, one after the other, as they are sent: what
 * a replay reads (from storage, or from memory while an answer runs).
 */
export type EventBatch = { firstId: number; lastId: number; text: string }

/** Options of {@link createEventLog}. */
export type EventLogOptions = {
  /** The id of the last event already logged (0 for a new conversation). */
  lastId: number
  /** Writes one batch (one storage row): its frames. Called synchronously, in id order. */
  write(batch: EventBatch): void
  /** A batch is written once it holds this many events. @defaultValue {@link MAX_BATCH_EVENTS} */
  maxEvents?: number | undefined
  /**
   * Or once its frames would hold this many characters. @defaultValue {@link MAX_BATCH_CHARS}
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
   * it is full. Returns the characters its frame takes.
   */
  append(name: string, data: string): number
  /**
   * The SSE frames of the events appended since the last `take`, as one text, for the live
   * subscribers: made once, and held as they are sent.
   */
  take(): string
  /** Marks the events appended since the last `take` as taken, no one being sent them. */
  skip(): void
  /** Writes what is held (before a step's next model call, and while no answer runs). */
  flush(): void
  /**
   * Forgets the held events with an id below `id` (the answer before the one that just ended),
   * unwritten: they were sent, and the turns stored say what they said.
   */
  dropBefore(id: number): void
  /**
   * The events held in memory (not yet written) with an id above `after` and at most `until`, as
   * a batch of their frames; null when none is.
   */
  held(after?: number, until?: number): EventBatch | null
  /** The id of the last event appended. */
  readonly lastId: number
  /** The id of the last event taken or skipped: those after it go out with the next `take`. */
  readonly takenId: number
  /** How many events are held (appended, not yet written). */
  readonly heldEvents: number
  /** How many characters the held events' frames take (see `maxChars`). */
  readonly heldChars: number
  /** The most characters held once an event was appended (see {@link heldChars}). */
  readonly peakHeldChars: number
}

/**
 * Most characters of frames held before a batch is written, and so the most a batch row holds:
 * each row written costs a storage call and a B-tree insert whatever its size, so a batch is as
 * large as memory allows (a 1,000-token answer's frames, its `done` included, fit in one).
 */
export const MAX_BATCH_CHARS = 128 * 1024

/**
 * Most events held before a batch is written. The {@link MAX_BATCH_CHARS} bound comes first (the
 * frame of a relay event is at least 37 characters, so it holds at most 3,542 of them). It bounds
 * what an eviction can lose, so an object that restarts mid-answer moves its ids past this many to
 * never reuse one a client has seen.
 */
export const MAX_BATCH_EVENTS = 4096

/**
 * Where a frame ends: the SSE encoder writes no blank line inside one (each line break in its data
 * starts another `data:` line), so a text of frames is cut at each.
 */
const FRAME_END = '\n\n'

/** Events taken together: the frames of `count` events, as their subscribers were sent them. */
type Pack = { count: number; text: string }

/** A pack smaller than this many characters takes the next events in with it. */
const PACK_CHARS = 4096

/**
 * Each record of `text` (a batch stored as records: for each event a line break, its name, one
 * more, its data's length, one more, its data), in order. `firstId` is the first event's id, for
 * the error that names a malformed record: only a row this log did not write could have one, and
 * reading on could loop.
 */
function* recordsOf(text: string, firstId: number): Generator<{ name: string; data: string }> {
  for (let at = 0, n = 1; at < text.length; n++) {
    const nameEnd = text.indexOf('\n', at + 1)
    const lengthEnd = text.indexOf('\n', nameEnd + 1)
    const end = lengthEnd + 1 + Number(text.slice(nameEnd + 1, lengthEnd))
    if (!(nameEnd > at && end > lengthEnd && end <= text.length)) {
      throw new Error(`stored events from id ${firstId}: record ${n} is malformed`)
    }
    yield { name: text.slice(at + 1, nameEnd), data: text.slice(lengthEnd + 1, end) }
    at = end
  }
}

/**
 * A conversation's events: monotonic ids, held in memory and written in batches, so a 1,000-event
 * answer costs a few row writes instead of a thousand. An event is held as its name and data (the
 * strings given) until the live subscribers take it; its frame is made then, once, and the log
 * holds the very text they were sent, packed with the frames taken before it while those are few
 * (an answer streamed a token at a time is held as a few strings rather than one an event, which
 * the garbage collector would copy at each minor collection the answer outlives). A replay and a
 * batch written are those texts, cut or joined: no event is made into text twice. A state machine
 * that does no I/O: `write` is the caller's.
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const maxEvents = options.maxEvents ?? MAX_BATCH_EVENTS
  const maxChars = options.maxChars ?? MAX_BATCH_CHARS
  let lastId = options.lastId
  // The held events, oldest first: those taken (or skipped), as the frames in `packs`, then those
  // not yet taken, as their names and data.
  let packs: Pack[] = []
  let packed = 0
  let packedChars = 0
  let names: string[] = []
  let datas: string[] = []
  let freshChars = 0
  // The name last checked: an answer repeats a few names, so each run of one is checked once.
  let checked = ''
  // The most held once an event was appended (and its batch written, when it filled one).
  let peak = 0

  /** The frames of the events not yet taken, from the `from`th of them on. */
  const freshFrames = (from = 0, to = datas.length) => {
    const firstId = lastId - datas.length + 1
    let text = ''
    for (let i = from; i < to; i++) text += sseFrame(firstId + i, names[i]!, datas[i]!)
    return text
  }
  /** Takes the events not yet taken: their frames, packed, returned. */
  const take = () => {
    if (datas.length === 0) return ''
    const text = freshFrames()
    const last = packs.at(-1)
    if (last !== undefined && last.text.length < PACK_CHARS && text.length < PACK_CHARS) {
      // A stream paced a token at a time takes one event a turn: its packs grow to a few KiB
      // rather than one for each event. Joined, not concatenated: one flat string.
      last.text = [last.text, text].join('')
      last.count += datas.length
    } else packs.push({ count: datas.length, text })
    packed += datas.length
    packedChars += text.length
    names = []
    datas = []
    freshChars = 0
    return text
  }
  const flush = () => {
    if (packed + datas.length === 0) return
    options.beforeWrite?.()
    take()
    const text = packs.length === 1 ? packs[0]!.text : packs.map((pack) => pack.text).join('')
    const batch: EventBatch = { firstId: lastId - packed + 1, lastId, text }
    packs = []
    packed = 0
    packedChars = 0
    options.write(batch)
  }

  return {
    append(name, data) {
      if (name !== checked) checked = checkEventName(name)
      lastId++
      const added = sseFrameLength(lastId, name, data)
      freshChars += added
      names.push(name)
      datas.push(data)
      if (packed + datas.length >= maxEvents || packedChars + freshChars >= maxChars) flush()
      peak = Math.max(peak, packedChars + freshChars)
      return added
    },
    take,
    skip: () => void take(),
    flush,
    dropBefore(id) {
      let dropped = Math.min(packed + datas.length, id - (lastId - packed - datas.length + 1))
      while (dropped > 0 && packs.length > 0) {
        const first = packs[0]!
        if (first.count > dropped) {
          // The id falls in this pack: what follows it is kept, a slice of its text (only a
          // small pack holds two answers' events: an answer's are all taken before it ends).
          const at = frameOffset(first.text, dropped)
          first.text = first.text.slice(at)
          first.count -= dropped
          packed -= dropped
          packedChars -= at
          return
        }
        packs.shift()
        dropped -= first.count
        packed -= first.count
        packedChars -= first.text.length
      }
      if (dropped <= 0) return
      names = names.slice(dropped)
      datas = datas.slice(dropped)
      const firstId = lastId - datas.length + 1
      freshChars = 0
      for (let i = 0; i < datas.length; i++) {
        freshChars += sseFrameLength(firstId + i, names[i]!, datas[i]!)
      }
    },
    held(after = 0, until = Infinity) {
      let id = lastId - packed - datas.length + 1
      const from = Math.max(id, after + 1)
      const to = Math.min(lastId, until)
      if (from > to) return null
      let text = ''
      for (const pack of packs) {
        const next = id + pack.count
        if (next > from && id <= to) {
          text += framesBetween({ firstId: id, lastId: next - 1, text: pack.text }, from - 1, to)
        }
        id = next
      }
      if (to >= id) text += freshFrames(Math.max(from, id) - id, to - id + 1)
      return { firstId: from, lastId: to, text }
    },
    get lastId() {
      return lastId
    },
    get takenId() {
      return lastId - datas.length
    },
    get heldEvents() {
      return packed + datas.length
    },
    get heldChars() {
      return packedChars + freshChars
    },
    get peakHeldChars() {
      return Math.max(peak, packedChars + freshChars)
    },
  }
}

/**
 * The SSE frames of a stored batch whose first event is `firstId`: the very frames its live
 * subscribers were sent. The log writes them as they are; rows of older code hold each run of
 * names then each event's data a line (beginning with a run's count), records (each beginning
 * with a line break, see `recordsOf`), or the frames as a JSON array.
 */
export function storedFrames(text: string, firstId: number): string {
  const first = text.charCodeAt(0)
  if (first >= 0x30 && first <= 0x39) return joinedFrames(text, firstId)
  if (text.startsWith('[')) return (JSON.parse(text) as string[]).join('')
  if (!text.startsWith('\n')) return text
  let frames = ''
  let id = firstId
  for (const { name, data } of recordsOf(text, firstId)) frames += sseFrame(id++, name, data)
  return frames
}

/** The frames of a batch stored as its runs of names, a blank line, and its data, one a line. */
function joinedFrames(text: string, firstId: number): string {
  // Only a row this log did not write could fail these checks; reading on could loop.
  const malformed = (what: string) => new Error(`stored events from id ${firstId}: ${what}`)
  const dataStart = text.indexOf('\n\n') + 2
  if (dataStart < 2) throw malformed('no blank line ends its names')
  let frames = ''
  let id = firstId
  let at = dataStart
  for (const run of text.slice(0, dataStart - 2).split('\n')) {
    const space = run.indexOf(' ')
    const count = Number(run.slice(0, space))
    if (!(space > 0 && Number.isSafeInteger(count) && count > 0)) {
      throw malformed(`'${run.slice(0, 40)}' is not a run of names`)
    }
    const name = run.slice(space + 1)
    for (const last = id + count; id < last; id++) {
      if (at > text.length) throw malformed(`event ${id} is missing`)
      const end = text.indexOf('\n', at)
      const dataEnd = end < 0 ? text.length : end
      frames += sseFrame(id, name, text.slice(at, dataEnd))
      at = dataEnd + 1
    }
  }
  if (at <= text.length) throw malformed(`it holds more data than its names count`)
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
