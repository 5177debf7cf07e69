/** One event of a conversation's stream: its id and its SSE frame, as sent. */
export type LoggedEvent = { id: number; frame: string }

/** Events written to storage together, as one row: ids `firstId` to `firstId + frames.length - 1`. */
export type EventBatch = { firstId: number; frames: string[] }

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
}

/** The conversation's event log. */
export type EventLog = {
  /** Numbers and encodes one event, holds it, and writes the batch when it is full. */
  append(name: string, data: unknown): LoggedEvent
  /** Writes what is held (at the end of an answer). */
  flush(): void
  /** The frames still held in memory (not yet written) with an id above `lastId`. */
  heldAfter(lastId: number): string[]
  /** The id of the last event appended. */
  readonly lastId: number
  /** How many events are held (appended, not yet written). */
  readonly heldEvents: number
  /** How many characters of frames are held. */
  readonly heldChars: number
}

/**
 * Most events held before a batch is written. It bounds what an eviction can lose, so an object
 * that restarts mid-answer moves its ids past this many to never reuse one a client has seen.
 */
export const MAX_BATCH_EVENTS = 100

const LINE_ENDING = /\r\n|\r|\n/

/**
 * A conversation's events: monotonic ids, SSE frames encoded once (every subscriber and every
 * replay sends the same bytes), held in memory and written in batches, so a 1,000-event answer
 * costs about ten row writes instead of a thousand. A state machine that does no I/O: `write` is
 * the caller's.
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const maxEvents = options.maxEvents ?? MAX_BATCH_EVENTS
  const maxChars = options.maxChars ?? 64 * 1024
  let lastId = options.lastId
  let held: LoggedEvent[] = []
  let heldChars = 0

  const flush = () => {
    if (held.length === 0) return
    const batch: EventBatch = { firstId: held[0]!.id, frames: held.map((event) => event.frame) }
    held = []
    heldChars = 0
    options.write(batch)
  }

  return {
    append(name, data) {
      lastId++
      const event = { id: lastId, frame: sseFrame(lastId, name, data) }
      held.push(event)
      heldChars += event.frame.length
      if (held.length >= maxEvents || heldChars >= maxChars) flush()
      return event
    },
    flush,
    heldAfter(after) {
      const out: string[] = []
      for (const event of held) if (event.id > after) out.push(event.frame)
      return out
    },
    get lastId() {
      return lastId
    },
    get heldEvents() {
      return held.length
    },
    get heldChars() {
      return heldChars
    },
  }
}

/** One SSE event with its id. `data` is JSON, split on line endings as the SSE format requires. */
export function sseFrame(id: number, name: string, data: unknown): string {
  if (LINE_ENDING.test(name)) throw new TypeError('SSE event names must not contain CR or LF')
  const json = JSON.stringify(data)
  const body = LINE_ENDING.test(json) ? json.split(LINE_ENDING).join('\ndata: ') : json
  return `id: ${id}\nevent: ${name}\ndata: ${body}\n\n`
}

/**
 * The event name and data of a frame made by {@link sseFrame} (the other side of it), or null for
 * text that is not one.
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

/** The frames of stored batches (in id order) with an id above `lastId`. */
export function framesAfter(batches: Iterable<EventBatch>, lastId: number): string[] {
  const out: string[] = []
  for (const batch of batches) {
    const skip = Math.max(0, lastId - batch.firstId + 1)
    for (let i = skip; i < batch.frames.length; i++) out.push(batch.frames[i]!)
  }
  return out
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
