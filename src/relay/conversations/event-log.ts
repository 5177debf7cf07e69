import { createSseEncoder } from '../sse.ts'

/**
 * Events written to storage together, as one row: ids `firstId` to `lastId`, their SSE frames as
 * sent, one after the other (so a replay sends the stored text as it is, without decoding it).
 */
export type EventBatch = { firstId: number; lastId: number; text: string }

/** Options of {@link createEventLog}. */
export type EventLogOptions = {
  /** The id of the last event already logged (0 for a new conversation). */
  lastId: number
  /** Writes one batch (one storage row). Called synchronously, in id order. */
  write(batch: EventBatch): void
  /** A batch is written once it holds this many events. @defaultValue {@link MAX_BATCH_EVENTS} */
  maxEvents?: number | undefined
  /** Or this many characters of frames. @defaultValue 64 KiB */
  maxChars?: number | undefined
  /**
   * Called before a batch is written, with its frames still held: the live subscribers take what
   * they have not been sent (see `take`), so no frame is written before it is sent.
   */
  beforeWrite?: (() => void) | undefined
}

/** The conversation's event log. */
export type EventLog = {
  /**
   * Numbers one event and encodes it as SSE (`data` is its JSON, see `relayData`), holds it, and
   * writes the batch when it is full. Returns its frame.
   */
  append(name: string, data: string): string
  /**
   * The frames appended since the last `take`, as one text, for the live subscribers: they send
   * this very string, and the batch is later joined from such texts, so a frame's text is put
   * together once for both.
   */
  take(): string
  /** Writes what is held (at the end of an answer). */
  flush(): void
  /** The events held in memory (not yet written), as a batch; null when none is. */
  held(): EventBatch | null
  /** The id of the last event appended. */
  readonly lastId: number
  /** How many events are held (appended, not yet written). */
  readonly heldEvents: number
  /** How many characters of frames are held. */
  readonly heldChars: number
}

/**
 * Most events held before a batch is written. The 64 KiB bound on their characters comes first
 * (a frame is at least 38 characters, so 64 KiB holds at most 1,725 of them): a batch is as large
 * as that bound lets it be, since each row written costs a storage call and a B-tree insert
 * whatever its size (a 1,000-token answer is one row). It bounds what an eviction can lose, so an
 * object that restarts mid-answer moves its ids past this many to never reuse one a client has seen.
 */
export const MAX_BATCH_EVENTS = 2048

/**
 * Where a frame ends: the SSE encoder writes no blank line inside one (each line break in its data
 * starts another `data:` line), so a text of frames is cut at each.
 */
const FRAME_END = '\n\n'

/**
 * A conversation's events: monotonic ids, SSE frames encoded once (every subscriber and every
 * replay sends the same bytes), held in memory as the texts the live subscribers took (so what
 * they were sent and what is written are put together once) and written in batches, so a
 * 1,000-event answer costs a few row writes instead of a thousand. A state machine that does
 * no I/O: `write` is the caller's.
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const maxEvents = options.maxEvents ?? MAX_BATCH_EVENTS
  const maxChars = options.maxChars ?? 64 * 1024
  const sse = createSseEncoder(options.lastId)
  let lastId = options.lastId
  // The held frames: texts already taken, in order, then those appended since.
  let taken: string[] = []
  let fresh = ''
  let chars = 0
  let count = 0

  const text = () => {
    if (taken.length === 0) return fresh
    // Joined once, and kept joined: a replay that reads what is held may ask again.
    if (taken.length > 1) taken = [taken.join('')]
    return taken[0]! + fresh
  }
  const flush = () => {
    if (count === 0) return
    options.beforeWrite?.()
    const batch: EventBatch = { firstId: lastId - count + 1, lastId, text: text() }
    taken = []
    fresh = ''
    chars = 0
    count = 0
    options.write(batch)
  }

  return {
    append(name, data) {
      lastId++
      const frame = sse.event(name, data)
      fresh += frame
      chars += frame.length
      count++
      if (count >= maxEvents || chars >= maxChars) flush()
      return frame
    },
    take() {
      const taking = fresh
      if (taking !== '') {
        taken.push(taking)
        fresh = ''
      }
      return taking
    },
    flush,
    held: () => (count === 0 ? null : { firstId: lastId - count + 1, lastId, text: text() }),
    get lastId() {
      return lastId
    },
    get heldEvents() {
      return count
    },
    get heldChars() {
      return chars
    },
  }
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
