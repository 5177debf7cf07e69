import type { Turn } from '../../core/conversation.ts'
import type { Registry } from '../../core/registry.ts'
import type {
  WireConversationEvents,
  WireConversationRead,
  WireExportedConversation,
} from '../../core/wire.ts'
import { modelFilter } from '../model-filter.ts'
import { resolveLimits, type RelayLimits, type ResolvedLimits } from '../options.ts'
import type { RateLimiter } from '../rate-limit.ts'
import { errorResponse, jsonResponse, SSE_HEADERS } from '../responses.ts'
import { callStart, type TracingOptions } from '../tracing.ts'
import type { Validation } from '../validate-json.ts'
import { AnswerLoop } from './answer-loop.ts'
import { APPROVAL_ID } from './approval-ids.ts'
import {
  ConversationRecord,
  type Ask,
  type ConversationMeta,
  type LoopCall,
} from './conversation-record.ts'
import { createConversationStore, type SqlHandle } from './conversation-store.ts'
import { parseLastEventId } from './event-log.ts'
import { exportResponse } from './export-all.ts'
import type { FollowerSocket } from './fan-out.ts'
import { Journal, type JournalStats } from './journal.ts'
import { createListingIndex, type ConversationListing, type ListingIndex } from './listing-index.ts'
import { MessagePipeline } from './message-pipeline.ts'
import type { ServerTools } from './server-tools.ts'
import { SocketTickets, TICKET_MS } from './socket-tickets.ts'
import {
  titleOf,
  validateApproval,
  validateBranchRequest,
  validateCreateRequest,
  validateRename,
  type ConversationSizeLimits,
} from './turn-rules.ts'

/** The client id of a request to a host, set by the relay (a client-sent copy never reaches it). */
export const CLIENT_HEADER = 'x-thinkwire-client'

/**
 * What a conversation host reads of the relay's settings (they do not change while it lives): the
 * names and meanings of `RelayOptions`, and the bounds of conversations.
 */
export type ConversationHostSettings = {
  /** The models served, as `RelayOptions.models`. @defaultValue every model */
  models?: readonly string[] | undefined
  /** The bounds of a message, as `RelayOptions.limits`. */
  limits?: RelayLimits | undefined
  /** Most turns one conversation stores. */
  turns: number
  /** Most bytes of one conversation's stored turns (their JSON, items included). */
  bytes: number
  /** Conversations one client may hold (0: any number). */
  perClient: number
  /** Streams of one conversation open at once (0: any number). */
  readers: number
  /** A conversation not updated for this long is deleted (0: kept). */
  ttlMs: number
  /** Admits and settles each answer, as `RelayOptions.rateLimiter`. */
  rateLimiter?: RateLimiter | undefined
  /** A `: ping` comment this often on every open stream (0: never). */
  heartbeatMs: number
  /** A model silent this long fails its answer (0: never). */
  idleTimeoutMs: number
  /** One span per answer, as `RelayOptions.tracing`. */
  tracing?: TracingOptions | undefined
  /**
   * Keys of approval ids, the first signing and every one verifying (the Worker passes
   * `SEAL_KEYS`). None: each conversation makes a random key of its own, kept in its storage.
   */
  approvalKeys?: readonly string[] | undefined
  /** How long a server tool's call waits for its approval. @defaultValue 24 hours */
  approvalMs?: number | undefined
}

/** The settings as the host uses them. */
type Resolved = Omit<ConversationHostSettings, 'limits' | 'models'> & {
  limits: ResolvedLimits
  allows: (id: string) => boolean
  sizes: ConversationSizeLimits
}

/** The storage a host keeps its conversation in: SQLite, and one alarm (a Durable Object's). */
export type HostStorage = {
  readonly sql: SqlHandle
  getAlarm(): Promise<number | null>
  setAlarm(at: number): Promise<void>
  deleteAlarm(): Promise<void>
  /** Deletes everything stored, alarm included. */
  deleteAll(): Promise<void>
}

/**
 * What a conversation tells its client's index host: it was made (`listed`, refused when the
 * client holds `max` already, 0 for any number), it `changed` (its line is asked for when the
 * list is next read), or it was deleted (`unlisted`).
 */
export type IndexCall =
  | { op: 'listed'; entry: ConversationListing; max: number }
  | { op: 'changed'; id: string }
  | { op: 'unlisted'; id: string }

/** A client's index host, as a conversation host reaches it: false only for a refused `listed`. */
export type IndexPeer = (call: IndexCall) => Promise<boolean>

/** Inputs of a {@link ConversationHost}. */
export type ConversationHostOptions = {
  storage: HostStorage
  /** Milliseconds since the epoch: dates, alarms and retention. @defaultValue `Date.now` */
  now?: (() => number) | undefined
  /** Keeps work running after a response (a span's export). */
  waitUntil(promise: Promise<unknown>): void
  /** The index host of a client's conversations (`client:<owner>`). */
  index(owner: string): IndexPeer
  /** A conversation's line of the list, asked by the index that lists it. */
  listingOf(id: string): Promise<ConversationListing | null>
  /**
   * A conversation whole, as its JSON (see {@link ConversationHost.exported}), asked by the index
   * that exports its client's (null once it is gone).
   */
  exportOf(id: string): Promise<string | null>
  /** Deletes a conversation (see {@link ConversationHost.erase}), asked by its client's index. */
  deleteOf(id: string): Promise<void>
  /** The models it serves: called when a message needs one. */
  registry(): Registry
  /**
   * The follower sockets the runtime holds for this host (a Durable Object's `getWebSockets()`):
   * every event goes to each. Without it, followers use SSE only.
   */
  sockets?: (() => readonly FollowerSocket[]) | undefined
  /**
   * The server tools a message may name in `serverTools` (DESIGN §13): its loop runs them here.
   * @defaultValue none
   */
  tools?: ServerTools | undefined
  settings: ConversationHostSettings
}

/** Where an admitted socket follower starts: see {@link ConversationHost.admitSocket}. */
export type SocketAdmission = { readonly after: number; readonly first: string | undefined }

/** What a host holds, for tests and benchmarks: every figure bounded whatever the answer's length. */
export type HostStats = JournalStats & {
  /** Row writes since the host started (events, turns, metadata, alarms): what storage costs. */
  rowsWritten: number
  turns: number
  cachedTurns: number
  /** Tables in its database: none for an id that was never created. */
  tables: number
}

/**
 * While an answer runs, an alarm this often keeps the object from being evicted as idle, and finds
 * an answer a restart cut when no request comes.
 */
const KEEPALIVE_MS = 30_000
/** How long a server tool's call waits for its approval, unless the settings say. */
const APPROVAL_MS = 24 * 60 * 60 * 1000

/** How many conversations a client's index deletes at once when it deletes them all. */
const DELETES_AT_ONCE = 16

const noSuchConversation = () => errorResponse(404, 'invalid-request', 'no such conversation')

/**
 * One conversation (DESIGN §9), or, keyed `client:<id>`, one client's list of conversations, on
 * any storage that offers SQLite and an alarm: a Durable Object only connects it. The model call
 * runs here, not in the request that started it: clients come and go, and only `/stop` or
 * `DELETE` ends an answer early. Each event goes to the journal (numbered, sent to every
 * subscriber, written in batches); the finished turn is stored once, with its items, which never
 * leave the host. With tracing set, each answer sends the span `/v1/chat` sends, in the trace of
 * the request that started it.
 *
 * Per answer, what costs: its events in batches, the user turn (with the loop it starts, so an
 * eviction is noticed) and the answer, the metadata at the end, all in one commit when the answer
 * is quick, and for an answer of more than 10 s a keep-alive alarm. Messages are checked against
 * the client's limits here, where the conversation, the model and its price are known. The
 * client's list is not told of every answer: a conversation tells its index once that it has
 * changed, and the index asks it for a fresh line when it next lists.
 */
export class ConversationHost {
  #options: ConversationHostOptions
  #settings: Resolved
  #now: () => number
  #store: ReturnType<typeof createConversationStore>
  #record: ConversationRecord
  #journal: Journal
  #loop: AnswerLoop
  #tools: ServerTools
  #index: ListingIndex
  #arming: Promise<void> = Promise.resolve()
  /** The pending alarm's time, null for none, undefined until read. */
  #alarmAt: number | null | undefined
  /** The index has been told this conversation changed (and will ask it when it lists). */
  #announced = false
  #tickets = new SocketTickets()
  #pipeline: MessagePipeline

  constructor(options: ConversationHostOptions) {
    this.#options = options
    const { settings } = options
    this.#settings = {
      ...settings,
      limits: resolveLimits(settings.limits),
      allows: modelFilter(settings.models),
      sizes: { turns: settings.turns, bytes: settings.bytes },
    }
    this.#now = options.now ?? Date.now
    this.#store = createConversationStore(options.storage.sql)
    this.#index = createListingIndex(this.#store, options.listingOf)
    this.#record = new ConversationRecord(this.#store)
    const meta = this.#record.meta
    this.#journal = new Journal(this.#store, {
      heartbeatMs: this.#settings.heartbeatMs,
      interrupted: meta?.streaming === true,
      lastEventId: meta?.lastEventId,
      sockets: options.sockets,
    })
    this.#tools = options.tools ?? {}
    const s = this.#settings
    this.#loop = new AnswerLoop({
      record: this.#record,
      store: this.#store,
      journal: this.#journal,
      settings: {
        idleTimeoutMs: s.idleTimeoutMs,
        sizes: s.sizes,
        rateLimiter: s.rateLimiter,
        tracing: s.tracing,
        allows: s.allows,
        approvalMs: s.approvalMs ?? APPROVAL_MS,
      },
      tools: this.#tools,
      registry: () => options.registry(),
      approvalKeys: s.approvalKeys ?? [],
      now: () => this.#now(),
      waitUntil: (promise) => options.waitUntil(promise),
      announce: () => this.#announce(),
      arm: () => void this.#arm(),
      // The queue's next goes (most answers end with none queued: no drain is started).
      ended: () => void (this.#record.queueLength > 0 && this.#pipeline.drain()),
    })
    this.#pipeline = new MessagePipeline({
      record: this.#record,
      loop: this.#loop,
      journal: this.#journal,
      settings: s,
      tools: this.#tools,
      registry: () => options.registry(),
      waitUntil: (promise) => options.waitUntil(promise),
      announce: () => this.#announce(),
      now: () => this.#now(),
      resetFrame: (id, streaming) => this.#resetFrame(id, streaming),
    })
    this.#loop.recover()
    // Messages queued when the host stopped go once nothing runs (they are stored).
    void this.#pipeline.drain()
  }

  stats(): HostStats {
    return {
      ...this.#journal.stats(),
      rowsWritten: this.#store.rowsWritten,
      tables: this.#store.tables(),
      turns: this.#record.totals.turns,
      cachedTurns: this.#record.cachedTurns,
    }
  }

  /**
   * The stored turns of the active path, items included (for the relay's own checks; never sent to
   * a browser).
   */
  storedTurns(): Turn[] {
    return this.#record.turns()
  }

  /**
   * This conversation whole, as JSON (a `WireExportedConversation`: its active path as `GET` shows
   * it, every stored turn on every branch, its queue), for its client's export; null once deleted.
   */
  exported(): string | null {
    const meta = this.#record.meta
    if (meta === undefined) return null
    const turns = this.#record
      .storedShown()
      .map(
        ({ seq, parent, active, json }) =>
          `{"id":${seq},"parent":${JSON.stringify(parent)},"active":${String(active)},"turn":${json}}`,
      )
    return jsonObject<WireExportedConversation>({
      id: JSON.stringify(meta.id),
      title: JSON.stringify(this.#titleOf(meta)),
      createdAt: JSON.stringify(meta.createdAt),
      updatedAt: JSON.stringify(meta.updatedAt),
      conversation: this.#record.shownJson(),
      turns: `[${turns.join(',')}]`,
      queue: JSON.stringify(this.#record.queuedTurns()),
    })
  }

  /** Deletes this conversation, asked by its client's index (which forgets it itself). */
  async erase(): Promise<void> {
    const meta = this.#record.meta
    if (meta !== undefined) await this.#erase(meta, false)
  }

  /**
   * This conversation's line in its client's list, for the index that asks (null once deleted).
   * The index is up to date from here: the next change tells it again.
   */
  listing(): ConversationListing | null {
    const meta = this.#record.meta
    if (meta === undefined) return null
    this.#announced = false
    const title = this.#titleOf(meta)
    return { id: meta.id, title, updatedAt: meta.updatedAt, streaming: this.#loop.running }
  }

  /** The title of the list (worked out once for a conversation stored before it was kept). */
  #titleOf(meta: ConversationMeta): string | null {
    if (meta.title !== undefined) return meta.title
    const title = titleOf(this.#record.turns())
    this.#record.saveMeta({ ...meta, title })
    return title
  }

  /** Index hosts: what a conversation of this client says (see {@link IndexCall}). */
  index(call: IndexCall): boolean {
    switch (call.op) {
      case 'listed':
        return this.#index.listed(call.entry, call.max)
      case 'changed':
        this.#index.changed(call.id)
        return true
      case 'unlisted':
        this.#index.unlisted(call.id)
        return true
    }
  }

  /** Index hosts: this client's conversations, the most recently updated first. */
  conversations(): Promise<{ conversations: ConversationListing[] }> {
    return this.#index.conversations()
  }

  /**
   * A request from the relay: `https://conversation/<op>/<id>` (see `ConversationOp`), with the
   * client's id in {@link CLIENT_HEADER}; `list` to a client's index host.
   */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const [, op = '', id = '', approvalId = ''] = url.pathname.split('/')
    const clientId = request.headers.get(CLIENT_HEADER)
    if (clientId === null || clientId === '') {
      return errorResponse(500, 'server', 'the conversation was called without a client')
    }
    if (op === 'list') return jsonResponse(200, await this.conversations())
    if (op === 'export') return this.#exportAll()
    if (op === 'delete-all') return this.#deleteAll()
    if (op === 'create') return this.#create(request, id, clientId)
    const meta = this.#record.meta
    // Another client's conversation is as absent as one that never existed.
    if (meta === undefined || meta.owner !== clientId) return noSuchConversation()
    switch (op) {
      case 'get':
        return this.#get(meta, request)
      case 'delete':
        await this.#erase(meta)
        return new Response(null, { status: 204 })
      case 'messages':
        return this.#message(request, url, meta, 'message')
      case 'regenerate':
      case 'edit':
        return this.#message(request, url, meta, op)
      case 'branch':
        return this.#branch(request, meta)
      case 'rename':
        return this.#rename(request, meta)
      case 'clear-queue':
        return this.#clearQueue()
      case 'stream':
        return this.#stream(request, url)
      case 'stop':
        return this.#stop(request, url)
      case 'approve':
        return this.#approve(request, approvalId)
      case 'ticket':
        return this.#ticket(clientId)
      case 'socket':
        return errorResponse(
          426,
          'invalid-request',
          'the socket route takes a WebSocket upgrade',
          {},
          { upgrade: 'websocket' },
        )
      default:
        return errorResponse(404, 'invalid-request', 'no such conversation route')
    }
  }

  /**
   * A follower's socket asks to join (`socket?ticket=...`, from `Last-Event-ID` or
   * `?lastEventId=`, else from now): where it starts, or the refusal. The ticket, not a bearer
   * header (a browser's WebSocket cannot send one), says who it is: one this host issued to the
   * conversation's owner in the last 30 s, used once.
   */
  admitSocket(request: Request): SocketAdmission | Response {
    const url = new URL(request.url)
    const clientId = this.#tickets.take(url.searchParams.get('ticket') ?? '', this.#now())
    if (clientId === undefined) {
      const message = 'the socket needs a ticket from POST .../ticket, used within 30 s and once'
      return errorResponse(401, 'auth', message, { field: 'ticket' })
    }
    const meta = this.#record.meta
    if (meta === undefined || meta.owner !== clientId) return noSuchConversation()
    const after = parseLastEventId(request, url)
    if (after === null) return lastEventIdRefusal()
    const refused = this.#readersRefusal()
    if (refused !== undefined) return refused
    const { start, reset } = this.#resumePoint(after)
    return { after: start, first: reset }
  }

  /**
   * Makes an admitted socket a follower: `accept` hands it to the runtime (which holds it while
   * the host sleeps), and it is sent the events after where it starts, then every later one.
   */
  joinSocket(admitted: SocketAdmission, accept: () => FollowerSocket): void {
    this.#journal.join(accept, admitted.after, admitted.first)
  }

  /** A follower's socket closed. */
  socketClosed(): void {
    this.#journal.socketsChanged()
  }

  /**
   * The alarm rang: a keep-alive while an answer runs (a restart's is found by then, as the host
   * starts), else the approvals that expired, and the retention's deadline.
   */
  async alarm(): Promise<void> {
    this.#alarmAt = null
    if (this.#loop.running) return this.#arm()
    this.#loop.expire()
    if (this.#loop.running) return this.#arm()
    // A queue a restart left: its next message goes.
    await this.#pipeline.drain()
    if (this.#loop.running) return this.#arm()
    const ttl = this.#settings.ttlMs
    const meta = this.#record.meta
    if (meta !== undefined && ttl > 0 && Date.parse(meta.updatedAt) + ttl <= this.#now()) {
      await this.#erase(meta)
      return
    }
    await this.#arm()
  }

  async #create(request: Request, id: string, clientId: string): Promise<Response> {
    if (this.#record.meta !== undefined) {
      return errorResponse(409, 'invalid-request', 'id already taken')
    }
    const checked = await checkedBody(request, validateCreateRequest)
    if (checked instanceof Response) return checked
    const now = this.#isoNow()
    const meta: ConversationMeta = {
      id,
      owner: clientId,
      createdAt: now,
      updatedAt: now,
      title: null,
      streaming: false,
    }
    if (checked.system !== undefined) meta.system = checked.system
    // Listed first, to be checked (the first answers need not tell the index anything), unless
    // the client holds all it may. An index out of reach lists it when it next changes.
    const { perClient } = this.#settings
    const entry = { id, title: null, updatedAt: now, streaming: false }
    const listed = await this.#options
      .index(clientId)({ op: 'listed', entry, max: perClient })
      .catch(() => undefined)
    if (listed === false) {
      const message = `this client holds at most ${perClient} conversations (CONVERSATION_MAX_PER_CLIENT): delete one to make another`
      return errorResponse(409, 'invalid-request', message)
    }
    // Its retention's alarm before its first row: workerd keeps a first alarm in a table it makes,
    // and a statement prepared before a table is made is prepared again when next run (the
    // metadata's, by the first message, about 40 µs in workerd).
    await this.#arm(meta)
    this.#record.saveMeta(meta)
    this.#announced = listed === true
    return jsonResponse(201, { id })
  }

  #get(meta: ConversationMeta, request: Request): Response {
    // What the answer holds changes with every event, turn and answer: they make its tag, and a
    // client that holds it gets a 304 without a turn read or encoded.
    const { turns, bytes } = this.#record.totals
    const lastId = this.#journal.lastId
    const pending = this.#loop.pending()
    // A client's results stored while approvals wait change what waits, with no event.
    const waits = pending === undefined ? 0 : pending.approvals.length + pending.calls.length
    const tag = `"${lastId}-${turns}-${bytes}-${this.#loop.running ? 1 : 0}-${waits}"`
    const cache = { etag: tag, 'cache-control': 'private, no-cache' }
    if (request.headers.get('if-none-match') === tag) {
      return new Response(null, { status: 304, headers: cache })
    }
    // The turns' JSON goes in as the store gives it (see `shownJson`), the rest around it.
    const body = jsonObject<WireConversationRead>({
      id: JSON.stringify(meta.id),
      conversation: this.#record.shownJson(),
      streaming: String(this.#loop.running),
      lastEventId: String(lastId),
      lastError: meta.lastError === undefined ? undefined : JSON.stringify(meta.lastError),
      pending: pending === undefined ? undefined : JSON.stringify(pending),
      queue:
        this.#record.queued.length === 0 ? undefined : JSON.stringify(this.#record.queuedTurns()),
    })
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'application/json', ...cache },
    })
  }

  /**
   * Stops what runs, ends every stream, and deletes the conversation and (unless its index asked,
   * which forgets it itself) its listing.
   */
  async #erase(meta: ConversationMeta, unlist = true): Promise<void> {
    this.#loop.cancel()
    this.#journal.erase()
    this.#record.erase()
    const { storage } = this.#options
    await storage.deleteAlarm()
    this.#alarmAt = null
    await storage.deleteAll()
    this.#store.deleted()
    if (unlist) await this.#options.index(meta.owner)({ op: 'unlisted', id: meta.id })
  }

  /** Index hosts: this client's conversations whole, streamed (see `exportResponse`). */
  async #exportAll(): Promise<Response> {
    const { conversations } = await this.conversations()
    const ids = conversations.map(({ id }) => id)
    return exportResponse(ids, (id) => this.#options.exportOf(id))
  }

  /**
   * Index hosts: deletes every conversation of this client, a few at a time. One out of reach
   * stays listed, and the answer says to try again (503).
   */
  async #deleteAll(): Promise<Response> {
    const ids = this.#index.ids()
    let missed = 0
    for (let i = 0; i < ids.length; i += DELETES_AT_ONCE) {
      await Promise.all(
        ids.slice(i, i + DELETES_AT_ONCE).map(async (id) => {
          try {
            await this.#options.deleteOf(id)
            this.#index.unlisted(id)
          } catch {
            missed++
          }
        }),
      )
    }
    if (missed === 0) return new Response(null, { status: 204 })
    const message = `${missed} of ${ids.length} conversations could not be deleted now: try again`
    return errorResponse(503, 'server', message, { retryable: true })
  }

  /**
   * `POST .../branch` `{ turn, index }`: version `index` of the turn at index `turn` of the active
   * path becomes active, and the path goes on under it as it was last active there. 200 with the
   * conversation as `GET` has it; every other tab gets it in a `reset`.
   */
  async #branch(request: Request, meta: ConversationMeta): Promise<Response> {
    const refused = this.#pipeline.busyRefusal()
    if (refused !== undefined) return refused
    const body = await sentBody(request)
    if (!body.ok) return errorResponse(400, 'invalid-request', body.message)
    const record = this.#record
    const path = record.tree.path()
    const versions = (at: number) => record.tree.siblingsOf(path[at]!).length
    const checked = validateBranchRequest(body.value, versions, path.length)
    if (!checked.ok) {
      const { field, message } = checked.error
      return errorResponse(400, 'invalid-request', message, { field })
    }
    // An answer began while the body was read: the path may no longer be the one it names.
    const again = this.#pipeline.busyRefusal()
    if (again !== undefined) return again
    const { turn, index } = checked.value
    const chosen = record.tree.siblingsOf(path[turn]!)[index]!
    if (record.activate(chosen)) {
      record.saveMeta({ ...record.meta!, updatedAt: this.#isoNow() })
      this.#pipeline.publishIdle({
        type: 'reset',
        conversation: record.shownJson(),
        streaming: false,
      })
      this.#announce()
    }
    return this.#get(record.meta ?? meta, new Request(request.url))
  }

  /** `PATCH .../:id` `{ title }`: the list shows this title from now on. */
  async #rename(request: Request, meta: ConversationMeta): Promise<Response> {
    const checked = await checkedBody(request, validateRename)
    if (checked instanceof Response) return checked
    const { title } = checked
    const current = this.#record.meta ?? meta
    this.#record.saveMeta({ ...current, title, renamed: true })
    this.#announce()
    return jsonResponse(200, { id: meta.id, title })
  }

  /** `DELETE .../queue`: the queued messages are dropped (what runs goes on); every tab is told. */
  #clearQueue(): Response {
    const record = this.#record
    if (record.queued.length > 0) {
      record.clearQueue()
      this.#pipeline.publishIdle({ type: 'queue', queue: '[]' })
    }
    return new Response(null, { status: 204 })
  }

  /** A ticket for one socket follower of this conversation (see `admitSocket`). */
  #ticket(clientId: string): Response {
    const ticket = this.#tickets.issue(clientId, this.#now())
    return jsonResponse(200, { ticket, expiresInMs: TICKET_MS }, { 'cache-control': 'no-store' })
  }

  async #stop(request: Request, url: URL): Promise<Response> {
    const seen = parseLastEventId(request, url)
    if (seen === null) return lastEventIdRefusal()
    // 204 once the stopped turn is stored, so a GET right after it sees it.
    await this.#loop.stop(seen)
    return new Response(null, { status: 204 })
  }

  /** `POST .../approvals/:approvalId` `{ approve, reason? }`: see `AnswerLoop.decide`. */
  async #approve(request: Request, approvalId: string): Promise<Response> {
    const checked = await checkedBody(request, validateApproval)
    if (checked instanceof Response) return checked
    if (!APPROVAL_ID.test(approvalId)) {
      return errorResponse(404, 'invalid-request', 'no such approval')
    }
    const { approve, reason } = checked
    return this.#loop.decide(approvalId, approve, reason)
  }

  /**
   * `POST .../messages`, `.../regenerate` and `.../edit`: the answer's events (SSE), from its
   * `turn`; for a client whose `Last-Event-ID` is before an event that came ahead of the `turn`,
   * a `reset` first (see `MessagePipeline.answer`). A user message posted while an answer runs, a
   * loop waits or others wait in the queue is queued instead (202 `{ queued }`), and sent when
   * those before it end.
   */
  async #message(
    request: Request,
    url: URL,
    meta: ConversationMeta,
    kind: Ask['kind'],
  ): Promise<Response> {
    // The span starts as the request arrives, as on /v1/chat (no clock is read when tracing is off).
    const start = this.#settings.tracing === undefined ? undefined : callStart()
    const seen = parseLastEventId(request, url)
    if (seen === null) return lastEventIdRefusal()
    if (kind !== 'message') {
      const refused = this.#pipeline.busyRefusal()
      if (refused !== undefined) return refused
    }
    const body = await sentBody(request)
    if (!body.ok) return errorResponse(400, 'invalid-request', body.message)
    const traceparent = request.headers.get('traceparent') ?? undefined
    const pipeline = this.#pipeline
    if (kind === 'message' && pipeline.queues(body.value)) {
      return pipeline.enqueue(meta, body.value, traceparent)
    }
    const started = await pipeline.answer(meta, kind, body.value, { traceparent, start, seen })
    if (started instanceof Response) return started
    // This answer's events, from its `turn` (after a `reset` when versions were dropped for it).
    return this.#subscribe(started.before, undefined, false, started.first)
  }

  #stream(request: Request, url: URL): Response {
    const after = parseLastEventId(request, url)
    if (after === null) return lastEventIdRefusal()
    const follow = url.searchParams.get('follow') === 'true'
    const running = this.#loop.running
    const lastId = this.#journal.lastId
    const { start, reset } = this.#resumePoint(after)
    if (!running && !follow) {
      if (reset !== undefined) return new Response(reset, { headers: SSE_HEADERS })
      if (start >= lastId) return new Response(null, { status: 204 })
    }
    const refused = this.#readersRefusal()
    if (refused !== undefined) return refused
    // Without an answer to follow, a replay of what is logged now.
    const until = !running && !follow ? lastId : undefined
    return this.#subscribe(start, until, follow, reset)
  }

  /**
   * Where a reader that saw the events up to `after` starts (without one: the answer in flight
   * from its `turn`, else from now). From before what the log holds, a `reset`: while a model
   * call runs, or the server tools of the step it made, the conversation as it was just before
   * that call's `turn`, then the call from its `turn` on; else the conversation as it is now, as
   * the last event logged, then the events after it.
   */
  #resumePoint(after: number | undefined): { start: number; reset: string | undefined } {
    const firstId = this.#loop.firstId
    const lastId = this.#journal.lastId
    const from = after ?? (firstId === undefined ? lastId : firstId - 1)
    if (from >= this.#journal.firstKept - 1) return { start: from, reset: undefined }
    const loop = firstId === undefined ? undefined : this.#record.meta?.loop
    const call = loop?.call
    if (call === undefined) {
      // No model call, but the server tools of the step one made: that call is over, its turn
      // stored as the path's last, its `done` still to come (or sent before the loop waited). So
      // the reset is without that turn, and without the turn the call's `turn` brought (a
      // regenerate's brings none: it puts its answer after the last user turn), and the step
      // follows from that `turn`, as it came live. A loop stored without the call, or whose
      // events from it a restart lost, gets the conversation as it is now.
      const made = loop?.madeStep
      if (made !== undefined && made.firstId >= this.#journal.firstKept) {
        return this.#beforeTurn(made, made.replaces ? -1 : -2)
      }
      // The reset stands for every event logged so far, and the stream goes on after the last.
      // Not the answer's first event: not logged yet, the event that takes its id (an approved
      // call's result) would be dropped as seen; logged, unless its `turn`, no conversation says it.
      return { start: lastId, reset: this.#resetFrame(lastId, firstId !== undefined) }
    }
    // The call's `turn` says where its answer goes, which no conversation can: a regenerate's in
    // place of the answer it replaces (on the active path until the new one is complete), an
    // edit's after its new version of the question (off the path until then). So the reset stands
    // for the events before that `turn`, which the log holds and sends again, as it came live. A
    // message's or a loop step's `turn` brings the turn it answers, which the path has taken as
    // its last: the conversation before the `turn` is without it (else shown twice).
    const added = !call.replaces && call.version === undefined
    return this.#beforeTurn(call, added ? -1 : undefined)
  }

  /**
   * A resume from just before model call `call`'s `turn`: a `reset` with the active path's turns
   * before `end` (see `shownJson`), standing for the events before that `turn`, which follows.
   */
  #beforeTurn(call: LoopCall, end: number | undefined): { start: number; reset: string } {
    const start = call.firstId - 1
    return { start, reset: this.#resetFrame(start, true, this.#record.shownJson(end)) }
  }

  /**
   * The `reset` that starts a stream from before what its client can be sent event by event
   * (DESIGN §9): the conversation (as it is now unless given), the queue and what the loop waits
   * on (as `GET` lists them) as they are now, whether an answer is in flight, and, as its id, the
   * last event it stands for.
   */
  #resetFrame(id: number, streaming: boolean, conversation = this.#record.shownJson()): string {
    const pending = this.#loop.pending()
    const data = jsonObject<WireConversationEvents['reset']>({
      conversation,
      streaming: String(streaming),
      queue: JSON.stringify(this.#record.queuedTurns()),
      pending: pending === undefined ? undefined : JSON.stringify(pending),
    })
    return `id: ${id}\nevent: reset\ndata: ${data}\n\n`
  }

  /**
   * Each reader holds what it has not read yet: a bounded number of them (the stream of a
   * message's own answer is not refused, but counts).
   */
  #readersRefusal(): Response | undefined {
    const { readers } = this.#settings
    if (!(readers > 0 && this.#journal.readers >= readers)) return undefined
    const message = `this conversation has ${readers} open streams, the most it serves (CONVERSATION_MAX_READERS): close one and try again`
    return errorResponse(429, 'rate-limit', message, { retryable: true })
  }

  /**
   * A stream of the events after `after` (see `Journal.subscribe`). Once the loop's server tools
   * have run, its `server-timing` says for how long (`tools`).
   */
  #subscribe(after: number, until: number | undefined, follow: boolean, first?: string) {
    const stream = this.#journal.subscribe(after, until, follow, first)
    const toolMs = this.#loop.toolMs()
    if (toolMs === undefined) return new Response(stream, { status: 200, headers: SSE_HEADERS })
    const timing = `tools;dur=${toolMs.toFixed(1)};desc="server tools"`
    return new Response(stream, {
      status: 200,
      headers: { ...SSE_HEADERS, 'server-timing': timing },
    })
  }

  /**
   * Sets the alarm: a keep-alive while an answer runs (once it has run `KEEPALIVE_AFTER_MS`, or at
   * once for a loop that goes on by itself), else the first expiry of an approval that waits, or,
   * with a retention, an alarm no later than the conversation's deadline (one already
   * pending before it is kept: when it rings, it sets the next). One at a time, each deciding
   * from the state when it runs; the pending time is read once, then kept. `meta`: the metadata
   * about to be stored, for a conversation being created.
   */
  #arm(meta?: ConversationMeta): Promise<void> {
    this.#arming = this.#arming.then(() => this.#armNow(meta)).catch(() => {})
    return this.#arming
  }

  async #armNow(created: ConversationMeta | undefined): Promise<void> {
    const ttl = this.#settings.ttlMs
    const meta = created ?? this.#record.meta
    const now = this.#now()
    const running = this.#loop.running
    // While nothing runs: the first approval's expiry, or the retention's deadline.
    const expiry = this.#loop.nextExpiry()
    const deadline = meta !== undefined && ttl > 0 ? Date.parse(meta.updatedAt) + ttl : undefined
    let at: number
    if (running) at = now + KEEPALIVE_MS
    else if (expiry !== undefined || deadline !== undefined)
      at = Math.min(expiry ?? Infinity, deadline ?? Infinity)
    else return
    const { storage } = this.#options
    this.#alarmAt ??= await storage.getAlarm()
    const pending = this.#alarmAt
    if (pending !== null && pending <= at && (!running || pending > now)) return
    await storage.setAlarm(at)
    this.#alarmAt = at
    this.#store.countAlarm()
  }

  /** Tells the client's index, once until it next asks, that this conversation changed. */
  #announce(): void {
    const meta = this.#record.meta
    if (meta === undefined || this.#announced) return
    this.#announced = true
    void this.#options
      .index(meta.owner)({ op: 'changed', id: meta.id })
      .catch(() => {
        this.#announced = false
      })
  }

  #isoNow(): string {
    return new Date(this.#now()).toISOString()
  }
}

function lastEventIdRefusal(): Response {
  return errorResponse(400, 'invalid-request', 'Last-Event-ID must be a whole number', {
    field: 'Last-Event-ID',
  })
}

/** The request's JSON body as `check` reads it, or the 400 that names what is wrong with it. */
async function checkedBody<T>(
  request: Request,
  check: (body: unknown) => Validation<T>,
): Promise<T | Response> {
  const body = await sentBody(request)
  if (!body.ok) return errorResponse(400, 'invalid-request', body.message)
  const checked = check(body.value)
  if (checked.ok) return checked.value
  const { field, message } = checked.error
  return errorResponse(400, 'invalid-request', message, { field })
}

/**
 * The JSON body the relay passed on. The relay read the client's body under the size and time
 * limits, checked that it is JSON, and sends its text as it came; only the relay reaches a host,
 * so the body is read here without a second timer or size count.
 */
async function sentBody(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  try {
    return { ok: true, value: JSON.parse(await request.text()) }
  } catch {
    return { ok: false, message: 'body must be JSON' }
  }
}

/**
 * A JSON object from the JSON text of each of its fields, in the order given, leaving out those
 * whose text is undefined. `fields` must name every field of the wire type `T`, so none is dropped
 * silently; it lets stored JSON go out as it is, inside an object of the wire's shape.
 */
function jsonObject<T>(fields: { [K in keyof T]-?: string | undefined }): string {
  let out = ''
  for (const [key, text] of Object.entries(fields)) {
    if (text !== undefined) out += `,${JSON.stringify(key)}:${text as string}`
  }
  return `{${out.slice(1)}}`
}
