/** Options of {@link createFanOut}. */
export type FanOutOptions = {
  /** A `: ping` comment goes to every subscriber this often (0: never). */
  heartbeatMs: number
  /** A subscriber with this many bytes unread is dropped; it can resume with `Last-Event-ID`. */
  maxUnreadBytes?: number | undefined
  /**
   * Frames queued past this many characters are sent at once rather than on the next turn of the
   * event loop: an adapter that yields without waiting would otherwise queue its whole answer.
   * @defaultValue 64 KiB
   */
  maxQueuedChars?: number | undefined
}

/** Options of one subscription. */
export type SubscribeOptions = {
  /** Receives live frames after its replay (else it ends with the replay). */
  live: boolean
  /** Stays open when an answer ends, for the next ones (`?follow=true`). */
  follow: boolean
}

/** The live side of a conversation's event stream: every subscriber gets the same bytes. */
export type FanOut = {
  /** Queues a frame for every subscriber; frames that arrive together leave as one chunk. */
  publish(frame: string): void
  /** Sends what is queued now: before a new subscriber's replay, and before an answer ends. */
  flush(): void
  /** A stream that sends `replay`, then, when `live`, every frame published after it. */
  subscribe(replay: string, options: SubscribeOptions): ReadableStream<Uint8Array>
  /** Ends the streams of subscribers that do not follow (their answer has ended). */
  endAnswer(): void
  /** Ends every stream. */
  close(): void
  /** How many subscribers are live. */
  readonly size: number
  /** Characters published and not yet sent. */
  readonly queuedChars: number
}

type Subscriber = { controller: ReadableStreamDefaultController<Uint8Array>; follow: boolean }

const utf8 = new TextEncoder()
const PING = ': ping\n\n'

/**
 * Fans frames out to subscribers. A frame is encoded once per chunk and subscriber, never held per
 * subscriber beyond what it has not read, and a subscriber that falls `maxUnreadBytes` behind is
 * dropped rather than let it fill memory. One heartbeat timer serves every subscriber, only while
 * there is one; proxies close connections silent for 100 s.
 */
export function createFanOut(options: FanOutOptions): FanOut {
  const maxUnread = options.maxUnreadBytes ?? 8 * 1024 * 1024
  const maxQueued = options.maxQueuedChars ?? 64 * 1024
  const subscribers = new Set<Subscriber>()
  let out = ''
  let armed = false
  let heartbeat: ReturnType<typeof setInterval> | undefined

  const end = (subscriber: Subscriber) => {
    subscribers.delete(subscriber)
    try {
      subscriber.controller.close()
    } catch {
      // Already closed, or cancelled by its client.
    }
    if (subscribers.size === 0) stopHeartbeat()
  }
  const send = (subscriber: Subscriber, text: string) => {
    try {
      // A fresh buffer for each: a runtime may take ownership of what it is given.
      subscriber.controller.enqueue(utf8.encode(text))
      if ((subscriber.controller.desiredSize ?? 0) < -maxUnread) end(subscriber)
    } catch {
      // Its client left.
      subscribers.delete(subscriber)
    }
  }
  const flush = () => {
    armed = false
    if (out === '') return
    const text = out
    out = ''
    for (const subscriber of subscribers) send(subscriber, text)
  }
  const startHeartbeat = () => {
    if (heartbeat !== undefined || !(options.heartbeatMs > 0)) return
    heartbeat = setInterval(() => {
      flush()
      for (const subscriber of subscribers) send(subscriber, PING)
    }, options.heartbeatMs)
  }
  const stopHeartbeat = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat)
    heartbeat = undefined
  }

  return {
    publish(frame) {
      if (subscribers.size === 0) return
      out += frame
      if (out.length >= maxQueued) return flush()
      if (!armed) {
        armed = true
        setTimeout(flush, 0)
      }
    },
    flush,
    subscribe(replay, { live, follow }) {
      // What was published before goes out first, to those already subscribed, not to this one.
      flush()
      let subscriber: Subscriber
      return new ReadableStream<Uint8Array>(
        {
          start(controller) {
            subscriber = { controller, follow }
            if (replay !== '') controller.enqueue(utf8.encode(replay))
            if (!live) return controller.close()
            subscribers.add(subscriber)
            startHeartbeat()
          },
          cancel() {
            subscribers.delete(subscriber)
            if (subscribers.size === 0) stopHeartbeat()
          },
        },
        // Counts unread bytes (desiredSize is minus what is queued).
        { highWaterMark: 0, size: (chunk) => chunk.byteLength },
      )
    },
    endAnswer() {
      flush()
      for (const subscriber of subscribers) if (!subscriber.follow) end(subscriber)
    },
    close() {
      flush()
      for (const subscriber of subscribers) end(subscriber)
    },
    get size() {
      return subscribers.size
    },
    get queuedChars() {
      return out.length
    },
  }
}
