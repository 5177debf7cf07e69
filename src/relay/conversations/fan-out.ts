import type { ReconnectReason, WireConversationEvents } from '../../core/wire.ts'

/** What a subscriber catches up from: the conversation's logged frames, a page at a time. */
export type CatchUpSource = {
  /**
   * The frames with an id above `after` and at most `until` (the last logged when undefined), as
   * one text of at most a page, and the id of the last of them (`after` when there are none).
   */
  read(after: number, until: number | undefined): { text: string; lastId: number }
  /** The id of the last event logged (and published). */
  lastId(): number
  /**
   * The id of the last event taken (or skipped, see `skip`): the live subscribers were sent every
   * event up to it, and are sent those after it with their next chunk.
   */
  taken(): number
  /** The frames logged since the last `take`, as one text: what the live subscribers are sent next. */
  take(): string
  /** Marks what was logged since the last `take` as taken, when no one is there to send it to. */
  skip(): void
}

/**
 * A follower on a socket the runtime holds (a Durable Object's hibernatable WebSocket): it gets
 * every chunk of frames as one message, and keeps no state here, so the object may sleep while
 * it is open.
 */
export type FollowerSocket = {
  send(message: string): void
  close(code?: number, reason?: string): void
}

/** Options of {@link createFanOut}. */
export type FanOutOptions = {
  /** A `: ping` comment goes to every live subscriber this often (0: never). */
  heartbeatMs: number
  /** Where subscribers that start behind catch up from. */
  source: CatchUpSource
  /** The followers on sockets, live ones all (they catch up as they join, see `join`). */
  sockets?: (() => readonly FollowerSocket[]) | undefined
  /**
   * A subscriber with this many bytes unread is dropped, its stream ended with a `reconnect`
   * event; it can resume with `Last-Event-ID`.
   */
  maxUnreadBytes?: number | undefined
  /**
   * Bytes unread by all subscribers together: past it, the one furthest behind is dropped (as
   * above), then the next, so that readers who stop reading never hold more than this.
   * @defaultValue 16 MiB
   */
  maxUnreadTotalBytes?: number | undefined
  /**
   * Events published past this many characters (as `publish` counts them) are sent at once rather
   * than on the next turn of the event loop: an adapter that yields without waiting would
   * otherwise hold its whole answer.
   * @defaultValue 64 KiB
   */
  maxQueuedChars?: number | undefined
}

/** Options of one subscription. */
export type SubscribeOptions = {
  /** It gets the events after this id: those logged first, then live ones. */
  after: number
  /**
   * Ends after this id (a replay of what is logged). Undefined: receives live events until the
   * answer ends, or, with `follow`, until the stream is closed.
   */
  until?: number | undefined
  /** Stays open when an answer ends, for the next ones (`?follow=true`). */
  follow: boolean
  /** A frame sent before any other (the `reset` of a resume from before the log). */
  first?: string | undefined
}

/** The live side of a conversation's event stream: every subscriber gets the same bytes. */
export type FanOut = {
  /**
   * Says that an event was logged, holding `chars` characters there: every live subscriber gets
   * it with the events logged with it, as one chunk of frames (taken from the source).
   */
  publish(chars: number): void
  /** Sends what was published and not yet sent: before a subscriber joins, and before an answer ends. */
  flush(): void
  /**
   * A socket follower joins after event `after`, `first` before the rest: what was published goes
   * out to the others first, then `accept` makes it one of `sockets` and it is sent the log after
   * `after` at once (at most what the log keeps: one answer), all in one turn, so no event falls
   * between its catch-up and the live ones.
   */
  join(accept: () => FollowerSocket, after: number, first?: string): void
  /** The sockets changed (one closed): counted again when next needed. */
  socketsChanged(): void
  /**
   * A stream of the events after `after`: it catches up from the log a page at a time, as its
   * client reads (so a long replay is never one string), then joins the live subscribers.
   */
  subscribe(options: SubscribeOptions): ReadableStream<Uint8Array>
  /** The answer ended with event `lastId`: subscribers that do not follow end after it. */
  endAnswer(lastId: number): void
  /** Ends every stream, each with a `reconnect` event (DESIGN §9). */
  close(): void
  /**
   * The log no longer holds the events before `id`: streams still catching up from before it end
   * with a `reconnect` event (their clients resume, and get a `reset`).
   */
  trimmed(id: number): void
  /** How many subscribers are live (caught up). */
  readonly size: number
  /** How many streams are open: live, catching up, and on sockets. */
  readonly readers: number
  /** Characters published and not yet sent (held by the source). */
  readonly queuedChars: number
}

/** The last frame of a stream the relay ends early (DESIGN §9); it has no id of its own. */
export function reconnectFrame(reason: ReconnectReason, lastEventId: number): string {
  const data = { reason, lastEventId } satisfies WireConversationEvents['reconnect']
  return `event: reconnect\ndata: ${JSON.stringify(data)}\n\n`
}

type Subscriber = {
  controller: ReadableStreamDefaultController<Uint8Array>
  follow: boolean
  until: number | undefined
  /** The id of the last event it was sent (from the log while catching up, then live). */
  cursor: number
}

const utf8 = new TextEncoder()
const PING = ': ping\n\n'
/**
 * A subscriber's stream counts unread bytes (desiredSize is minus what is queued), and pulls only
 * when read.
 */
const UNREAD_BYTES: QueuingStrategy<Uint8Array> = {
  highWaterMark: 0,
  size: (chunk) => chunk.byteLength,
}

/**
 * Fans frames out to subscribers. A subscriber that starts behind reads the log (storage, then
 * memory) a page per pull, paced by its client, and joins the live ones once it has caught up;
 * all of it is synchronous, so no event falls between its catch-up and the live frames, and none
 * is sent twice. A frame is encoded once per chunk and subscriber, never held per subscriber
 * beyond what it has not read, and a live subscriber that falls `maxUnreadBytes` behind is dropped
 * rather than let it fill memory. One heartbeat timer serves every subscriber, only while there is
 * one; proxies close connections silent for 100 s.
 */
export function createFanOut(options: FanOutOptions): FanOut {
  const { source } = options
  const maxUnread = options.maxUnreadBytes ?? 8 * 1024 * 1024
  const maxUnreadTotal = options.maxUnreadTotalBytes ?? 16 * 1024 * 1024
  const maxQueued = options.maxQueuedChars ?? 64 * 1024
  const subscribers = new Set<Subscriber>()
  const catchingUp = new Set<Subscriber>()
  const sockets = options.sockets ?? (() => [])
  /** How many sockets follow: read from the runtime when unknown (at start, after one closed). */
  let socketCount: number | undefined
  const countSockets = () => (socketCount ??= sockets().length)
  const listening = () => subscribers.size > 0 || countSockets() > 0
  /** Sends to every socket; one whose client left is the runtime's to close. */
  const toSockets = (text: string) => {
    for (const socket of sockets()) {
      try {
        socket.send(text)
      } catch {
        socketCount = undefined
      }
    }
  }
  /** Characters published since the last flush. */
  let queued = 0
  let armed = false
  let heartbeat: ReturnType<typeof setInterval> | undefined

  const close = (subscriber: Subscriber) => {
    try {
      subscriber.controller.close()
    } catch {
      // Already closed, or cancelled by its client.
    }
  }
  const end = (subscriber: Subscriber) => {
    subscribers.delete(subscriber)
    catchingUp.delete(subscriber)
    close(subscriber)
    if (subscribers.size === 0) stopHeartbeat()
  }
  /** Ends a stream before its answer's end, saying so: its client resumes after `lastEventId`. */
  const drop = (subscriber: Subscriber, reason: ReconnectReason, lastEventId: number) => {
    try {
      subscriber.controller.enqueue(utf8.encode(reconnectFrame(reason, lastEventId)))
    } catch {
      // Its client left.
    }
    end(subscriber)
  }
  /** Sends `text`, which ends with event `through` (none for a ping), unless it is too far behind. */
  const send = (subscriber: Subscriber, text: string, through?: number) => {
    // Checked before, not after: the chunk that ends an answer still goes to a subscriber not yet
    // behind, which then ends as every other does, with no reconnect.
    if ((subscriber.controller.desiredSize ?? 0) < -maxUnread) {
      return drop(subscriber, 'behind', subscriber.cursor)
    }
    try {
      // A fresh buffer for each: a runtime may take ownership of what it is given.
      subscriber.controller.enqueue(utf8.encode(text))
      if (through !== undefined) subscriber.cursor = through
    } catch {
      // Its client left.
      subscribers.delete(subscriber)
    }
  }
  const flush = () => {
    armed = false
    queued = 0
    // Marked taken even with no subscriber: what was published before one joins, it reads from
    // the log.
    if (!listening()) return source.skip()
    const text = source.take()
    if (text === '') return
    if (countSockets() > 0) toSockets(text)
    const through = source.lastId()
    // Before the chunk, as each subscriber's own bound: the one that ends an answer still goes
    // to every subscriber left.
    boundTotal()
    for (const subscriber of subscribers) send(subscriber, text, through)
  }
  const unread = (subscriber: Subscriber) => -(subscriber.controller.desiredSize ?? 0)
  /** Drops the subscribers furthest behind until all of them hold at most `maxUnreadTotal`. */
  const boundTotal = () => {
    let total = 0
    for (const subscriber of subscribers) total += unread(subscriber)
    while (total > maxUnreadTotal) {
      let furthest: Subscriber | undefined
      for (const subscriber of subscribers) {
        if (furthest === undefined || unread(subscriber) > unread(furthest)) furthest = subscriber
      }
      if (furthest === undefined) return
      total -= unread(furthest)
      drop(furthest, 'behind', furthest.cursor)
    }
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
  /** Sends the next page of the log, or, caught up, ends the replay or joins the live ones. */
  const catchUp = (subscriber: Subscriber) => {
    const { text, lastId } = source.read(subscriber.cursor, subscriber.until)
    if (text !== '') {
      subscriber.cursor = lastId
      subscriber.controller.enqueue(utf8.encode(text))
      return
    }
    catchingUp.delete(subscriber)
    if (subscriber.until !== undefined) return close(subscriber)
    // What was published before it caught up went out to the others, not to it: it read it.
    flush()
    goLive(subscriber)
  }
  /** Sends what was published, and what follows it in this turn of the event loop, on the next. */
  const arm = () => {
    if (armed) return
    armed = true
    setTimeout(flush, 0)
  }
  /** Makes a subscriber live: it gets the events after its cursor with the others' next chunk. */
  const goLive = (subscriber: Subscriber) => {
    subscribers.add(subscriber)
    startHeartbeat()
    if (source.lastId() > subscriber.cursor) arm()
  }

  return {
    publish(chars) {
      // Armed, someone listens (the usual case within an answer): no need to ask.
      if (!armed && !listening()) return
      queued += chars
      if (queued >= maxQueued) return flush()
      arm()
    },
    flush,
    join(accept, after, first) {
      flush()
      const socket = accept()
      socketCount = undefined
      let text = first ?? ''
      for (let cursor = after; ;) {
        const page = source.read(cursor, undefined)
        if (page.text === '') break
        text += page.text
        cursor = page.lastId
      }
      if (text !== '') socket.send(text)
    },
    socketsChanged() {
      socketCount = undefined
    },
    subscribe({ after, until, follow, first }) {
      let subscriber: Subscriber
      // From where the live subscribers are (a message's own stream, from its `turn`), it is one
      // of them at once and reads nothing from the log: what was logged since goes out with their
      // next chunk, so a `turn` and the first events of its answer make one chunk. It is sent
      // chunks as they are published, never pulled; one that catches up reads a page per pull.
      const live = until === undefined && after === source.taken()
      return new ReadableStream<Uint8Array>(
        {
          start(controller) {
            if (first !== undefined) controller.enqueue(utf8.encode(first))
            subscriber = { controller, follow, until, cursor: after }
            if (live) return goLive(subscriber)
            catchingUp.add(subscriber)
            // The first page at once (often all there is: the events of the answer in flight).
            catchUp(subscriber)
            if (catchingUp.has(subscriber) && subscriber.cursor >= (until ?? source.lastId())) {
              catchUp(subscriber)
            }
          },
          ...(live
            ? {}
            : {
                pull() {
                  if (catchingUp.has(subscriber)) catchUp(subscriber)
                },
              }),
          cancel() {
            subscribers.delete(subscriber)
            catchingUp.delete(subscriber)
            if (subscribers.size === 0) stopHeartbeat()
          },
        },
        UNREAD_BYTES,
      )
    },
    endAnswer(lastId) {
      flush()
      for (const subscriber of subscribers) if (!subscriber.follow) end(subscriber)
      for (const subscriber of catchingUp) {
        if (!subscriber.follow) subscriber.until ??= lastId
      }
    },
    close() {
      flush()
      for (const subscriber of [...subscribers, ...catchingUp]) {
        drop(subscriber, 'closed', subscriber.cursor)
      }
      if (countSockets() === 0) return
      const frame = reconnectFrame('closed', source.lastId())
      for (const socket of sockets()) {
        try {
          socket.send(frame)
          socket.close(1000, 'closed')
        } catch {
          // Its client left.
        }
      }
      socketCount = undefined
    },
    trimmed(id) {
      for (const subscriber of catchingUp) {
        if (subscriber.cursor < id - 1) drop(subscriber, 'behind', subscriber.cursor)
      }
    },
    get size() {
      return subscribers.size
    },
    get readers() {
      return subscribers.size + catchingUp.size + countSockets()
    },
    get queuedChars() {
      return queued
    },
  }
}
