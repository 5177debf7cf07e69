import type { CallOptions } from '../../core/adapter.ts'
import type { Turn, UserTurn } from '../../core/conversation.ts'
import { utf8Length, type ConversationStore } from './conversation-store.ts'
import { NO_TURNS, ROOT, TurnTree, type BranchPlace } from './turn-tree.ts'
import {
  answerBytesOf,
  displayTurn,
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
  /** The title was given by a rename (`PATCH`): the first user text no longer makes it. */
  renamed?: true | undefined
  lastError?: { kind: string; message: string } | undefined
  /**
   * An answer (a model call, or server tools) was running when this was saved: found on start,
   * it was cut by a restart.
   */
  streaming: boolean
  /**
   * The last event of the last answer that ended (or loop that stopped to wait): its last events
   * are held in memory, not stored, so a restart numbers on from here (absent in conversations
   * stored before, whose events were all stored).
   */
  lastEventId?: number | undefined
  /** The tool loop of the last message, while it runs or waits (none in older conversations). */
  loop?: LoopState | undefined
  /** Tool steps this conversation made: each approval id is bound to its step's number. */
  toolSteps?: number | undefined
  /** The key of its approval ids when the relay has none of its own (made once, kept here). */
  approvalKey?: string | undefined
}

/**
 * What the row of a loop's last answer keeps (see `LoopState`): the loop ended with event `ended`,
 * and the metadata's time and title then, which its end wrote nowhere else.
 */
export type LoopEnd = { ended: number; updatedAt: string; title?: string | null | undefined }

/**
 * A message's loop (DESIGN §13), kept with the metadata while it runs or waits (as it starts, a
 * small one is kept with the message's turn instead, see `ConversationRecord.holdMeta`): what each
 * next model call of it sends, and the call in flight (what a restart retries).
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
  call?: LoopCall | undefined
  /**
   * The model call that made the loop's tool step, as `call` was (kept while the step's calls are
   * answered): a resume from before what the log keeps, while the step's server tools run, starts
   * from its `turn`. None in loops stored before it was kept.
   */
  madeStep?: LoopCall | undefined
}

/** The model call a loop has in flight (see `LoopState.call`). */
export type LoopCall = {
  firstId: number
  replaces: boolean
  retried: boolean
  /**
   * The stored turn it answers (its answer is stored under it); none in calls stored before
   * branches, which answer the last user or tool turn of the active path.
   */
  answers?: number | undefined
  /**
   * The first call of a regenerate or an edit: its answer becomes the active path only once
   * complete (stopped or failed, the path stays as it was).
   */
  version?: 'regenerate' | 'edit' | undefined
  /** An edit's: the index on the active path of the user turn it edits. */
  at?: number | undefined
}

/** What a message, a regenerate or an edit asks to be answered (DESIGN §9, §14). */
export type Ask =
  | { kind: 'message'; turn: Turn }
  | { kind: 'regenerate' }
  /** A new version of the user turn at index `at` of the active path. */
  | { kind: 'edit'; at: number; turn: UserTurn }

/** Turns and their bytes. */
export type Sizes = { turns: number; bytes: number }

/**
 * What an answer's call sends (`turns`: the stored turns up to the one it answers, read for it and
 * let go when it ends, and the new one), which stored turn it answers (a regenerate's; a new turn's
 * number is given once it is stored), the new turn to store once it is admitted (under `parent`;
 * an edit's off the active path until its answer completes), and the room to make for it
 * (`need`), counting on the versions it replaces (`replaced`) to be dropped when room runs out.
 */
export type AnswerPlan = {
  turns: readonly Turn[]
  answers: number | undefined
  added: { turn: Turn; json: string; bytes: number; parent: number; active: boolean } | undefined
  version: 'regenerate' | 'edit' | undefined
  replaces: boolean
  at: number | undefined
  need: Sizes
  replaced: Sizes
}

/** A queued message as the record keeps it: its number, and the bytes it is stored in. */
type QueuedItem = { item: number; bytes: number }

/**
 * A queued message as stored (DESIGN §14): its user turn (what `GET` and `queued` show), and the
 * body and `traceparent` it was posted with, which are sent as they came when its turn comes.
 */
export type QueuedMessage = { turn: UserTurn; body: string; traceparent?: string | undefined }

/**
 * What a conversation holds besides its events: its metadata, its turns and its queue. Turns are
 * a tree (DESIGN §14, see `TurnTree`), whose shape is held (numbers and sizes); the turns
 * themselves are read from the store when a request needs them (a message, a `GET`) and not kept,
 * but the last one of the active path at most (a tool turn is checked against it).
 */
export class ConversationRecord {
  #store: ConversationStore
  #meta: ConversationMeta | undefined
  #tree: TurnTree
  /** The last turn of the active path, once read; null when unknown. */
  #last: Turn | undefined | null = null
  #queued: QueuedItem[]
  #shape = 0

  constructor(store: ConversationStore) {
    this.#store = store
    const { meta, loop } = store.meta() as {
      meta?: ConversationMeta
      loop?: LoopState | LoopEnd
    }
    this.#meta = meta
    const stored = this.#meta !== undefined
    this.#tree = stored ? new TurnTree(store.turnNodes(), store.chosenChildren()) : new TurnTree()
    this.#queued = stored
      ? store.queue().map(({ item, json }) => ({ item, bytes: utf8Length(json) }))
      : []
    if (meta !== undefined && loop !== undefined) this.#meta = this.#kept(meta, loop)
  }

  /**
   * The metadata as what the newest turn row keeps left it (see `addTurn`), when the metadata
   * stored says nothing of that (its last event, or its loop, is from before). The start of a
   * message's loop: it was running when the host that held it stopped, and a restart finds it as
   * it finds any answer cut. A loop's end: its answer was stored, and the metadata was not.
   */
  #kept(meta: ConversationMeta, loop: LoopState | LoopEnd): ConversationMeta {
    const since = Math.max(meta.lastEventId ?? 0, meta.loop?.streamFrom ?? 0)
    if ('ended' in loop) {
      if (loop.ended <= since) return meta
      const { lastError: _cleared, loop: _over, ...rest } = meta
      const { ended, updatedAt, title } = loop
      return { ...rest, title, updatedAt, streaming: false, lastEventId: ended }
    }
    if (loop.streamFrom <= since) return meta
    const { lastError: _cleared, ...rest } = meta
    let title = meta.title
    if (title === null && loop.call?.answers !== undefined) {
      // Its turn gave the title, as it was stored: the conversation's first with text.
      const asked = this.turn(loop.call.answers)
      if (asked?.role === 'user') title = titleOf([asked])
    }
    return { ...rest, title, streaming: true, loop }
  }

  /** The metadata; undefined for a conversation never created, or deleted. */
  get meta(): ConversationMeta | undefined {
    return this.#meta
  }

  /** How many turns are stored, on every branch, and their bytes (their UTF-8 JSON, as stored). */
  get totals(): Readonly<Sizes> {
    return this.#tree.totals
  }

  /** The shape of the turns. */
  get tree(): Pick<
    TurnTree,
    'path' | 'pathTo' | 'siblingsOf' | 'branchOf' | 'parentOf' | 'bytesTo' | 'has'
  > {
    return this.#tree
  }

  /** Changes with every change of the tree: a request that read it can tell it changed since. */
  get shape(): number {
    return this.#shape
  }

  /**
   * The turns and bytes stored, but those off the active path that room can be made of (all but
   * those under `keep`).
   */
  keptSizes(keep: ReadonlySet<number> = NO_TURNS): Sizes {
    const inactive = this.#tree.inactiveTotals(keep)
    const { turns, bytes } = this.totals
    return { turns: turns - inactive.turns, bytes: bytes - inactive.bytes }
  }

  /** How many stored turns are held in memory (the last one at most). */
  get cachedTurns(): number {
    return this.#last === null || this.#last === undefined ? 0 : 1
  }

  saveMeta(meta: ConversationMeta): void {
    this.#meta = meta
    this.#store.saveMeta(meta)
  }

  /**
   * The metadata as it now is, not written: a loop's start or end, which the turn just stored
   * keeps (see `addTurn`); the next change the turn does not say writes it.
   */
  holdMeta(meta: ConversationMeta): void {
    this.#meta = meta
  }

  /** The number the next turn stored gets. */
  get nextSeq(): number {
    return this.#tree.nextSeq
  }

  /** The turns of the active path, items included, read for this call. */
  turns(): Turn[] {
    const path = this.#tree.path()
    return path.length === 0 ? [] : this.#store.turns(path)
  }

  /** The turns from the first to `seq`, items included, read for this call. */
  turnsTo(seq: number): Turn[] {
    return this.#store.turns(this.#tree.pathTo(seq))
  }

  /** Stored turn `seq`. */
  turn(seq: number): Turn | undefined {
    return this.#store.turn(seq)
  }

  /**
   * The conversation as a browser sees it (`GET`, a `reset`): the turns of its active path
   * without items, a turn with other versions saying where it is among them (`branch`), as JSON
   * (a `Conversation`). The stored JSON of each turn is sent as it is, its items taken out by the
   * store: nothing is parsed and encoded again. `end`: only the turns before it, as `slice` reads
   * it (-1: all but the last).
   */
  shownJson(end?: number): string {
    const whole = this.#tree.path()
    const path = end === undefined ? whole : whole.slice(0, end)
    const shown = path.length === 0 ? [] : this.#store.shownTurns(path, displayTurn)
    path.forEach((seq, i) => {
      const branch = this.#tree.branchOf(seq)
      if (branch !== undefined && shown[i] !== undefined)
        shown[i] = `${shown[i]!.slice(0, -1)},"branch":${JSON.stringify(branch)}}`
    })
    const turns = `[${shown.join(',')}]`
    const system = this.#meta?.system
    return system === undefined
      ? `{"turns":${turns}}`
      : `{"turns":${turns},"system":${JSON.stringify(system)}}`
  }

  /** A stored turn as a browser sees it: without items, and with its `branch` when it has one. */
  shown<T extends Turn>(turn: T, seq: number | undefined): T & { branch?: BranchPlace } {
    const shown = displayTurn(turn) as T
    const branch = seq === undefined ? undefined : this.#tree.branchOf(seq)
    return branch === undefined ? shown : { ...shown, branch }
  }

  /** The last turn of the active path. */
  lastTurn(): Turn | undefined {
    if (this.#last === null) {
      const last = this.#tree.path().at(-1)
      this.#last = last === undefined ? undefined : this.#store.turn(last)
    }
    return this.#last
  }

  /** The number of the last turn of the active path; undefined when none is stored. */
  lastSeq(): number | undefined {
    return this.#tree.path().at(-1)
  }

  /**
   * Stores a turn under `parent` (by default the last of the active path), with `json` and `bytes`
   * when the caller has them already; returns its number. `active`, it is on the active path from
   * now on (and so is every turn it follows); else the active path stays as it was. The first user
   * text becomes the list's title, saved with the metadata the answer saves next.
   */
  addTurn(
    turn: Turn,
    at: {
      parent?: number | undefined
      active?: boolean | undefined
      /**
       * The JSON of the loop a message's turn starts, or of the end of the loop its answer ends
       * (`LoopEnd`), stored with it (see `holdMeta`).
       */
      loop?: string | undefined
    } = {},
    json = JSON.stringify(turn),
    bytes = utf8Length(json),
  ): number {
    const tree = this.#tree
    const parent = at.parent ?? tree.path().at(-1) ?? ROOT
    const before = tree.activeChild(parent)
    const seq = tree.nextSeq
    this.#store.addTurn(seq, parent, json, at.loop)
    tree.add(seq, parent, bytes)
    this.#shape++
    if (at.active === false) {
      // The newest child is active unless another is chosen: the one before stays so.
      if (before !== undefined && !tree.isChosen(parent)) this.#choose(before)
    } else this.activate(seq)
    // Active, it is the last of the path (it has no children yet): the next message checks its
    // turn against it without reading it back.
    this.#last = at.active === false ? null : turn
    const meta = this.#meta
    if (meta !== undefined && meta.title === null && turn.role === 'user') {
      const title = titleOf([turn])
      if (title !== null) this.#meta = { ...meta, title }
    }
    return seq
  }

  /**
   * Makes the path to turn `seq` active (each turn on it its parent's active child); returns
   * whether anything changed. Past `seq`, the path goes on as it was last active under it. A new
   * first turn gives an unrenamed conversation its title.
   */
  activate(seq: number): boolean {
    const tree = this.#tree
    // Most often already so: a turn just stored under the last of the path.
    if (tree.isActive(seq)) return false
    let changed = false
    let first = false
    for (const node of tree.pathTo(seq)) {
      const parent = tree.parentOf(node)
      if (tree.activeChild(parent) === node) continue
      this.#choose(node)
      changed = true
      if (parent === ROOT) first = true
    }
    if (changed) {
      this.#last = null
      this.#shape++
    }
    const meta = this.#meta
    if (first && meta !== undefined && meta.renamed !== true) {
      const turn = this.#store.turn(tree.path()[0]!)
      const title = turn === undefined ? null : titleOf([turn])
      if (title !== null) this.#meta = { ...meta, title }
    }
    return changed
  }

  /** Deletes turn `seq` and every turn under it (an edit that failed). */
  removeTurn(seq: number): void {
    this.#store.dropTurns(this.#tree.remove(seq))
    this.#last = null
    this.#shape++
  }

  /** How many messages are queued. */
  get queueLength(): number {
    return this.#queued.length
  }

  /** The queued messages' numbers, in order. */
  get queued(): readonly number[] {
    return this.#queued.map(({ item }) => item)
  }

  /** The bytes of the queued messages, but `except`'s. */
  queuedBytes(except?: number): number {
    let bytes = 0
    for (const { item, bytes: size } of this.#queued) if (item !== except) bytes += size
    return bytes
  }

  /** The queued messages, each as its JSON, in order. */
  queue(): { item: number; json: string }[] {
    return this.#queued.length === 0 ? [] : this.#store.queue()
  }

  /** The queued messages' user turns, in order. */
  queuedTurns(): UserTurn[] {
    return this.queue().map(({ json }) => (JSON.parse(json) as QueuedMessage).turn)
  }

  /**
   * Every stored turn as a browser sees it (as JSON, see {@link shownJson}), on every branch, in
   * the order stored: its number, its parent's (null for a first turn), and whether it is on the
   * active path.
   */
  storedShown(): { seq: number; parent: number | null; active: boolean; json: string }[] {
    const nodes = this.#tree.nodes()
    if (nodes.length === 0) return []
    const shown = this.#store.shownTurns(
      nodes.map(({ seq }) => seq),
      displayTurn,
    )
    const onPath = new Set(this.#tree.path())
    return nodes.map(({ seq, parent }, i) => ({
      seq,
      parent: parent === ROOT ? null : parent,
      active: onPath.has(seq),
      json: shown[i]!,
    }))
  }

  /** Queues a message, given as its JSON; returns its number. */
  enqueue(json: string): number {
    const item = (this.#queued.at(-1)?.item ?? 0) + 1
    this.#store.enqueue(item, json)
    this.#queued.push({ item, bytes: utf8Length(json) })
    return item
  }

  /** Takes message `item` out of the queue. */
  dequeue(item: number): void {
    this.#store.dequeue(item)
    this.#queued = this.#queued.filter((queued) => queued.item !== item)
  }

  clearQueue(): void {
    this.#store.clearQueue()
    this.#queued = []
  }

  /**
   * What answering `ask` sends, if the conversation has room for it and an answer of up to
   * `answerTokens` (the versions off the active path may be dropped for it, and so may, once it is
   * complete, those a regenerate or an edit replaces; `queued` bytes wait in the queue); else why
   * not, as the status to answer with.
   */
  answerPlan(
    ask: Ask,
    answerTokens: number,
    sizes: ConversationSizeLimits,
    queued: number,
  ): AnswerPlan | { status: 409 | 413; message: string } {
    const path = this.#tree.path()
    let plan: AnswerPlan
    if (ask.kind === 'regenerate') {
      const turns = this.turns()
      const asked = turns.findLastIndex((turn) => turn.role === 'user')
      if (asked === -1) return { status: 409, message: 'there is no user turn to answer' }
      const replaced = this.#pathFrom(asked + 1)
      plan = {
        turns: turns.slice(0, asked + 1),
        answers: path[asked],
        added: undefined,
        version: replaced.turns > 0 ? 'regenerate' : undefined,
        replaces: replaced.turns > 0,
        at: undefined,
        need: { turns: 1, bytes: 0 },
        replaced,
      }
    } else {
      const json = JSON.stringify(ask.turn)
      const bytes = utf8Length(json)
      const edit = ask.kind === 'edit'
      const parent = edit ? (ask.at === 0 ? ROOT : path[ask.at - 1]!) : (path.at(-1) ?? ROOT)
      const before = edit ? this.#store.turns(path.slice(0, ask.at)) : this.turns()
      plan = {
        turns: [...before, ask.turn],
        answers: undefined,
        added: { turn: ask.turn, json, bytes, parent, active: !edit },
        version: edit ? 'edit' : undefined,
        replaces: false,
        at: edit ? ask.at : undefined,
        need: { turns: 2, bytes },
        replaced: edit ? this.#pathFrom(ask.at) : { turns: 0, bytes: 0 },
      }
    }
    const stored = this.keptSizes()
    const kept = {
      turns: stored.turns - plan.replaced.turns,
      bytes: stored.bytes - plan.replaced.bytes + queued,
    }
    const refusal = sizeRefusal(kept, { ...plan.need, answerTokens }, sizes)
    if (refusal !== null) return { status: 413, message: refusal.message }
    plan.need = { turns: plan.need.turns, bytes: plan.need.bytes + answerBytesOf(answerTokens) }
    return plan
  }

  /**
   * Drops the oldest versions off the active path (never a turn of it, nor one under `keep`)
   * while what is stored, the queue's `queued` bytes and `need` pass a size limit, counting
   * `credit` as freed already; returns the turns whose versions were dropped (their parents).
   */
  makeRoom(
    sizes: ConversationSizeLimits,
    queued: number,
    need: Sizes = { turns: 0, bytes: 0 },
    credit: Sizes = { turns: 0, bytes: 0 },
    keep: ReadonlySet<number> = NO_TURNS,
  ): number[] {
    const parents: number[] = []
    for (;;) {
      const { turns, bytes } = this.totals
      const over =
        turns + need.turns - credit.turns > sizes.turns ||
        bytes + queued + need.bytes - credit.bytes > sizes.bytes
      if (!over) return parents
      const oldest = this.#tree.oldestInactive(keep)
      if (oldest === undefined) return parents
      parents.push(this.#tree.parentOf(oldest))
      this.removeTurn(oldest)
    }
  }

  /** Forgets everything (the store was erased). */
  erase(): void {
    this.#meta = undefined
    this.#tree = new TurnTree()
    this.#last = null
    this.#queued = []
    this.#shape++
  }

  /** The turns of the active path from index `from` on, and their bytes. */
  #pathFrom(from: number): Sizes {
    const path = this.#tree.path()
    let bytes = 0
    for (const seq of path.slice(from)) bytes += this.#tree.bytesOf(seq)
    return { turns: Math.max(0, path.length - from), bytes }
  }

  /** Makes `child` its parent's active child, in the tree and in storage. */
  #choose(child: number): void {
    const { parent, chosen } = this.#tree.choose(child)
    this.#store.choose(parent, chosen)
  }
}
