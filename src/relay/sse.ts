/** Writes Server-Sent Events as text, numbering them with `id:`. */
export type SseEncoder = {
  /** One event. `data` may span lines: every line ending (CRLF, LF or CR) starts a `data:` line. */
  event(name: string, data: string): string
  /** A comment line, ignored by parsers; keeps an idle connection open. */
  comment(text: string): string
}

const LINE_ENDING = /\r\n|\r|\n/

/**
 * Returns `name` if it can name an SSE event, else throws: a line ending in it would end the field
 * early and let data forge other fields.
 */
export function checkEventName(name: string): string {
  if (LINE_ENDING.test(name)) throw new TypeError('SSE event names must not contain CR or LF')
  return name
}

/**
 * The frame of one event with id `id`, as the encoder writes it; `name` must hold no line ending
 * (the encoder checks it).
 */
export function sseFrame(id: number, name: string, data: string): string {
  // JSON from JSON.stringify never holds a raw line ending, so the split is almost never needed.
  const body =
    data.indexOf('\n') === -1 && data.indexOf('\r') === -1
      ? data
      : data.split(LINE_ENDING).join('\ndata: ')
  return `id: ${id}\nevent: ${name}\ndata: ${body}\n\n`
}

/**
 * The characters of `sseFrame(id, name, data)`, without making it: exact for data with no line
 * break (`JSON.stringify` writes none), a few characters short for each one.
 */
export function sseFrameLength(id: number, name: string, data: string): number {
  const digits = id < 10 ? 1 : id < 100 ? 2 : id < 1000 ? 3 : id < 10_000 ? 4 : String(id).length
  // `id: `, a line break, `event: `, one more, `data: `, and the blank line that ends it.
  return 21 + digits + name.length + data.length
}

/**
 * Creates an SSE encoder whose first event gets id `lastId + 1` (1 by default). A pure state
 * machine: it holds only the last id and does no I/O.
 *
 * @example
 * ```ts
 * const sse = createSseEncoder()
 * sse.event('text', '{"text":"Hi"}') // 'id: 1\nevent: text\ndata: {"text":"Hi"}\n\n'
 * ```
 */
export function createSseEncoder(lastId = 0): SseEncoder {
  let id = lastId
  // The name last checked: a stream repeats a few names, so each run of one is checked once.
  let checked = ''
  return {
    event(name, data) {
      if (name !== checked) checked = checkEventName(name)
      return sseFrame(++id, name, data)
    },
    comment(text) {
      return `: ${text.split(LINE_ENDING).join('\n: ')}\n\n`
    },
  }
}
