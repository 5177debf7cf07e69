import { createParser, type EventSourceMessage } from 'eventsource-parser'

/** Everything an SSE response carried: its events in order, and its comment lines. */
export type ReadSse = { events: EventSourceMessage[]; comments: string[]; raw: string }

/** Reads a whole SSE body with a real parser. */
export async function readSse(response: Response): Promise<ReadSse> {
  const raw = await response.text()
  return parseSse(raw)
}

export function parseSse(raw: string): ReadSse {
  const events: EventSourceMessage[] = []
  const comments: string[] = []
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
  })
  parser.feed(raw)
  return { events, comments, raw }
}

/** Reads events from a streaming body until `stop` says so, then leaves the rest unread. */
export async function readUntil(
  response: Response,
  stop: (seen: ReadSse) => boolean,
): Promise<ReadSse> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let raw = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return parseSse(raw)
    raw += decoder.decode(value, { stream: true })
    const seen = parseSse(raw)
    if (stop(seen)) {
      reader.releaseLock()
      return seen
    }
  }
}

/** What is left of a body {@link readUntil} read part of, as text. */
export async function readRest(response: Response): Promise<string> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let raw = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return raw + decoder.decode()
    raw += decoder.decode(value, { stream: true })
  }
}

/** The `data` of each event, parsed. */
export function payloads(read: ReadSse): { event: string | undefined; data: unknown }[] {
  return read.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) as unknown }))
}

/** The event names of a stream, a run of the same name said once (`text`, not `text` × 40). */
export function runs(read: ReadSse): (string | undefined)[] {
  return read.events.map((e) => e.event).filter((name, i, all) => name !== all[i - 1])
}

/** The data of each event named `name`, parsed. */
export function dataOf<T = Record<string, unknown>>(read: ReadSse, name: string): T[] {
  return read.events.filter((e) => e.event === name).map((e) => JSON.parse(e.data) as T)
}
