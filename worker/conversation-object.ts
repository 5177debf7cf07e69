import { DurableObject } from 'cloudflare:workers'
import type { Adapter, CallOptions } from '../src/core/adapter.ts'
import type { AssistantTurn, Conversation, Turn } from '../src/core/conversation.ts'
import { isThinkwireError, toThinkwireError, type ThinkwireError } from '../src/core/errors.ts'
import type { Event } from '../src/core/events.ts'
import { partialTurn } from '../src/core/reducer.ts'
import type { ProviderEntry, Registry } from '../src/core/registry.ts'
import type { WireError, WireEvents } from '../src/core/wire.ts'
import {
  createConversationStore,
  type ConversationStore,
} from '../src/relay/conversations/conversation-store.ts'
import {
  createEventLog,
  framesAfter,
  MAX_BATCH_EVENTS,
  parseLastEventId,
  type EventLog,
} from '../src/relay/conversations/event-log.ts'
import { createFanOut, type FanOut } from '../src/relay/conversations/fan-out.ts'
import { foldFrames } from '../src/relay/conversations/fold-frames.ts'
import { modelAllowed } from '../src/relay/conversations/routes.ts'
import {
  displayTurn,
  regenerateBase,
  sizeRefusal,
  titleOf,
  validateCreateRequest,
  validateMessageRequest,
  type ConversationSizeLimits,
} from '../src/relay/conversations/turn-rules.ts'
import { resolveLimits, type ResolvedLimits } from '../src/relay/options.ts'
import { readJsonBody } from '../src/relay/read-body.ts'
import { errorResponse, jsonResponse, SSE_HEADERS } from '../src/relay/responses.ts'
import { wireTurn } from '../src/relay/chat-route.ts'
import { statusFromKind } from '../src/relay/status.ts'
import { registryFromEnv } from './registry.ts'
import { count, list, setting } from './settings.ts'

/** The client id of a request, set by the Worker (a client-sent copy never reaches the object). */
export const CLIENT_HEADER = 'x-thinkwire-client'
/** The tokens the Worker's rate limiter counted for a message, settled when its answer ends. */
export const ESTIMATE_HEADER = 'x-thinkwire-estimated-tokens'

/** One line of a client's list of conversations. */
export type ConversationListing = {
  id: string
  title: string | null
  updatedAt: string
  streaming: boolean
}

/** The events of a conversation's stream: the relay's, after the `turn` each answer answers. */
type ConversationEvents = WireEvents & { turn: { turn: Turn } }

type Meta = {
  id: string
  owner: string
  createdAt: string
  updatedAt: string
  system?: string | undefined
  lastError?: { kind: string; message: string } | undefined
  /** An answer was running when this was saved: found on start, it was cut by an eviction. */
  streaming: boolean
}

type Answer = {
  controller: AbortController
  /**
   * Characters of text and thinking so far (what the rate limiter is told if it fails). The text
   * itself is not held: a stopped answer is rebuilt from its logged events.
   */
  chars: number
  /** The id of its `turn` event: a stream without `Last-Event-ID` starts there. */
  firstId: number
  /** A regenerate: the last answer is replaced, once this one is complete. */
  replaces: boolean
  stopped: boolean
  estimatedTokens: number | undefined
  finished: Promise<void>
}

const utf8 = new TextEncoder()
/** While an answer runs, an alarm this often keeps the object from being evicted as idle. */
const KEEPALIVE_MS = 30_000
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * One conversation (DESIGN §9), or, keyed `client:<id>`, one client's list of conversations. The
 * model call runs here, not in the request that started it: clients come and go, and only `/stop`
 * or `DELETE` ends an answer early. Each event gets an id, goes to every subscriber, is held in
 * memory and written to SQLite in batches (see `createEventLog`); the finished turn is stored once,
 * with its items, which never leave the object.
 */
export class ConversationObject extends DurableObject<Env> {
  #store: ConversationStore
  #meta: Meta | undefined
  #turns: Turn[]
  #turnBytes: number[]
  #log: EventLog
  #answer: Answer | undefined
  #fanOut: FanOut
  #registry: Registry | undefined
  #arming: Promise<void> = Promise.resolve()
  /** The most characters of frames held at once (logged not written, or queued not sent). */
  #peakHeldChars = 0

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#store = createConversationStore(ctx.storage.sql)
    this.#store.createTables()
    this.#meta = this.#store.meta() as Meta | undefined
    ;({ turns: this.#turns, bytes: this.#turnBytes } = this.#store.turns())
    this.#fanOut = createFanOut({ heartbeatMs: count(env, 'HEARTBEAT_MS', 15_000) })
    let lastId = this.#store.lastEventId()
    // Cut by an eviction mid-answer: events held in memory are lost, but clients may have seen
    // their ids, so numbering moves past every id that could have been sent.
    if (this.#meta?.streaming === true) lastId += MAX_BATCH_EVENTS
    this.#log = createEventLog({ lastId, write: (batch) => this.#store.addEvents(batch) })
    if (this.#meta?.streaming === true) this.#recover(this.#meta)
  }

  /** Providers served besides those the settings configure (a test Worker adds scripted models). */
  protected providers(): { readonly [provider: string]: ProviderEntry } {
    return {}
  }

  /**
   * Row writes since the object started (events, turns, metadata, alarms): what storage costs.
   * And what the object holds of the events: those logged but not yet written, the characters of
   * frames held (logged or queued for subscribers), and the most held at once since the object
   * started: bounded by the batch and queue sizes, whatever the length of the answer.
   */
  stats(): {
    rowsWritten: number
    lastEventId: number
    heldEvents: number
    heldChars: number
    peakHeldChars: number
  } {
    return {
      rowsWritten: this.#store.rowsWritten,
      lastEventId: this.#log.lastId,
      heldEvents: this.#log.heldEvents,
      heldChars: this.#heldChars(),
      peakHeldChars: this.#peakHeldChars,
    }
  }

  /** The stored turns, items included (for the Worker's own checks; never sent to a browser). */
  storedTurns(): Turn[] {
    return this.#turns
  }

  /** Index objects: adds or updates one conversation of this client. */
  listed(entry: ConversationListing): void {
    this.#store.putListing(entry.id, entry)
  }

  /** Index objects: forgets a deleted conversation. */
  unlisted(id: string): void {
    this.#store.deleteListing(id)
  }

  /** Index objects: this client's conversations, the most recently updated first. */
  conversations(): { conversations: ConversationListing[] } {
    const conversations = this.#store.listing() as ConversationListing[]
    conversations.sort((a, b) =>
      a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0,
    )
    return { conversations }
  }

  /** Requests from the Worker: `https://conversation/<op>/<id>`, with the client's id in a header. */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const [, op = '', id = ''] = url.pathname.split('/')
    const clientId = request.headers.get(CLIENT_HEADER)
    if (clientId === null || clientId === '') {
      return errorResponse(500, 'server', 'the conversation was called without a client')
    }
    if (op === 'create') return this.#create(request, id, clientId)
    const meta = this.#meta
    // Another client's conversation is as absent as one that never existed.
    if (meta === undefined || meta.owner !== clientId) {
      return errorResponse(404, 'invalid-request', 'no such conversation')
    }
    switch (op) {
      case 'get':
        return this.#get(meta)
      case 'delete':
        return this.#delete(meta)
      case 'messages':
      case 'regenerate':
        return this.#message(request, meta, op === 'messages' ? 'message' : 'regenerate')
      case 'stream':
        return this.#stream(request, url)
      case 'stop':
        return this.#stop()
      default:
        return errorResponse(404, 'invalid-request', 'no such conversation route')
    }
  }

  /** The time retention is judged by (a test moves it forward). */
  protected now(): number {
    return Date.now()
  }

  override async alarm(): Promise<void> {
    if (this.#answer !== undefined) return this.#arm()
    const ttl = this.#ttlMs()
    const meta = this.#meta
    if (meta !== undefined && ttl > 0 && Date.parse(meta.updatedAt) + ttl <= this.now()) {
      await this.#erase(meta)
      return
    }
    await this.#arm()
  }

  async #create(request: Request, id: string, clientId: string): Promise<Response> {
    if (this.#meta !== undefined) return errorResponse(409, 'invalid-request', 'id already taken')
    const body = await readJsonBody(request, this.#limits().bodyBytes, this.#limits().bodyTimeoutMs)
    if (!body.ok) return errorResponse(body.status, 'invalid-request', body.message)
    const checked = validateCreateRequest(body.value)
    if (!checked.ok) {
      const { field, message } = checked.error
      return errorResponse(400, 'invalid-request', message, { field })
    }
    const now = new Date().toISOString()
    const meta: Meta = { id, owner: clientId, createdAt: now, updatedAt: now, streaming: false }
    if (checked.value.system !== undefined) meta.system = checked.value.system
    this.#saveMeta(meta)
    await this.#index(meta)
    await this.#arm()
    return jsonResponse(201, { id })
  }

  #get(meta: Meta): Response {
    const conversation: Conversation = { turns: this.#turns.map(displayTurn) }
    if (meta.system !== undefined) conversation.system = meta.system
    const body: Record<string, unknown> = {
      id: meta.id,
      conversation,
      streaming: this.#answer !== undefined,
      lastEventId: this.#log.lastId,
    }
    if (meta.lastError !== undefined) body['lastError'] = meta.lastError
    return jsonResponse(200, body)
  }

  async #delete(meta: Meta): Promise<Response> {
    await this.#erase(meta)
    return new Response(null, { status: 204 })
  }

  /** Stops what runs, ends every stream, and deletes the conversation and its listing. */
  async #erase(meta: Meta): Promise<void> {
    const answer = this.#answer
    this.#answer = undefined
    answer?.controller.abort(new Error('the conversation was deleted'))
    this.#fanOut.close()
    this.#meta = undefined
    this.#turns = []
    this.#turnBytes = []
    await this.ctx.storage.deleteAlarm()
    await this.ctx.storage.deleteAll()
    this.#store.createTables()
    this.#log = createEventLog({ lastId: 0, write: (batch) => this.#store.addEvents(batch) })
    await this.#indexStub(meta.owner).unlisted(meta.id)
  }

  async #stop(): Promise<Response> {
    const answer = this.#answer
    if (answer !== undefined) {
      answer.stopped = true
      answer.controller.abort(new Error('stopped'))
      // 204 once the stopped turn is stored, so a GET right after it sees it.
      await answer.finished
    }
    return new Response(null, { status: 204 })
  }

  async #message(request: Request, meta: Meta, kind: 'message' | 'regenerate') {
    const busy = () =>
      errorResponse(409, 'invalid-request', 'an answer is in flight: wait for it or stop it')
    if (this.#answer !== undefined) return busy()
    const limits = this.#limits()
    const body = await readJsonBody(request, limits.bodyBytes, limits.bodyTimeoutMs)
    if (!body.ok) return errorResponse(body.status, 'invalid-request', body.message)
    // Another message may have been accepted while the body was read.
    if (this.#answer !== undefined) return busy()
    const checked = validateMessageRequest(body.value, limits, this.#turns, kind)
    if (!checked.ok) {
      const { field, message } = checked.error
      return errorResponse(400, 'invalid-request', message, { field })
    }
    const { model, turn, options } = checked.value
    if (!modelAllowed(list(setting(this.env, 'MODELS')), model)) {
      return errorResponse(404, 'invalid-request', `model '${model}' is not served by this relay`, {
        field: 'model',
      })
    }
    let adapter: Adapter
    try {
      this.#registry ??= registryFromEnv(this.env, this.providers())
      adapter = this.#registry.resolve(model)
    } catch (error) {
      if (!isThinkwireError(error)) throw error
      const status = error.status === 404 ? 404 : statusFromKind(error.kind)
      return errorResponse(status, error.kind, error.message, { field: 'model' })
    }

    let base: readonly Turn[]
    let replaces = false
    let answered: Turn
    const stored = { turns: this.#turns.length, bytes: sum(this.#turnBytes) }
    if (turn === undefined) {
      const regenerate = regenerateBase(this.#turns)
      if (regenerate === null) {
        return errorResponse(409, 'invalid-request', 'there is no user or tool turn to answer')
      }
      ;({ turns: base, replaces } = regenerate)
      answered = base.at(-1)!
      const refusal = sizeRefusal(stored, { turns: replaces ? 0 : 1, bytes: 0 }, this.#sizes())
      if (refusal !== null) return errorResponse(413, 'invalid-request', refusal.message)
    } else {
      const bytes = utf8.encode(JSON.stringify(turn)).byteLength
      // Room for the turn and its answer.
      const refusal = sizeRefusal(stored, { turns: 2, bytes }, this.#sizes())
      if (refusal !== null) return errorResponse(413, 'invalid-request', refusal.message)
      this.#storeTurn(turn)
      base = this.#turns
      answered = turn
    }

    const estimate = Number(request.headers.get(ESTIMATE_HEADER) ?? Number.NaN)
    const conversation: Conversation = { turns: [...base] }
    if (meta.system !== undefined) conversation.system = meta.system
    const before = this.#log.lastId
    this.#startAnswer(meta, answered, replaces, {
      adapter,
      conversation,
      options,
      estimatedTokens: Number.isFinite(estimate) ? estimate : undefined,
    })
    // This answer's events, from its `turn`.
    return this.#subscribe(before, false)
  }

  #startAnswer(
    meta: Meta,
    answered: Turn,
    replaces: boolean,
    call: {
      adapter: Adapter
      conversation: Conversation
      options: CallOptions
      estimatedTokens: number | undefined
    },
  ): void {
    let resolve!: () => void
    const answer: Answer = {
      controller: new AbortController(),
      chars: 0,
      firstId: this.#log.lastId + 1,
      replaces,
      stopped: false,
      estimatedTokens: call.estimatedTokens,
      finished: new Promise<void>((done) => (resolve = done)),
    }
    this.#answer = answer
    const { lastError: _cleared, ...rest } = meta
    this.#saveMeta({ ...rest, streaming: true, updatedAt: new Date().toISOString() })
    this.#publish('turn', { turn: displayTurn(answered) })
    void this.#arm()
    void this.#index(this.#meta!)
    void this.#run(answer, call).finally(resolve)
  }

  async #run(
    answer: Answer,
    call: {
      adapter: Adapter
      conversation: Conversation
      options: CallOptions
    },
  ): Promise<void> {
    const { adapter } = call
    const signal = answer.controller.signal
    let turn: AssistantTurn | undefined
    let failure: ThinkwireError | undefined
    try {
      const idle = count(this.env, 'IDLE_TIMEOUT_MS', 60_000)
      const events = adapter.stream(call.conversation, {
        ...call.options,
        signal,
        idleTimeoutMs: idle > 0 ? idle : undefined,
      })
      for await (const event of events) {
        if (this.#answer !== answer) return
        if (event.type === 'done') {
          // As /v1/chat sends it: whole non-negative usage, an input on every tool call.
          turn = wireTurn(event.turn)
          break
        }
        const shown: Event =
          event.type === 'tool-call' && event.call.input === undefined
            ? { type: 'tool-call', call: { ...event.call, input: {} } }
            : event
        if (shown.type === 'tool-call') this.#publish('tool-call', { call: shown.call })
        else {
          answer.chars += shown.text.length
          this.#publish(shown.type, { text: shown.text })
        }
      }
      if (turn === undefined && !signal.aborted) {
        throw new Error(`${adapter.provider}: the stream ended without a done event`)
      }
    } catch (error) {
      failure = toThinkwireError(error, adapter.provider, signal)
    }
    // Deleted meanwhile: nothing is left to store into.
    if (this.#answer !== answer) return
    this.#finish(answer, turn, failure)
  }

  /** Stores and announces how an answer ended, then lets the next one start. */
  #finish(
    answer: Answer,
    complete: AssistantTurn | undefined,
    failure: ThinkwireError | undefined,
  ) {
    const meta = this.#meta!
    const next: Meta = { ...meta, streaming: false, updatedAt: new Date().toISOString() }
    let usedTokens: number | undefined
    if (complete !== undefined && !answer.stopped) {
      if (answer.replaces) this.#dropLastTurn()
      this.#storeTurn(complete)
      this.#publish('done', { turn: displayTurn(complete) })
      usedTokens = complete.usage.inputTokens + complete.usage.outputTokens
    } else if (answer.stopped) {
      const last = this.#turns.at(-1)
      if (answer.replaces && last?.role === 'assistant') {
        // A stopped regenerate changes nothing: its `done` is the answer that stays.
        this.#publish('done', { turn: displayTurn(last) })
      } else {
        // What arrived, as plain text: no items (nothing half is replayed) and no tool calls
        // (calls without results could not be sent again), rebuilt from the answer's events.
        const stopped = partialTurn(foldFrames(this.#framesFrom(answer.firstId)))
        this.#storeTurn(stopped)
        this.#publish('done', { turn: stopped })
      }
    } else {
      const error = failure ?? toThinkwireError(new Error('the answer failed'), undefined)
      const data: WireError = {
        kind: error.kind,
        message: error.message,
        retryable: error.retryable,
      }
      if (error.retryAfterMs !== undefined) data.retryAfterMs = error.retryAfterMs
      this.#publish('error', data)
      next.lastError = { kind: error.kind, message: error.message }
    }
    this.#log.flush()
    this.#answer = undefined
    this.#saveMeta(next)
    this.#fanOut.endAnswer()
    this.#settle(next.owner, answer, usedTokens)
    void this.#index(next)
    void this.#arm()
  }

  /** Settles the Worker's rate-limit estimate with what the answer used (or the estimate). */
  #settle(owner: string, answer: Answer, usedTokens: number | undefined): void {
    if (answer.estimatedTokens === undefined) return
    const limiter = this.env.RATE_LIMITER.get(this.env.RATE_LIMITER.idFromName(owner))
    const tokens = usedTokens ?? Math.ceil(answer.chars / 4)
    void limiter.report(tokens, answer.estimatedTokens).catch(() => {})
  }

  /** An answer cut by an eviction: subscribers that resume get an `error`, and nothing half is kept. */
  #recover(meta: Meta): void {
    const message = 'the answer was interrupted when the relay restarted: regenerate it'
    this.#log.append('error', { kind: 'server', message, retryable: true } satisfies WireError)
    this.#log.flush()
    const next: Meta = {
      ...meta,
      streaming: false,
      lastError: { kind: 'server', message },
      updatedAt: new Date().toISOString(),
    }
    this.#saveMeta(next)
    void this.#index(next).catch(() => {})
  }

  #stream(request: Request, url: URL): Response {
    const after = parseLastEventId(request, url)
    if (after === null) {
      return errorResponse(400, 'invalid-request', 'Last-Event-ID must be a whole number', {
        field: 'Last-Event-ID',
      })
    }
    const follow = url.searchParams.get('follow') === 'true'
    const answer = this.#answer
    const from = after ?? (answer === undefined ? this.#log.lastId : answer.firstId - 1)
    if (answer === undefined && !follow && from >= this.#log.lastId) {
      return new Response(null, { status: 204 })
    }
    return this.#subscribe(from, follow)
  }

  /**
   * A stream of the events after `after`: first those already logged (from storage, then from
   * memory), then live ones. All of it happens synchronously, so no event falls between the
   * replay and the subscription, and none is sent twice.
   */
  #subscribe(after: number, follow: boolean): Response {
    this.#fanOut.flush()
    const replay =
      after < this.#log.lastId
        ? framesAfter(this.#store.eventsAfter(after), after).join('') +
          this.#log.heldAfter(after).join('')
        : ''
    const live = follow || this.#answer !== undefined
    const stream = this.#fanOut.subscribe(replay, { live, follow })
    return new Response(stream, { status: 200, headers: SSE_HEADERS })
  }

  #publish<N extends keyof ConversationEvents>(name: N, data: ConversationEvents[N]): void {
    this.#fanOut.publish(this.#log.append(name, data).frame)
    this.#peakHeldChars = Math.max(this.#peakHeldChars, this.#heldChars())
  }

  #heldChars(): number {
    return this.#log.heldChars + this.#fanOut.queuedChars
  }

  /** The frames from event `id` on: the stored batches, read a few at a time, then those held. */
  *#framesFrom(id: number): Generator<string> {
    for (const batch of this.#store.batchesFrom(id)) {
      for (let i = Math.max(0, id - batch.firstId); i < batch.frames.length; i++) {
        yield batch.frames[i]!
      }
    }
    yield* this.#log.heldAfter(id - 1)
  }

  /**
   * Sets the alarm: a keep-alive while an answer runs, else the retention deadline (if any). One
   * at a time, each deciding from the state when it runs, so a short answer's end is never
   * overtaken by its start's keep-alive.
   */
  #arm(): Promise<void> {
    this.#arming = this.#arming.then(() => this.#armNow()).catch(() => {})
    return this.#arming
  }

  async #armNow(): Promise<void> {
    const current = await this.ctx.storage.getAlarm()
    const ttl = this.#ttlMs()
    const meta = this.#meta
    let at: number | undefined
    if (this.#answer !== undefined) {
      // A keep-alive already pending is enough.
      if (current !== null && current > Date.now()) return
      at = Date.now() + KEEPALIVE_MS
    } else if (meta !== undefined && ttl > 0) {
      at = Date.parse(meta.updatedAt) + ttl
    }
    if (at === undefined) {
      if (current !== null) await this.ctx.storage.deleteAlarm()
      return
    }
    if (current === at) return
    await this.ctx.storage.setAlarm(at)
    this.#store.countAlarm()
  }

  #ttlMs(): number {
    return count(this.env, 'CONVERSATION_TTL_DAYS', 0) * DAY_MS
  }

  #index(meta: Meta): Promise<void> {
    const entry: ConversationListing = {
      id: meta.id,
      title: titleOf(this.#turns),
      updatedAt: meta.updatedAt,
      streaming: meta.streaming,
    }
    return this.#indexStub(meta.owner)
      .listed(entry)
      .catch(() => {})
  }

  #indexStub(owner: string) {
    const namespace = this.env.CONVERSATIONS
    return namespace.get(namespace.idFromName(`client:${owner}`))
  }

  #storeTurn(turn: Turn): void {
    this.#turnBytes.push(this.#store.addTurn(this.#turns.length, turn))
    this.#turns.push(turn)
  }

  #dropLastTurn(): void {
    this.#store.dropTurn(this.#turns.length - 1)
    this.#turns.pop()
    this.#turnBytes.pop()
  }

  #saveMeta(meta: Meta): void {
    this.#meta = meta
    this.#store.saveMeta(meta)
  }

  #limits(): ResolvedLimits {
    const maxTokens = count(this.env, 'MAX_TOKENS', 0)
    return resolveLimits({
      bodyBytes: count(this.env, 'MAX_BODY_BYTES', 1024 * 1024),
      turns: count(this.env, 'MAX_TURNS', 1000),
      maxTokens: maxTokens > 0 ? maxTokens : undefined,
    })
  }

  #sizes(): ConversationSizeLimits {
    return {
      turns: count(this.env, 'CONVERSATION_MAX_TURNS', 1000),
      bytes: count(this.env, 'CONVERSATION_MAX_BYTES', 8 * 1024 * 1024),
    }
  }
}

function sum(values: readonly number[]): number {
  let total = 0
  for (const value of values) total += value
  return total
}
