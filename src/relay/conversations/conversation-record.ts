import type { CallOptions } from '../../core/adapter.ts'
import type { Turn } from '../../core/conversation.ts'
import { utf8Length, type ConversationStore } from './conversation-store.ts'
import {
  displayTurn,
  regenerateBase,
  sizeRefusal,
  titleOf,
  type ConversationSizeLimits,
} from './turn-rules.ts'

/** A conversation's metadata, one stored row. */
export type ConversationMeta = {
  id: string
  owner: string
  createdAt: string
  updatedAt: string
  system?: string | undefined
  /** The title of the list (undefined in conversations stored before it was kept here). */
  title?: string | null | undefined
  lastError?: { kind: string; message: string } | undefined
  /**
   * An answer (a model call, or server tools) was running when this was saved: found on start,
   * it was cut by a restart.
   */
  streaming: boolean
  /** The tool loop of the last message, while it runs or waits (none in older conversations). */
  loop?: LoopState | undefined
  /** Tool steps this conversation made: each approval id is bound to its step's number. */
  toolSteps?: number | undefined
  /** The key of its approval ids when the relay has none of its own (made once, kept here). */
  approvalKey?: string | undefined
}

/**
 * A message's loop (DESIGN §13), kept with the metadata while it runs or waits: what each next
 * model call of it sends, and the call in flight (what a restart retries).
 */
export type LoopState = {
  model: string
  /** The call options as the client sent them (its own tools; the server tools are added). */
  options: CallOptions
  /** The server tools the model may call, by name. */
  serverTools: string[]
  maxSteps: number
  /** Model calls this loop made, the one in flight included. */
  steps: number
  /**
   * The first event of the answer in flight or last run (the stream a client reads, from a
   * message's `turn` or a waiting loop's going on): after a restart, its answer goes on from there.
   */
  streamFrom: number
  /** The `traceparent` of the request that started it: each call's span continues it. */
  traceparent?: string | undefined
  /** How long its server tools ran, in ms (for `server-timing`). */
  toolMs?: number | undefined
  /**
   * The model call in flight: its events follow event `firstId` (its `turn`, or the event that
   * resumed the loop); `replaces`, a regenerate's; `retried` once a restart ran it again.
   */
  call?: { firstId: number; replaces: boolean; retried: boolean } | undefined
}

/**
 * What an answer's call sends (`turns`: every stored turn, read for it and let go when it ends,
 * and the new one), whether it replaces the last answer (a regenerate's), and the new turn to
 * store once it is admitted, with its JSON and bytes.
 */
export type AnswerPlan = {
  turns: readonly Turn[]
  replaces: boolean
  added: { turn: Turn; json: string; bytes: number } | undefined
}

/**
 * What a conversation holds besides its events: its metadata and its turns. Turns are read from
 * the store when a request needs them (a message, a `GET`) and not kept: the record holds how
 * many there are and their bytes, and the last turn at most (a tool turn is checked against it).
 */
export class ConversationRecord {
  #store: ConversationStore
  #meta: ConversationMeta | undefined
  /** How many turns are stored, and their bytes. */
  #totals: { turns: number; bytes: number }
  /** The last stored turn, once read; null when unknown. */
  #last: Turn | undefined | null = null

  constructor(store: ConversationStore) {
    this.#store = store
    this.#meta = store.meta() as ConversationMeta | undefined
    this.#totals = this.#meta === undefined ? { turns: 0, bytes: 0 } : store.turnTotals()
  }

  /** The metadata; undefined for a conversation never created, or deleted. */
  get meta(): ConversationMeta | undefined {
    return this.#meta
  }

  /** How many turns are stored, and their bytes (their UTF-8 JSON, as stored). */
  get totals(): { readonly turns: number; readonly bytes: number } {
    return this.#totals
  }

  /** How many stored turns are held in memory (the last one at most). */
  get cachedTurns(): number {
    return this.#last === null || this.#last === undefined ? 0 : 1
  }

  saveMeta(meta: ConversationMeta): void {
    this.#meta = meta
    this.#store.saveMeta(meta)
  }

  /** Every stored turn, items included, read for this call. */
  turns(): Turn[] {
    return this.#totals.turns === 0 ? [] : this.#store.turns()
  }

  /**
   * The conversation as a browser sees it (`GET`, a `reset`): its turns without items, as JSON
   * (a `Conversation`). The stored JSON of each turn is sent as it is, its items taken out by
   * the store: nothing is parsed and encoded again.
   */
  shownJson(): string {
    const turns = this.#totals.turns === 0 ? '[]' : this.#store.shownTurnsJson(displayTurn)
    const system = this.#meta?.system
    return system === undefined
      ? `{"turns":${turns}}`
      : `{"turns":${turns},"system":${JSON.stringify(system)}}`
  }

  lastTurn(): Turn | undefined {
    if (this.#last === null)
      this.#last = this.#totals.turns === 0 ? undefined : this.#store.lastTurn()
    return this.#last
  }

  /** The bytes the last stored turn counts for; 0 when none is. */
  lastTurnBytes(): number {
    const last = this.lastTurn()
    return last === undefined ? 0 : utf8Length(JSON.stringify(last))
  }

  /**
   * Stores a turn after the others (`json` and `bytes` when the caller has them already). The
   * first user text becomes the list's title, saved with the metadata the answer saves next.
   */
  addTurn(turn: Turn, json = JSON.stringify(turn), bytes = utf8Length(json)): void {
    this.#store.addTurn(this.#totals.turns, json)
    this.#totals = { turns: this.#totals.turns + 1, bytes: this.#totals.bytes + bytes }
    this.#last = turn
    const meta = this.#meta
    if (meta !== undefined && meta.title === null && turn.role === 'user') {
      const title = titleOf([turn])
      if (title !== null) this.#meta = { ...meta, title }
    }
  }

  dropLastTurn(): void {
    const turns = this.#totals.turns - 1
    const bytes = this.lastTurnBytes()
    this.#store.dropTurn(turns)
    this.#totals = { turns, bytes: this.#totals.bytes - bytes }
    this.#last = null
  }

  /**
   * What answering `turn` (undefined: a regenerate of the last answer) sends, if the conversation
   * has room for it and an answer of up to `answerTokens` (a regenerate's replaced answer makes
   * room); else why not, as the status to answer with.
   */
  answerPlan(
    turn: Turn | undefined,
    answerTokens: number,
    sizes: ConversationSizeLimits,
  ): AnswerPlan | { status: 409 | 413; message: string } {
    const totals = this.#totals
    if (turn === undefined) {
      const regenerate = regenerateBase(this.turns())
      if (regenerate === null) {
        return { status: 409, message: 'there is no user or tool turn to answer' }
      }
      const { turns, replaces } = regenerate
      const kept = {
        turns: totals.turns - (replaces ? 1 : 0),
        bytes: totals.bytes - (replaces ? this.lastTurnBytes() : 0),
      }
      const refusal = sizeRefusal(kept, { turns: 1, bytes: 0, answerTokens }, sizes)
      if (refusal !== null) return { status: 413, message: refusal.message }
      return { turns, replaces, added: undefined }
    }
    const json = JSON.stringify(turn)
    const bytes = utf8Length(json)
    // Room for the turn and its answer.
    const refusal = sizeRefusal(totals, { turns: 2, bytes, answerTokens }, sizes)
    if (refusal !== null) return { status: 413, message: refusal.message }
    return { turns: [...this.turns(), turn], replaces: false, added: { turn, json, bytes } }
  }

  /** Forgets everything (the store was erased). */
  erase(): void {
    this.#meta = undefined
    this.#totals = { turns: 0, bytes: 0 }
    this.#last = null
  }
}
