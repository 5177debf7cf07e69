/** One Server-Sent Event: its data lines joined by `\n`, and its `event` and `id` if given. */
export type EventSourceMessage = {
  event?: string | undefined
  id?: string | undefined
  data: string
}

/** What {@link createSseParser} reports to. */
export type SseParserOptions = {
  onEvent(message: EventSourceMessage): void
  /** A comment line (`: ping`), as relays and providers send to keep a connection alive. */
  onComment?: (() => void) | undefined
  /** The most characters an unfinished event may hold: its data lines and an unfinished line. */
  maxBufferSize: number
  /** Called once when an event outgrows `maxBufferSize`; the parser ignores everything after it. */
  onOverflow(): void
}

const LF = 10
const CR = 13
const COLON = 58
const SPACE = 32
/** A CR that is not the first half of a CRLF: a line ending of its own. */
const LONE_CR = /\r(?!\n)/g

/**
 * A Server-Sent Events parser (the WHATWG `text/event-stream` rules) for text a `TextDecoder` has
 * decoded (which drops a byte order mark). Lines end at CRLF, LF or CR, even when a chunk
 * splits a CRLF; `data` lines join with `\n`; an `id` holding NUL is ignored; `retry` and unknown
 * fields are ignored. Each message carries the `event` and `id` given since the previous one.
 *
 * Text after the last line break is kept as fragments and joined only once a line break arrives,
 * so a long line fed in small pieces costs time linear in its length, and the characters an event
 * holds are bounded by `maxBufferSize`.
 */
export function createSseParser(options: SseParserOptions): { feed(text: string): void } {
  const { onEvent, onComment, maxBufferSize, onOverflow } = options
  let fragments: string[] = []
  let fragmentChars = 0
  let data: string | undefined
  let event: string | undefined
  let id: string | undefined
  /** The text so far ended with a CR: an LF that starts the next text ends the same line. */
  let afterCr = false
  let overflowed = false

  /** The line `text[start..end)`, read in place: only its field and value are sliced out. */
  function line(text: string, start: number, end: number): void {
    if (start === end) {
      if (data !== undefined) onEvent({ event, id, data })
      data = event = id = undefined
      return
    }
    // Within the line only: `indexOf` would run on past a line that has no colon.
    let colon = start
    while (colon < end && text.charCodeAt(colon) !== COLON) colon++
    if (colon === start) return onComment?.()
    const field = text.slice(start, colon)
    // No colon (`colon === end`): the slice starts past the end, so the value is empty.
    const value = text.slice(text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1, end)
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`
    else if (field === 'event') event = value || undefined
    else if (field === 'id' && !value.includes('\0')) id = value
  }

  return {
    feed(chunk) {
      if (overflowed || !chunk) return
      if (afterCr && chunk.charCodeAt(0) === LF) chunk = chunk.slice(1)
      afterCr = chunk.charCodeAt(chunk.length - 1) === CR
      // Fragments hold no line break, so the chunk holds every CR. A lone CR (rare) becomes an LF;
      // the CR of a CRLF is dropped with its line's end below, which copies nothing (every CR left
      // is right before an LF, so the character before an empty line's end is never one).
      if (chunk.includes('\r')) chunk = chunk.replace(LONE_CR, '\n')
      if (chunk.includes('\n')) {
        const text = fragments.length ? fragments.join('') + chunk : chunk
        let start = 0
        // `indexOf` rather than a regular expression `split`: about twice as fast on token deltas.
        for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
          line(text, start, text.charCodeAt(end - 1) === CR ? end - 1 : end)
          start = end + 1
        }
        // Empty when the text ends at a line break; joining it with the next chunk costs nothing.
        fragments = [text.slice(start)]
        fragmentChars = text.length - start
      } else {
        fragments.push(chunk)
        fragmentChars += chunk.length
      }
      if (fragmentChars + (data?.length ?? 0) > maxBufferSize) {
        overflowed = true
        fragments = []
        data = undefined
        onOverflow()
      }
    },
  }
}
