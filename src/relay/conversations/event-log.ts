import { checkEventName, sseFrame } from '../sse.ts'

/**
 * Events with ids `firstId` to `lastId` as SSE frames, one after the other, as they are sent: what
 * a replay reads (from storage, or from memory while an answer runs).
 */
export type EventBatch = { firstId: number; lastId: number; text: string }

/**
 * Events as they are stored, one row for the batch: ids `firstId` to `lastId`, and `records`, the
 * text {@link storedFrames} reads back. It holds each run of events of one name as a line (`500
 * thinking`), a blank line, then each event's data, one a line: no ids and no SSE field names,
 * about 40% of the characters of the frames for an answer of one token an event. A batch with a
 * line break in an event's data (`JSON.stringify` writes none) holds each event's record instead:
 * its name, its data's length and its data.
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
   * Or once its events' records would hold this many characters: the largest form a batch is
   * written in (see {@link StoredBatch}). @defaultValue 64 KiB
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
   * subscribers. Frames are made only here and for a replay (the log holds none): while no one
   * listens, none is.
   */
  take(): string
  /** Marks the events appended since the last `take` as taken, without making their frames. */
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
   * a batch of their frames (made for that range only); null when none is.
   */
  held(after?: number, until?: number): EventBatch | null
  /** The id of the last event appended. */
  readonly lastId: number
  /** The id of the last event taken or skipped: those after it go out with the next `take`. */
  readonly takenId: number
  /** How many events are held (appended, not yet written). */
  readonly heldEvents: number
  /** How many characters are held, counted as the held events' records (see `maxChars`). */
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
 * A batch's events as stored: each run of one name as a line, `<count> <name>`, a blank line, then
 * `data`, each event's data one a line (see {@link StoredBatch}).
 */
function joined(names: readonly string[], data: string): string {
  let runs = ''
  for (let i = 0, start = 0; i < names.length; i++) {
    if (names[i + 1] === names[i]) continue
    runs += `${i + 1 - start} ${names[i]}\n`
    start = i + 1
  }
  return `${runs}\n${data}`
}

/**
 * The data of events taken together (see `createEventLog`): each one's a line of `text`, or, when
 * one holds a line break, each one's record (`records`); `chars`, their records' characters.
 */
type Pack = { count: number; text: string; records: boolean; chars: number }

/** A pack smaller than this many characters takes the next events in with it. */
const PACK_CHARS = 4096

/** Whether an event's data holds a line break: the events are packed and written as records. */
const lineBreakIn = (datas: readonly string[]) => datas.some((data) => data.includes('\n'))

/**
 * The text of events `datas`, whose names are `names` from `from` on: their records (`records`),
 * else each event's data a line.
 */
function packText(
  datas: readonly string[],
  names: readonly string[],
  from: number,
  records: boolean,
): string {
  return records
    ? datas.map((data, i) => record(names[from + i]!, data)).join('')
    : datas.join('\n')
}

/**
 * Each record of `text` (see `record`), in order. `firstId` is the first event's id, for the error
 * that names a malformed record: only a row this log did not write could have one, and reading on
 * could loop.
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

/** Each event's data of a pack, in order. */
function unpack(pack: Pack): string[] {
  if (!pack.records) return pack.text.split('\n')
  return Array.from(recordsOf(pack.text, 0), ({ data }) => data)
}

/**
 * A conversation's events: monotonic ids, held in memory and written in batches, so a 1,000-event
 * answer costs a few row writes instead of a thousand. An event is held as its name and data (the
 * strings given); its frame is made when the live subscribers take it, and for a replay, never
 * held. Once taken, the data of the events taken together is packed into one text (each event's a
 * line): an answer streamed over many turns of the event loop is then held as a few strings rather
 * than one an event, which the garbage collector would copy at each minor collection the answer
 * outlives, and a batch is written as its names, each once a run, and those texts joined: no event
 * is made into text a second time for storage. A state machine that does no I/O: `write` is the
 * caller's.
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const maxEvents = options.maxEvents ?? MAX_BATCH_EVENTS
  const maxChars = options.maxChars ?? 64 * 1024
  let lastId = options.lastId
  // The held events' names, the first with id `lastId - names.length + 1`. Their data: the events
  // taken (their frames sent) or skipped, packed as they were taken, then those not yet taken, one
  // string each. Making each event's record, a second text of it, cost more in workerd than
  // writing the frames' larger row (a scripted 1,000-token answer: 1.16-1.19x of the floor making
  // records, 1.07-1.10x writing the frames, `bench/conversations.ts floor`).
  let names: string[] = []
  let packs: Pack[] = []
  let datas: string[] = []
  // The characters of the held events' records (what bounds a batch): packed, and not yet taken.
  let packedChars = 0
  let freshChars = 0
  // The name last checked: an answer repeats a few names, so each run of one is checked once.
  let checked = ''
  // The most held once an event was appended (and its batch written, when it filled one).
  let peak = 0

  /** The frames of `datas` (each event's, in order) from id `firstId` on. */
  const frames = (firstId: number, first: number, events: readonly string[]) => {
    let text = ''
    for (let i = 0; i < events.length; i++) {
      text += sseFrame(firstId + i, names[first + i]!, events[i]!)
    }
    return text
  }
  /** Every held event's data, in order (a replay's, a write's as records, a cut pack's). */
  const allDatas = () => [...packs.flatMap(unpack), ...datas]
  /** Packs the events not yet taken, now taken. */
  const pack = () => {
    if (datas.length === 0) return
    const first = names.length - datas.length
    const records = lineBreakIn(datas)
    const last = packs.at(-1)
    if (last !== undefined && !last.records && !records && last.text.length < PACK_CHARS) {
      // A stream paced a token at a time takes one event a turn: its packs grow to a few KiB
      // rather than one for each event. Joined, not concatenated: one flat string.
      last.text = [last.text, ...datas].join('\n')
      last.count += datas.length
      last.chars += freshChars
    } else {
      const text = packText(datas, names, first, records)
      packs.push({ count: datas.length, text, records, chars: freshChars })
    }
    packedChars += freshChars
    freshChars = 0
    datas = []
  }
  const flush = () => {
    if (names.length === 0) return
    options.beforeWrite?.()
    // Looked for here, not as each event is appended: most batches are never written.
    const lineBreak = packs.some((p) => p.records) || lineBreakIn(datas)
    const records = lineBreak
      ? packText(allDatas(), names, 0, true)
      : joined(names, [...packs.map((p) => p.text), ...datas].join('\n'))
    const batch: StoredBatch = { firstId: lastId - names.length + 1, lastId, records }
    names = []
    packs = []
    datas = []
    packedChars = 0
    freshChars = 0
    options.write(batch)
  }

  return {
    append(name, data) {
      if (name !== checked) checked = checkEventName(name)
      lastId++
      const added = recordLength(name, data)
      freshChars += added
      names.push(name)
      datas.push(data)
      if (names.length >= maxEvents || packedChars + freshChars >= maxChars) flush()
      peak = Math.max(peak, packedChars + freshChars)
      return added
    },
    take() {
      const text = frames(lastId - datas.length + 1, names.length - datas.length, datas)
      pack()
      return text
    },
    skip: pack,
    flush,
    dropBefore(id) {
      let dropped = Math.min(names.length, id - (lastId - names.length + 1))
      if (dropped <= 0) return
      names = names.slice(dropped)
      while (packs.length > 0 && packs[0]!.count <= dropped) {
        dropped -= packs[0]!.count
        packedChars -= packs.shift()!.chars
      }
      if (dropped === 0) return
      // A pack the id falls in: what follows the id in it is packed again.
      const cut = packs.shift()
      const kept = cut === undefined ? datas.slice(dropped) : unpack(cut).slice(dropped)
      let chars = 0
      for (let i = 0; i < kept.length; i++) chars += recordLength(names[i]!, kept[i]!)
      if (cut === undefined) {
        datas = kept
        freshChars = chars
        return
      }
      packedChars -= cut.chars
      const records = lineBreakIn(kept)
      packs.unshift({ count: kept.length, text: packText(kept, names, 0, records), records, chars })
      packedChars += chars
    },
    held(after = 0, until = Infinity) {
      const firstHeld = lastId - names.length + 1
      const from = Math.max(firstHeld, after + 1)
      const to = Math.min(lastId, until)
      if (from > to) return null
      const events = allDatas().slice(from - firstHeld, to - firstHeld + 1)
      return { firstId: from, lastId: to, text: frames(from, from - firstHeld, events) }
    },
    get lastId() {
      return lastId
    },
    get takenId() {
      return lastId - datas.length
    },
    get heldEvents() {
      return names.length
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
 * subscribers were sent. Its text is its runs of names and its data (see `StoredBatch`; it begins
 * with a run's count), or records (each begins with a line break); batches stored before either
 * hold their frames, as text or, earlier, as a JSON array.
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
