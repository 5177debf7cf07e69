/**
 * A `fetch` that replays recorded response bytes, chunked where a test says, and records every
 * request so tests can assert what an SDK sent. Nothing here touches the network.
 */

/** How one response is played back. */
export type ReplaySpec = {
  /** @defaultValue 200 */
  status?: number | undefined
  /** @defaultValue `{ 'content-type': 'text/event-stream' }` */
  headers?: Record<string, string> | undefined
  body: string | Uint8Array
  /**
   * Byte offsets where the body is cut into chunks (e.g. `[17]` gives two chunks), or `'bytes'` for
   * one chunk per byte. @defaultValue one chunk
   */
  splitAt?: number[] | 'bytes' | undefined
  /** After this many bytes, stop sending and wait until the request is aborted. */
  stallAfterBytes?: number | undefined
  /** After this many bytes, fail the body with a network error (a reset connection). */
  cutAfterBytes?: number | undefined
  /** Reject the fetch itself, as a refused connection does. */
  refuse?: boolean | undefined
}

/** One request the replaying fetch received. */
export type RecordedRequest = {
  url: string
  method: string
  headers: Record<string, string>
  /** The body parsed as JSON when it is JSON, else the raw text. */
  body: unknown
  signal: AbortSignal | undefined
}

/** A replaying fetch and what it saw. */
export type ReplayFetch = {
  fetch: typeof globalThis.fetch
  requests: RecordedRequest[]
  /** True when any request's signal aborted or its body stream was cancelled. */
  aborted(): boolean
}

const encoder = new TextEncoder()

/** Cuts `bytes` at the given offsets. */
export function chunkBytes(
  bytes: Uint8Array,
  splitAt: number[] | 'bytes' | undefined,
): Uint8Array[] {
  if (splitAt === 'bytes') return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))
  const cuts = [...new Set(splitAt ?? [])]
    .filter((n) => n > 0 && n < bytes.length)
    .toSorted((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let start = 0
  for (const cut of cuts) {
    chunks.push(bytes.subarray(start, cut))
    start = cut
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

/** Builds an SSE body from `[event, data]` pairs (`event` null for data-only SSE). */
export function sse(events: [event: string | null, data: unknown][]): string {
  return events
    .map(([event, data]) => {
      const payload = typeof data === 'string' ? data : JSON.stringify(data)
      return `${event === null ? '' : `event: ${event}\n`}data: ${payload}\n\n`
    })
    .join('')
}

/**
 * A fetch that answers the n-th request with the n-th spec (the last one repeats), or with what
 * `specs` returns for the request.
 */
export function replayFetch(
  specs: ReplaySpec[] | ((request: RecordedRequest, index: number) => ReplaySpec),
): ReplayFetch {
  const requests: RecordedRequest[] = []
  let aborted = false

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const text = await request.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    const signal = init?.signal ?? undefined
    const recorded: RecordedRequest = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body,
      signal,
    }
    const index = requests.length
    requests.push(recorded)
    signal?.addEventListener('abort', () => (aborted = true), { once: true })
    if (signal?.aborted === true) {
      aborted = true
      throw new DOMException('The operation was aborted.', 'AbortError')
    }
    const spec =
      typeof specs === 'function'
        ? specs(recorded, index)
        : specs[Math.min(index, specs.length - 1)]
    if (spec === undefined) throw new Error('replayFetch: no response spec')
    if (spec.refuse === true)
      throw new TypeError('fetch failed: connect ECONNREFUSED 127.0.0.1:443')

    const bytes = typeof spec.body === 'string' ? encoder.encode(spec.body) : spec.body
    const chunks = chunkBytes(bytes, spec.splitAt)
    let sent = 0
    let i = 0
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const limit = spec.stallAfterBytes ?? spec.cutAfterBytes
        if (limit !== undefined && sent >= limit) {
          if (spec.cutAfterBytes !== undefined) {
            controller.error(new TypeError('terminated: other side closed'))
            return
          }
          await new Promise<void>((resolve) => {
            if (signal === undefined) return
            if (signal.aborted) return resolve()
            signal.addEventListener('abort', () => resolve(), { once: true })
          })
          controller.error(new DOMException('The operation was aborted.', 'AbortError'))
          return
        }
        const chunk = chunks[i++]
        if (chunk === undefined) {
          controller.close()
          return
        }
        const room = limit === undefined ? chunk.length : Math.min(chunk.length, limit - sent)
        if (room < chunk.length) {
          chunks.splice(i, 0, chunk.subarray(room))
          controller.enqueue(chunk.subarray(0, room))
        } else controller.enqueue(chunk)
        sent += room
      },
      cancel() {
        aborted = true
      },
    })
    if (signal !== undefined) {
      signal.addEventListener('abort', () => {
        aborted = true
      })
    }
    return new Response(spec.status === 204 ? null : stream, {
      status: spec.status ?? 200,
      headers: spec.headers ?? { 'content-type': 'text/event-stream' },
    })
  }

  return { fetch: fetch as typeof globalThis.fetch, requests, aborted: () => aborted }
}

/** Every split of `body` into two chunks, at each byte offset (for mid-line and mid-UTF-8 cuts). */
export function everySplit(body: string): number[][] {
  const length = encoder.encode(body).length
  return Array.from({ length: length - 1 }, (_, i) => [i + 1])
}
