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
const COLON = 58
const SPACE = 32

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

  function line(text: string, start: number, end: number): void {
    if (start === end) {
      if (data !== undefined) onEvent({ event, id, data })
      data = event = id = undefined
      return
    }
    let colon = start
    while (colon < end && text.charCodeAt(colon) !== COLON) colon++
    if (colon === start) return onComment?.()
    const field = text.slice(start, colon)
    const value =
      colon === end
        ? ''
        : text.slice(text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1, end)
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`
    else if (field === 'event') event = value || undefined
    else if (field === 'id' && !value.includes('\0')) id = value
  }

  /** Reads every complete line of `text`; returns where the unfinished rest begins. */
  function lines(text: string): number {
    let start = 0
    let lf = text.indexOf('\n')
    let cr = text.indexOf('\r')
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start)
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start)
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr
      if (end === -1) return start
      line(text, start, end)
      start = end + 1
      if (end === cr) {
        if (start === text.length) afterCr = true
        else if (text.charCodeAt(start) === LF) start++
      }
    }
  }

  return {
    feed(chunk) {
      if (overflowed || chunk === '') return
      if (afterCr) {
        afterCr = false
        if (chunk.charCodeAt(0) === LF) chunk = chunk.slice(1)
      }
      if (chunk.indexOf('\n') === -1 && chunk.indexOf('\r') === -1) {
        fragments.push(chunk)
        fragmentChars += chunk.length
      } else {
        const text = fragments.length === 0 ? chunk : fragments.join('') + chunk
        const rest = lines(text)
        fragments = rest === text.length ? [] : [text.slice(rest)]
        fragmentChars = text.length - rest
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
