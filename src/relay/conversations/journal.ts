import { assertNever } from '../../core/assert-never.ts'
import type { AssistantTurn, ToolResult, Turn, UserTurn } from '../../core/conversation.ts'
import type { WireApproval, WireConversationEvents, WireError } from '../../core/wire.ts'
import { relayData, type StreamDelta } from '../dialects.ts'
import type { ConversationStore } from './conversation-store.ts'
import {
  createEventLog,
  framesBetween,
  MAX_BATCH_EVENTS,
  splitFrames,
  type EventLog,
} from './event-log.ts'
import { createFanOut, type FanOut, type FollowerSocket } from './fan-out.ts'
import { wireToolResult } from './tool-step.ts'

/**
 * An event of a conversation's stream: the relay's (DESIGN §5), the `turn` each answer answers, and
 * those of its tool loop (DESIGN §13).
 */
export type ConversationEvent =
  | StreamDelta
  | { type: 'done'; turn: AssistantTurn }
  | { type: 'error'; error: WireError }
  /** `at`: an edit's, the index on the active path its new version of a user turn takes. */
  | { type: 'turn'; turn: Turn; replaces: boolean; at?: number | undefined }
  | { type: 'tool-approval'; approval: WireApproval }
  | { type: 'tool-result'; result: ToolResult }
  | { type: 'interrupted'; retried: boolean }
  /** The conversation as it is now (its shown turns' JSON), after a change no other event says. */
  | { type: 'reset'; conversation: string; streaming: boolean }
  /** A message was queued (DESIGN §14), at `position` (from 1). */
  | { type: 'queued'; turn: UserTurn; position: number }
  /** The queue as it now is, after a change other than a message queued (its JSON array). */
  | { type: 'queue'; queue: string }

/** What a conversation's journal holds, for a host's `stats()`. */
export type JournalStats = {
  lastEventId: number
  firstKeptEventId: number
  heldEvents: number
  heldChars: number
  peakHeldChars: number
  peakReplayChars: number
}

/**
 * A conversation's events: numbered, logged (held in memory, and written to the store in batches
 * while an answer runs long, see `createEventLog`), sent to every subscriber (see `createFanOut`),
 * and read back a page at a time for a subscriber that starts behind. When an answer ends, its
 * last events stay in memory only: the turns it stored say what they said, its `done` included,
 * and a restart numbers on from the id the metadata keeps (`lastEventId`). The events before it
 * are forgotten then: the log begins at `firstKept`, and a resume from before it gets a `reset`.
 */
export class Journal {
  #store: ConversationStore
  #log: EventLog
  #fanOut: FanOut
  #firstKept: number
  /**
   * The first event that may be stored (undefined: none is): whether an answer's end has stored
   * events to delete, which most ends do not.
   */
  #storedFrom: number | undefined
  /** The most characters the logs an erase replaced held at once (`EventLog.peakHeldChars`). */
  #peakHeldChars = 0
  /** The most characters of frames one page of a replay held. */
  #peakReplayChars = 0

  /**
   * `interrupted`: an answer was running when the process holding the log stopped. Events held in
   * memory were lost, but clients may have seen their ids, so numbering moves past every id that
   * could have been sent. `lastEventId`: the last event of the last answer that ended (as the
   * metadata keeps it), whose last events were held, not written: numbering goes on after it, and
   * the log holds nothing before it (a resume from there gets a `reset`).
   */
  constructor(
    store: ConversationStore,
    options: {
      heartbeatMs: number
      interrupted: boolean
      lastEventId?: number | undefined
      sockets?: (() => readonly FollowerSocket[]) | undefined
    },
  ) {
    const { heartbeatMs, interrupted } = options
    this.#store = store
    this.#fanOut = createFanOut({
      heartbeatMs,
      sockets: options.sockets,
      source: {
        read: (after, until) => this.#read(after, until),
        lastId: () => this.#log.lastId,
        taken: () => this.#log.takenId,
        take: () => this.#log.take(),
        skip: () => this.#log.skip(),
      },
    })
    const { first, last: stored } = store.storedEventIds()
    const ended = options.lastEventId ?? 0
    this.#log = this.#newLog(Math.max(stored, ended) + (interrupted ? MAX_BATCH_EVENTS : 0))
    this.#storedFrom = first
    // What is stored of an answer whose last events were not is not a whole answer.
    this.#firstKept = ended > stored ? this.#log.lastId + 1 : (this.#storedFrom ?? 1)
  }

  /** The id of the last event logged. */
  get lastId(): number {
    return this.#log.lastId
  }

  /** The first event the log still holds. */
  get firstKept(): number {
    return this.#firstKept
  }

  /** How many streams are open. */
  get readers(): number {
    return this.#fanOut.readers
  }

  stats(): JournalStats {
    return {
      lastEventId: this.#log.lastId,
      firstKeptEventId: this.#firstKept,
      heldEvents: this.#log.heldEvents,
      heldChars: this.#log.heldChars,
      peakHeldChars: Math.max(this.#peakHeldChars, this.#log.peakHeldChars),
      peakReplayChars: this.#peakReplayChars,
    }
  }

  /** Logs one event and sends it to every subscriber. */
  publish(event: ConversationEvent): void {
    this.#fanOut.publish(this.append(event))
  }

  /** Logs one event without sending it (no one can be listening); returns the characters held. */
  append(event: ConversationEvent): number {
    switch (event.type) {
      // An answer's deltas first: nearly every event is one.
      case 'text':
      case 'thinking':
      case 'tool-call':
        return this.#log.append(event.type, relayData.delta(event))
      case 'turn': {
        const data: WireConversationEvents['turn'] = event.replaces
          ? { turn: event.turn, replaces: true }
          : { turn: event.turn }
        if (event.at !== undefined) data.at = event.at
        return this.#log.append('turn', JSON.stringify(data))
      }
      case 'done':
        return this.#log.append('done', relayData.done(event.turn))
      case 'error':
        return this.#log.append('error', relayData.error(event.error))
      case 'tool-approval': {
        const { approvalId, callId, name, input, expiresAt } = event.approval
        const data: WireConversationEvents['tool-approval'] = {
          approvalId,
          callId,
          name,
          input,
          expiresAt,
        }
        return this.#log.append('tool-approval', JSON.stringify(data))
      }
      case 'tool-result':
        return this.#log.append('tool-result', JSON.stringify(wireToolResult(event.result)))
      case 'interrupted': {
        const data: WireConversationEvents['interrupted'] = { retried: event.retried }
        return this.#log.append('interrupted', JSON.stringify(data))
      }
      case 'reset':
        // The stored turns' JSON goes in as it is, as a resume's `reset` has it.
        return this.#log.append(
          'reset',
          `{"conversation":${event.conversation},"streaming":${String(event.streaming)}}`,
        )
      case 'queued': {
        const data: WireConversationEvents['queued'] = {
          turn: event.turn,
          position: event.position,
        }
        return this.#log.append('queued', JSON.stringify(data))
      }
      case 'queue':
        // The queued turns' JSON as the record gives it.
        return this.#log.append('queue', `{"queue":${event.queue}}`)
      default:
        return assertNever(event)
    }
  }

  /** Writes what is held. */
  flush(): void {
    this.#log.flush()
  }

  /**
   * The answer that started with event `firstId` ended: subscribers that do not follow end after
   * its last event, which stays held (unwritten, see the class), and the events before it are
   * forgotten (deleted where stored). Readers still catching up from before it are told to
   * reconnect, and get a `reset`.
   */
  endAnswer(firstId: number): void {
    this.#fanOut.endAnswer(this.#log.lastId)
    if (firstId <= this.#firstKept) return
    if (this.#storedFrom !== undefined && this.#storedFrom < firstId) {
      this.#store.dropEventsBefore(firstId)
      this.#storedFrom = this.#store.storedEventIds().first
    }
    this.#log.dropBefore(firstId)
    this.#firstKept = firstId
    this.#fanOut.trimmed(firstId)
  }

  /**
   * A stream of the events after `after`: what is logged, as its client reads, then live ones
   * (until `until`, or with `follow` until it is closed); `first` before them.
   */
  subscribe(after: number, until: number | undefined, follow: boolean, first?: string) {
    return this.#fanOut.subscribe({ after, until, follow, first })
  }

  /** A socket follower joins after `after` (see `FanOut.join`). */
  join(accept: () => FollowerSocket, after: number, first?: string): void {
    this.#fanOut.join(accept, after, first)
  }

  /** A socket follower left. */
  socketsChanged(): void {
    this.#fanOut.socketsChanged()
  }

  /** Ends every stream, each with a `reconnect`, and starts over empty (the store was erased). */
  erase(): void {
    this.#fanOut.close()
    this.#peakHeldChars = Math.max(this.#peakHeldChars, this.#log.peakHeldChars)
    this.#log = this.#newLog(0)
    this.#firstKept = 1
    this.#storedFrom = undefined
  }

  /**
   * The frames from event `id` on (to `until`, when given): the stored batches, read a few at a
   * time, then those held.
   */
  *framesFrom(id: number, until?: number): Generator<string> {
    for (const batch of this.#store.batchesFrom(id)) {
      if (until !== undefined && batch.firstId > until) return
      yield* splitFrames(framesBetween(batch, id - 1, until))
    }
    const held = this.#log.held(id - 1, until)
    if (held !== null) yield* splitFrames(held.text)
  }

  /**
   * One page of a catch-up: the frames after `after` (up to `until`), from the stored batches a
   * few rows at a time, else from those held in memory.
   */
  #read(after: number, until: number | undefined): { text: string; lastId: number } {
    const end = Math.min(until ?? Number.MAX_SAFE_INTEGER, this.#log.lastId)
    if (after >= end) return { text: '', lastId: after }
    // The stored batches first, a few rows a page; the events held once those are read, their
    // frames made for this range only.
    const firstHeld = this.#log.lastId - this.#log.heldEvents + 1
    let text = ''
    let lastId = after
    if (after < firstHeld - 1) {
      for (const batch of this.#store.batchesAfter(after)) {
        if (batch.firstId > end) break
        text += framesBetween(batch, after, end)
        lastId = Math.min(batch.lastId, end)
      }
    }
    const held = text === '' ? this.#log.held(after, end) : null
    if (held !== null) ({ text, lastId } = held)
    this.#peakReplayChars = Math.max(this.#peakReplayChars, text.length)
    return { text, lastId }
  }

  #newLog(lastId: number): EventLog {
    return createEventLog({
      lastId,
      // What subscribers have not been sent goes out before its batch is written.
      beforeWrite: () => this.#fanOut.flush(),
      write: (batch) => {
        this.#store.addEvents(batch)
        this.#storedFrom ??= batch.firstId
      },
    })
  }
}
