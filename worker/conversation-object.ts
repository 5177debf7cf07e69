import { DurableObject } from 'cloudflare:workers'
import type {
  Adapter,
  AssistantTurn,
  CallOptions,
  Conversation,
  ProviderEntry,
  Registry,
  ThinkwireError,
  Turn,
} from '../src/index.ts'
import type { WireConversationEvents, WireError } from '../src/relay/index.ts'
import { toThinkwireError } from '../src/kit/index.ts'
import { partialTurn } from '../src/core/reducer.ts'
import { wireTurn } from '../src/relay/chat-route.ts'
import { relayFailure, resolveAdapter } from '../src/relay/failure.ts'
import {
  failedEnd,
  reserveAnswer,
  settleAnswer,
  type AnswerReservation,
} from '../src/relay/answer-budget.ts'
import {
  createConversationStore,
  utf8Length,
  type ConversationStore,
} from '../src/relay/conversations/conversation-store.ts'
import {
  createEventLog,
  framesBetween,
  MAX_BATCH_EVENTS,
  parseLastEventId,
  splitFrames,
  type EventLog,
} from '../src/relay/conversations/event-log.ts'
import { createFanOut, type FanOut } from '../src/relay/conversations/fan-out.ts'
import { foldFrames } from '../src/relay/conversations/fold-frames.ts'
import {
  createListingIndex,
  type ConversationListing,
  type ListingIndex,
} from '../src/relay/conversations/listing-index.ts'
import { modelFilter } from '../src/relay/model-filter.ts'
import {
  createThinkingTimer,
  withThinkingTime,
  type ThinkingTimer,
} from '../src/relay/conversations/thinking-timer.ts'
import {
  displayTurn,
  modelTurn,
  regenerateBase,
  sizeRefusal,
  titleOf,
  validateCreateRequest,
  validateMessageRequest,
  type ConversationSizeLimits,
} from '../src/relay/conversations/turn-rules.ts'
import { relayData, type StreamDelta } from '../src/relay/dialects.ts'
import { sentDelta, streamedCharsOf } from '../src/relay/event-stream.ts'
import { outputReserveOf } from '../src/relay/budget.ts'
import { limitRefusal } from '../src/relay/limit-refusal.ts'
import { resolveLimits, type ResolvedLimits } from '../src/relay/options.ts'
import { otlpTracing } from '../src/relay/otlp-exporter.ts'
import type { RateLimiter } from '../src/relay/rate-limit.ts'
import { errorResponse, jsonResponse, SSE_HEADERS } from '../src/relay/responses.ts'
import {
  callStart,
  traceCall,
  type CallOutcome,
  type CallTrace,
  type TracingOptions,
} from '../src/relay/tracing.ts'
import { countRefusal, durableRateLimiter, limitsFromEnv } from './rate-limiter.ts'
import { registryFromEnv } from './registry.ts'
import {
  conversationBounds,
  modelsSetting,
  requestBounds,
  setting,
  streamTimes,
} from './settings.ts'

/** The client id of a request, set by the Worker (a client-sent copy never reaches the object). */
export const CLIENT_HEADER = 'x-thinkwire-client'

export type { ConversationListing }

/**
 * The `turn` event of a conversation's stream: the turn an answer answers, before its events;
 * `replaces` when the answer (a regenerate's) will replace the last answer once it is complete.
 */

/** An event of a conversation's stream: the relay's (DESIGN §5), and the `turn` each answer answers. */
type ConversationEvent =
  | StreamDelta
  | { type: 'done'; turn: AssistantTurn }
  | { type: 'error'; error: WireError }
  | { type: 'turn'; turn: Turn; replaces: boolean }

type Meta = {
  id: string
  owner: string
  createdAt: string
  updatedAt: string
  system?: string | undefined
  /** The title of the list (undefined in conversations stored before it was kept here). */
  title?: string | null | undefined
  lastError?: { kind: string; message: string } | undefined
  /** An answer was running when this was saved: found on start, it was cut by an eviction. */
  streaming: boolean
}

type Answer = {
  controller: AbortController
  /**
   * Characters of text, thinking and tool calls so far (what a stopped or failed answer is
   * charged for). The text itself is not held: a stopped answer is rebuilt from its logged events.
   */
  chars: number
  /** The id of its `turn` event: a stream without `Last-Event-ID` starts there. */
  firstId: number
  /** A regenerate: the last answer is replaced, once this one is complete. */
  replaces: boolean
  stopped: boolean
  /**
   * A stop's `Last-Event-ID`: the last event the stopping client showed. The stopped turn keeps
   * the answer's events up to it, so what that client kept on screen is what is stored.
   */
  keepUntil: number | undefined
  /** How long it thought, kept with its turn (see `ShownAssistantTurn`). */
  thinking: ThinkingTimer
  reservation: AnswerReservation | undefined
  /** Its span, when tracing is on (and the caller's trace is sampled). */
  trace: CallTrace | undefined
  /** Arms the keep-alive alarm if the answer is still running then. */
  keepAlive: ReturnType<typeof setTimeout>
  finished: Promise<void>
}

/** While an answer runs, an alarm this often keeps the object from being evicted as idle. */
const KEEPALIVE_MS = 30_000
/**
 * The first keep-alive alarm is set only for an answer still running this long after it started
 * (an object with no request is evicted after 70 s at the earliest), so a short answer sets none.
 */
const KEEPALIVE_AFTER_MS = 10_000
const DAY_MS = 24 * 60 * 60 * 1000
/** Registries by the providers a class serves and the Worker's settings: one per isolate. */
const registries = new WeakMap<object, WeakMap<object, Registry>>()
const NO_PROVIDERS: { readonly [provider: string]: ProviderEntry } = Object.freeze({})

/**
 * One conversation (DESIGN §9), or, keyed `client:<id>`, one client's list of conversations. The
 * model call runs here, not in the request that started it: clients come and go, and only `/stop`
 * or `DELETE` ends an answer early. Each event gets an id, goes to every subscriber, is held in
 * memory and written to SQLite in batches (see `createEventLog`); the finished turn is stored once,
 * with its items, which never leave the object. Turns are read from storage when a request needs
 * them (a message, a `GET`) and not kept: the object holds the last turn at most, and a replay
 * reads the stored events a page at a time as its client reads. With tracing set, each answer
 * sends the span `/v1/chat` sends (see `traceCall`), in the trace of the request that started it.
 *
 * Per answer, what costs: its events in batches, the user turn and the answer, the metadata twice
 * (so an eviction is noticed), all in one commit when the answer is quick, and for an answer of
 * more than 10 s a keep-alive alarm. Messages are checked against the client's limits here, where
 * the conversation, the model and its price are known (see `reserveAnswer`). The client's list is not told
 * of every answer: a conversation tells its index once that it has changed, and the index asks it
 * for a fresh line when it next lists.
 */
export class ConversationObject extends DurableObject<Env> {
  #store: ConversationStore
  #meta: Meta | undefined
  /** How many turns are stored, and their bytes. */
  #totals: { turns: number; bytes: number }
  /** The last stored turn, once read (a tool turn is checked against it); null when unknown. */
  #last: Turn | undefined | null = null
  #log: EventLog
  /**
   * The first event the log holds: when an answer ends, the events before it are deleted (the
   * stored turns say what they said), and a resume from before it gets a `reset`.
   */
  #firstKept: number
  #answer: Answer | undefined
  #fanOut: FanOut
  #arming: Promise<void> = Promise.resolve()
  /** The pending alarm's time, null for none, undefined until read. */
  #alarmAt: number | null | undefined
  /** The index has been told this conversation changed (and will ask it when it lists). */
  #announced = false
  /** The most characters of records held at once (logged, not yet written). */
  #peakHeldChars = 0
  /** The most characters of frames one page of a replay held. */
  #peakReplayChars = 0
  /** Index objects (keyed `client:<id>`): the client's list. */
  #index: ListingIndex
  /** The settings this object reads, once (they do not change while it lives). */
  #settings: Settings

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.#settings = settingsOf(env)
    this.#store = createConversationStore(ctx.storage.sql)
    this.#index = createListingIndex(this.#store, (id) => {
      const namespace = this.env.CONVERSATIONS
      return namespace.get(namespace.idFromName(id)).listing()
    })
    this.#meta = this.#store.meta() as Meta | undefined
    this.#totals = this.#meta === undefined ? { turns: 0, bytes: 0 } : this.#store.turnTotals()
    this.#fanOut = this.#newFanOut()
    let lastId = this.#store.lastEventId()
    // Cut by an eviction mid-answer: events held in memory are lost, but clients may have seen
    // their ids, so numbering moves past every id that could have been sent.
    if (this.#meta?.streaming === true) lastId += MAX_BATCH_EVENTS
    this.#log = this.#newLog(lastId)
    this.#firstKept = this.#store.firstEventId() ?? 1
    if (this.#meta?.streaming === true) this.#recover(this.#meta)
  }

  /** Providers served besides those the settings configure (a test Worker adds scripted models). */
  protected providers(): { readonly [provider: string]: ProviderEntry } {
    return NO_PROVIDERS
  }

  /**
   * Row writes since the object started (events, turns, metadata, alarms): what storage costs.
   * And what the object holds: the events logged but not yet written, the characters of their
   * records held (the frames subscribers are sent are made from them, not kept) and the most held
   * at once, the most one page of a replay held, and how many stored turns it keeps in memory (the
   * last one at most): all bounded whatever the length of the answer or of the conversation. And
   * how many tables its database holds (none for an id that was never created), and the first
   * event its log still holds.
   */
  stats(): {
    rowsWritten: number
    lastEventId: number
    heldEvents: number
    heldChars: number
    peakHeldChars: number
    peakReplayChars: number
    turns: number
    cachedTurns: number
    tables: number
    firstKeptEventId: number
  } {
    return {
      rowsWritten: this.#store.rowsWritten,
      tables: this.#store.tables(),
      firstKeptEventId: this.#firstKept,
      lastEventId: this.#log.lastId,
      heldEvents: this.#log.heldEvents,
      heldChars: this.#log.heldChars,
      peakHeldChars: this.#peakHeldChars,
      peakReplayChars: this.#peakReplayChars,
      turns: this.#totals.turns,
      cachedTurns: this.#last === null || this.#last === undefined ? 0 : 1,
    }
  }

  /** The stored turns, items included (for the Worker's own checks; never sent to a browser). */
  storedTurns(): Turn[] {
    return this.#store.turns()
  }

  /**
   * This conversation's line in its client's list, for the index that asks (null once deleted).
   * The index is up to date from here: the next change tells it again.
   */
  listing(): ConversationListing | null {
    const meta = this.#meta
    if (meta === undefined) return null
    this.#announced = false
    if (meta.title === undefined) this.#saveMeta({ ...meta, title: titleOf(this.#store.turns()) })
    return {
      id: meta.id,
      title: this.#meta!.title ?? null,
      updatedAt: meta.updatedAt,
      streaming: this.#answer !== undefined,
    }
  }

  /**
   * Index objects: adds or replaces one conversation of this client, to be checked when listed;
   * false (and nothing added) when the client already holds `max` (0: any number).
   */
  listed(entry: ConversationListing, max = 0): boolean {
    return this.#index.listed(entry, max)
  }

  /** Index objects: a conversation of this client changed; its line is refreshed when listed. */
  changed(id: string): void {
    this.#index.changed(id)
  }

  /** Index objects: forgets a deleted conversation. */
  unlisted(id: string): void {
    this.#index.unlisted(id)
  }

  /** Index objects: this client's conversations, the most recently updated first. */
  conversations(): Promise<{ conversations: ConversationListing[] }> {
    return this.#index.conversations()
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
        return this.#get(meta, request)
      case 'delete':
        return this.#delete(meta)
      case 'messages':
      case 'regenerate':
        return this.#message(request, meta, op === 'messages' ? 'message' : 'regenerate')
      case 'stream':
        return this.#stream(request, url)
      case 'stop':
        return this.#stop(request, url)
      default:
        return errorResponse(404, 'invalid-request', 'no such conversation route')
    }
  }

  /** The time retention is judged by (a test moves it forward). */
  protected now(): number {
    return Date.now()
  }

  override async alarm(): Promise<void> {
    // It rang: none is pending until one is set again.
    this.#alarmAt = null
    if (this.#answer !== undefined) return this.#arm()
    const ttl = this.#settings.ttlMs
    const meta = this.#meta
    if (meta !== undefined && ttl > 0 && Date.parse(meta.updatedAt) + ttl <= this.now()) {
      await this.#erase(meta)
      return
    }
    await this.#arm()
  }

  async #create(request: Request, id: string, clientId: string): Promise<Response> {
    if (this.#meta !== undefined) return errorResponse(409, 'invalid-request', 'id already taken')
    const body = await sentBody(request)
    if (!body.ok) return errorResponse(400, 'invalid-request', body.message)
    const checked = validateCreateRequest(body.value)
    if (!checked.ok) {
      const { field, message } = checked.error
      return errorResponse(400, 'invalid-request', message, { field })
    }
    const now = new Date().toISOString()
    const meta: Meta = {
      id,
      owner: clientId,
      createdAt: now,
      updatedAt: now,
      title: null,
      streaming: false,
    }
    if (checked.value.system !== undefined) meta.system = checked.value.system
    // Listed first, to be checked (the first answers need not tell the index anything), unless
    // the client holds all it may. An index out of reach lists it when it next changes.
    const { perClient } = this.#settings
    const listed = await this.#indexStub(clientId)
      .listed({ id, title: null, updatedAt: now, streaming: false }, perClient)
      .catch(() => undefined)
    if (listed === false) {
      const message = `this client holds at most ${perClient} conversations (CONVERSATION_MAX_PER_CLIENT): delete one to make another`
      return errorResponse(409, 'invalid-request', message)
    }
    this.#saveMeta(meta)
    this.#announced = listed === true
    await this.#arm()
    return jsonResponse(201, { id })
  }

  /** The conversation as a browser sees it (`GET`, a `reset`): its turns without items. */
  #shown(): Conversation {
    const conversation: Conversation = { turns: this.#store.turns().map(displayTurn) }
    const system = this.#meta?.system
    if (system !== undefined) conversation.system = system
    return conversation
  }

  #get(meta: Meta, request: Request): Response {
    // What the answer holds changes with every event, turn and answer: they make its tag, and a
    // client that holds it gets a 304 without a turn read or encoded.
    const { turns, bytes } = this.#totals
    const tag = `"${this.#log.lastId}-${turns}-${bytes}-${this.#answer === undefined ? 0 : 1}"`
    const cache = { etag: tag, 'cache-control': 'private, no-cache' }
    if (request.headers.get('if-none-match') === tag) {
      return new Response(null, { status: 304, headers: cache })
    }
    const body: Record<string, unknown> = {
      id: meta.id,
      conversation: this.#shown(),
      streaming: this.#answer !== undefined,
      lastEventId: this.#log.lastId,
    }
    if (meta.lastError !== undefined) body['lastError'] = meta.lastError
    return jsonResponse(200, body, cache)
  }

  async #delete(meta: Meta): Promise<Response> {
    await this.#erase(meta)
    return new Response(null, { status: 204 })
  }

  /** Stops what runs, ends every stream, and deletes the conversation and its listing. */
  async #erase(meta: Meta): Promise<void> {
    const answer = this.#answer
    this.#answer = undefined
    if (answer !== undefined) {
      clearTimeout(answer.keepAlive)
      answer.controller.abort(new Error('the conversation was deleted'))
      answer.trace?.end({ error: { kind: 'aborted' } })
      if (answer.reservation !== undefined) {
        void settleAnswer(answer.reservation, { streamedChars: answer.chars })
      }
    }
    this.#fanOut.close()
    this.#meta = undefined
    this.#totals = { turns: 0, bytes: 0 }
    this.#last = null
    await this.ctx.storage.deleteAlarm()
    this.#alarmAt = null
    await this.ctx.storage.deleteAll()
    this.#store.deleted()
    this.#log = this.#newLog(0)
    this.#firstKept = 1
    await this.#indexStub(meta.owner).unlisted(meta.id)
  }

  async #stop(request: Request, url: URL): Promise<Response> {
    const seen = parseLastEventId(request, url)
    if (seen === null) {
      return errorResponse(400, 'invalid-request', 'Last-Event-ID must be a whole number', {
        field: 'Last-Event-ID',
      })
    }
    const answer = this.#answer
    if (answer !== undefined) {
      // The first stop says what is kept; one sent again (a second tab, a retry) changes nothing.
      if (!answer.stopped) answer.keepUntil = seen
      answer.stopped = true
      answer.controller.abort(new Error('stopped'))
      // 204 once the stopped turn is stored, so a GET right after it sees it.
      await answer.finished
    }
    return new Response(null, { status: 204 })
  }

  async #message(request: Request, meta: Meta, kind: 'message' | 'regenerate') {
    // The span starts as the request arrives, as on /v1/chat (no clock is read when tracing is off).
    const start = this.#settings.tracing === undefined ? undefined : callStart()
    const busy = () =>
      errorResponse(409, 'invalid-request', 'an answer is in flight: wait for it or stop it')
    if (this.#answer !== undefined) return busy()
    const { limits } = this.#settings
    const body = await sentBody(request)
    if (!body.ok) return errorResponse(400, 'invalid-request', body.message)
    // Another message may have been accepted while the body was read.
    if (this.#answer !== undefined) return busy()
    const last = kind === 'message' ? this.#lastTurn() : undefined
    const checked = validateMessageRequest(
      body.value,
      limits,
      last === undefined ? [] : [last],
      kind,
    )
    if (!checked.ok) {
      const { field, message } = checked.error
      const counted = await countRefusal(this.#settings.limiter, meta.owner)
      return counted ?? errorResponse(400, 'invalid-request', message, { field })
    }
    const { model, turn, options } = checked.value
    const adapter = resolveAdapter(this.registry(), model, this.#settings.allows)
    if (adapter instanceof Response) return adapter

    // What the call sends: every stored turn (read for it, and let go when it ends).
    let base: readonly Turn[]
    let replaces = false
    let turnJson: string | undefined
    let addedBytes = 0
    if (turn === undefined) {
      const regenerate = regenerateBase(this.#store.turns())
      if (regenerate === null) {
        return errorResponse(409, 'invalid-request', 'there is no user or tool turn to answer')
      }
      ;({ turns: base, replaces } = regenerate)
      // The answer it replaces makes room for it.
      const replaced = replaces ? this.#lastTurnBytes() : 0
      const kept = {
        turns: this.#totals.turns - (replaces ? 1 : 0),
        bytes: this.#totals.bytes - replaced,
      }
      const refusal = sizeRefusal(
        kept,
        { turns: 1, bytes: 0, answerTokens: outputReserveOf(adapter, options) },
        this.#settings.sizes,
      )
      if (refusal !== null) return errorResponse(413, 'invalid-request', refusal.message)
    } else {
      turnJson = JSON.stringify(turn)
      addedBytes = utf8Length(turnJson)
      // Room for the turn and its answer.
      const refusal = sizeRefusal(
        this.#totals,
        { turns: 2, bytes: addedBytes, answerTokens: outputReserveOf(adapter, options) },
        this.#settings.sizes,
      )
      if (refusal !== null) return errorResponse(413, 'invalid-request', refusal.message)
      base = [...(this.#totals.turns === 0 ? [] : this.#store.turns()), turn]
    }

    const reserved = await this.#reserve(meta, adapter, options, addedBytes)
    if (reserved instanceof Response) return reserved
    // Deleted, or changed by another message, while the limiter was asked.
    if (this.#meta !== meta || this.#answer !== undefined) {
      if (reserved !== undefined) void settleAnswer(reserved, { released: true })
      return this.#meta === undefined
        ? errorResponse(404, 'invalid-request', 'no such conversation')
        : busy()
    }
    if (turn !== undefined && turnJson !== undefined) this.#storeTurn(turn, turnJson, addedBytes)

    const conversation: Conversation = { turns: base.map(modelTurn) }
    if (meta.system !== undefined) conversation.system = meta.system
    const before = this.#log.lastId
    const trace =
      start === undefined
        ? undefined
        : traceCall(
            this.#settings.tracing,
            request.headers.get('traceparent'),
            {
              provider: adapter.provider,
              model: adapter.model,
              options,
              conversation,
              streamed: true,
              conversationId: meta.id,
            },
            start,
            (promise) => this.ctx.waitUntil(promise),
          )
    this.#startAnswer(meta, base.at(-1)!, replaces, reserved, trace, {
      adapter,
      conversation,
      options,
    })
    // This answer's events, from its `turn`.
    return this.#subscribe(before, undefined, false)
  }

  /**
   * Checks the call against the client's limits as `POST /v1/chat` does (see `reserveAnswer`):
   * a refusal is the 429 that names the limit (the budget, and when it resets).
   */
  async #reserve(
    meta: Meta,
    adapter: Adapter,
    options: CallOptions,
    addedBytes: number,
  ): Promise<AnswerReservation | undefined | Response> {
    const { limiter } = this.#settings
    if (limiter === undefined) return undefined
    const sentBytes = this.#totals.bytes + addedBytes + utf8Length(meta.system ?? '')
    const admitted = await reserveAnswer(limiter, meta.owner, { sentBytes, adapter, options })
    if (admitted.ok) return admitted.reservation
    if (admitted.refusal !== 'unavailable') return limitRefusal(admitted.refusal, errorResponse)
    return errorResponse(503, 'overloaded', 'the rate limiter is unavailable', { retryable: true })
  }

  #startAnswer(
    meta: Meta,
    answered: Turn,
    replaces: boolean,
    reservation: AnswerReservation | undefined,
    trace: CallTrace | undefined,
    call: { adapter: Adapter; conversation: Conversation; options: CallOptions },
  ): void {
    let resolve!: () => void
    const answer: Answer = {
      controller: new AbortController(),
      chars: 0,
      firstId: this.#log.lastId + 1,
      replaces,
      stopped: false,
      keepUntil: undefined,
      thinking: createThinkingTimer(() => performance.now()),
      reservation,
      trace,
      keepAlive: setTimeout(() => void this.#arm(), KEEPALIVE_AFTER_MS),
      finished: new Promise<void>((done) => (resolve = done)),
    }
    this.#answer = answer
    const { lastError: _cleared, ...rest } = this.#meta ?? meta
    this.#saveMeta({ ...rest, streaming: true, updatedAt: new Date().toISOString() })
    this.#publish({ type: 'turn', turn: displayTurn(answered), replaces })
    this.#announce()
    void this.#run(answer, call).finally(resolve)
  }

  async #run(
    answer: Answer,
    call: { adapter: Adapter; conversation: Conversation; options: CallOptions },
  ): Promise<void> {
    const { adapter } = call
    const signal = answer.controller.signal
    let turn: AssistantTurn | undefined
    let failure: ThinkwireError | undefined
    try {
      const idle = this.#settings.idleTimeoutMs
      const events = adapter.stream(call.conversation, {
        ...call.options,
        signal,
        idleTimeoutMs: idle > 0 ? idle : undefined,
      })
      for await (const event of events) {
        if (this.#answer !== answer) return
        answer.trace?.firstChunk()
        answer.thinking.note(event.type)
        if (event.type === 'done') {
          // As /v1/chat sends it: whole non-negative usage, an input on every tool call.
          turn = withThinkingTime(wireTurn(event.turn), answer.thinking.thinkingMs())
          break
        }
        const sent = sentDelta(event)
        answer.chars += streamedCharsOf(sent)
        this.#publish(sent)
      }
      if (turn === undefined && !signal.aborted) {
        throw new Error(`${adapter.provider}: the stream ended without a done event`)
      }
    } catch (error) {
      failure = relayFailure(error, adapter.provider, signal)
    }
    // Deleted meanwhile: nothing is left to store into (and the answer was settled then).
    if (this.#answer !== answer) return
    this.#finish(answer, turn, failure)
  }

  /** Stores and announces how an answer ended, then lets the next one start. */
  #finish(
    answer: Answer,
    complete: AssistantTurn | undefined,
    failure: ThinkwireError | undefined,
  ) {
    clearTimeout(answer.keepAlive)
    const meta = this.#meta!
    const next: Meta = { ...meta, streaming: false, updatedAt: new Date().toISOString() }
    let outcome: CallOutcome
    if (complete !== undefined && !answer.stopped) {
      if (answer.replaces) this.#dropLastTurn()
      this.#storeTurn(complete)
      this.#publish({ type: 'done', turn: displayTurn(complete) })
      outcome = { turn: complete }
    } else if (answer.stopped) {
      outcome = { finishReason: 'aborted' }
      const last = answer.replaces ? this.#lastTurn() : undefined
      if (last?.role === 'assistant') {
        // A stopped regenerate changes nothing: its `done` is the answer that stays.
        this.#publish({ type: 'done', turn: displayTurn(last) })
      } else {
        // What arrived, as plain text: no items (nothing half is replayed) and no tool calls
        // (calls without results could not be sent again), rebuilt from the answer's events up to
        // the last one its stopping client showed.
        const stopped = withThinkingTime(
          partialTurn(foldFrames(this.#framesFrom(answer.firstId, answer.keepUntil))),
          answer.thinking.thinkingMs(),
        )
        this.#storeTurn(stopped)
        this.#publish({ type: 'done', turn: stopped })
      }
    } else {
      const error = failure ?? toThinkwireError(new Error('the answer failed'), undefined)
      this.#publish({ type: 'error', error })
      next.lastError = { kind: error.kind, message: error.message }
      outcome = { error }
    }
    this.#log.flush()
    this.#answer = undefined
    this.#saveMeta(next)
    this.#fanOut.endAnswer(this.#log.lastId)
    this.#trimLog(answer.firstId)
    answer.trace?.end(outcome)
    if (answer.reservation !== undefined) {
      void settleAnswer(
        answer.reservation,
        complete !== undefined
          ? { usage: complete.usage }
          : failure !== undefined
            ? failedEnd(failure, answer.chars)
            : { streamedChars: answer.chars },
      )
    }
    this.#announce()
    void this.#arm()
  }

  /**
   * Deletes the logged events before `id` (an answer's first): a regenerate or a long chat no
   * longer grows the log without end. Readers still catching up from before it are told to
   * reconnect, and get a `reset`.
   */
  #trimLog(id: number): void {
    if (id <= this.#firstKept) return
    this.#store.dropEventsBefore(id)
    this.#firstKept = id
    this.#fanOut.trimmed(id)
  }

  /** An answer cut by an eviction: subscribers that resume get an `error`, and nothing half is kept. */
  #recover(meta: Meta): void {
    const message = 'the answer was interrupted when the relay restarted: regenerate it'
    this.#append({ type: 'error', error: { kind: 'server', message, retryable: true } })
    this.#log.flush()
    this.#saveMeta({
      ...meta,
      streaming: false,
      lastError: { kind: 'server', message },
      updatedAt: new Date().toISOString(),
    })
    this.#announce()
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
    const lastId = this.#log.lastId
    const from = after ?? (answer === undefined ? lastId : answer.firstId - 1)
    if (answer === undefined && !follow && from >= lastId) {
      return new Response(null, { status: 204 })
    }
    // From before what the log holds: the conversation as it is now, then what follows it (the
    // answer in flight after its `turn`, which the conversation holds, or later events).
    let reset: string | undefined
    let start = from
    if (from < this.#firstKept - 1) {
      start = answer === undefined ? lastId : answer.firstId
      reset = resetFrame(start, this.#shown(), answer !== undefined)
      if (answer === undefined && !follow) return new Response(reset, { headers: SSE_HEADERS })
    }
    // Each reader holds what it has not read yet: a bounded number of them (the stream of a
    // message's own answer is not counted against it).
    const { readers } = this.#settings
    if (readers > 0 && this.#fanOut.readers >= readers) {
      const message = `this conversation has ${readers} open streams, the most it serves (CONVERSATION_MAX_READERS): close one and try again`
      return errorResponse(429, 'rate-limit', message, { retryable: true })
    }
    // Without an answer to follow, a replay of what is logged now.
    const until = answer === undefined && !follow ? lastId : undefined
    return this.#subscribe(start, until, follow, reset)
  }

  /**
   * A stream of the events after `after`: what is logged, as its client reads, then live ones;
   * `first` before them.
   */
  #subscribe(after: number, until: number | undefined, follow: boolean, first?: string): Response {
    const stream = this.#fanOut.subscribe({ after, until, follow, first })
    return new Response(stream, { status: 200, headers: SSE_HEADERS })
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

  /** Logs one event and sends it to every subscriber. */
  #publish(event: ConversationEvent): void {
    this.#fanOut.publish(this.#append(event))
    const held = this.#log.heldChars
    if (held > this.#peakHeldChars) this.#peakHeldChars = held
  }

  /** Logs one event, its `data` as the stream's JSON; returns the characters held for it. */
  #append(event: ConversationEvent): number {
    switch (event.type) {
      case 'turn': {
        const data: WireConversationEvents['turn'] = event.replaces
          ? { turn: event.turn, replaces: true }
          : { turn: event.turn }
        return this.#log.append('turn', JSON.stringify(data))
      }
      case 'done':
        return this.#log.append('done', relayData.done(event.turn))
      case 'error':
        return this.#log.append('error', relayData.error(event.error))
      default:
        return this.#log.append(event.type, relayData.delta(event))
    }
  }

  /**
   * The frames from event `id` on (to `until`, when given): the stored batches, read a few at a
   * time, then those held.
   */
  *#framesFrom(id: number, until?: number): Generator<string> {
    for (const batch of this.#store.batchesFrom(id)) {
      if (until !== undefined && batch.firstId > until) return
      yield* splitFrames(framesBetween(batch, id - 1, until))
    }
    const held = this.#log.held(id - 1, until)
    if (held !== null) yield* splitFrames(held.text)
  }

  #newLog(lastId: number): EventLog {
    return createEventLog({
      lastId,
      // What subscribers have not been sent goes out before its batch is written.
      beforeWrite: () => this.#fanOut.flush(),
      write: (batch) => this.#store.addEvents(batch),
    })
  }

  #newFanOut(): FanOut {
    return createFanOut({
      heartbeatMs: this.#settings.heartbeatMs,
      source: {
        read: (after, until) => this.#read(after, until),
        lastId: () => this.#log.lastId,
        take: () => this.#log.take(),
        skip: () => this.#log.skip(),
      },
    })
  }

  /**
   * Sets the alarm: a keep-alive while an answer runs (once it has run `KEEPALIVE_AFTER_MS`),
   * else, with a retention, an alarm no later than the conversation's deadline (one already
   * pending before it is kept: when it rings, it sets the next). One at a time, each deciding
   * from the state when it runs; the pending time is read once, then kept.
   */
  #arm(): Promise<void> {
    this.#arming = this.#arming.then(() => this.#armNow()).catch(() => {})
    return this.#arming
  }

  async #armNow(): Promise<void> {
    const ttl = this.#settings.ttlMs
    const meta = this.#meta
    let at: number
    if (this.#answer !== undefined) at = Date.now() + KEEPALIVE_MS
    else if (meta !== undefined && ttl > 0) at = Date.parse(meta.updatedAt) + ttl
    else return
    this.#alarmAt ??= await this.ctx.storage.getAlarm()
    const pending = this.#alarmAt
    if (pending !== null && pending <= at && (this.#answer === undefined || pending > Date.now())) {
      return
    }
    await this.ctx.storage.setAlarm(at)
    this.#alarmAt = at
    this.#store.countAlarm()
  }

  /** Tells the client's index, once until it next asks, that this conversation changed. */
  #announce(): void {
    const meta = this.#meta
    if (meta === undefined || this.#announced) return
    this.#announced = true
    void this.#indexStub(meta.owner)
      .changed(meta.id)
      .catch(() => {
        this.#announced = false
      })
  }

  #indexStub(owner: string) {
    const namespace = this.env.CONVERSATIONS
    return namespace.get(namespace.idFromName(`client:${owner}`))
  }

  #lastTurn(): Turn | undefined {
    if (this.#last === null)
      this.#last = this.#totals.turns === 0 ? undefined : this.#store.lastTurn()
    return this.#last
  }

  #storeTurn(turn: Turn, json = JSON.stringify(turn), bytes = utf8Length(json)): void {
    this.#store.addTurn(this.#totals.turns, json)
    this.#totals = { turns: this.#totals.turns + 1, bytes: this.#totals.bytes + bytes }
    this.#last = turn
    const meta = this.#meta
    // The list's title: the first user text (saved with the metadata the answer saves next).
    if (meta !== undefined && meta.title === null && turn.role === 'user') {
      const title = titleOf([turn])
      if (title !== null) this.#meta = { ...meta, title }
    }
  }

  /** The bytes the last stored turn counts for (its UTF-8 JSON, as stored); 0 when none is. */
  #lastTurnBytes(): number {
    const last = this.#lastTurn()
    return last === undefined ? 0 : utf8Length(JSON.stringify(last))
  }

  #dropLastTurn(): void {
    const turns = this.#totals.turns - 1
    const bytes = this.#lastTurnBytes()
    this.#store.dropTurn(turns)
    this.#totals = { turns, bytes: this.#totals.bytes - bytes }
    this.#last = null
  }

  #saveMeta(meta: Meta): void {
    this.#meta = meta
    this.#store.saveMeta(meta)
  }

  /** The models this object serves: the settings' and `providers()`, one registry per isolate. */
  protected registry(): Registry {
    const providers = this.providers()
    let byEnv = registries.get(providers)
    if (byEnv === undefined) registries.set(providers, (byEnv = new WeakMap()))
    let registry = byEnv.get(this.env)
    if (registry === undefined)
      byEnv.set(this.env, (registry = registryFromEnv(this.env, providers)))
    return registry
  }
}

/**
 * The JSON body the Worker passed on. The Worker read the client's body under the size and time
 * limits, checked that it is JSON, and sends its text as it came; only the Worker reaches an
 * object, so the body is read here without a second timer or size count.
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

/** What a conversation's object reads of the Worker's settings. */
type Settings = {
  limits: ResolvedLimits
  sizes: ConversationSizeLimits
  /** `CONVERSATION_MAX_PER_CLIENT`: conversations one client may hold (0: any number). */
  perClient: number
  /** `CONVERSATION_MAX_READERS`: streams of one conversation open at once (0: any number). */
  readers: number
  /** Whether the `MODELS` setting lets the relay serve a model. */
  allows: (id: string) => boolean
  limiter: RateLimiter | undefined
  heartbeatMs: number
  idleTimeoutMs: number
  ttlMs: number
  tracing: TracingOptions | undefined
}

/**
 * The `reset` that starts a resume from before what the log holds (DESIGN §9): the conversation
 * as it is now, whether an answer is in flight, and, as its id, the last event it stands for.
 */
function resetFrame(id: number, conversation: Conversation, streaming: boolean): string {
  const data = { conversation, streaming } satisfies WireConversationEvents['reset']
  return `id: ${id}\nevent: reset\ndata: ${JSON.stringify(data)}\n\n`
}

function settingsOf(env: Env): Settings {
  const bounds = conversationBounds(env)
  const limits = limitsFromEnv(env)
  return {
    limits: resolveLimits(requestBounds(env)),
    sizes: { turns: bounds.turns, bytes: bounds.bytes },
    perClient: bounds.perClient,
    readers: bounds.readers,
    allows: modelFilter(modelsSetting(env)),
    limiter: limits === undefined ? undefined : durableRateLimiter(env.RATE_LIMITER, limits),
    ...streamTimes(env),
    ttlMs: bounds.ttlDays * DAY_MS,
    tracing: tracingOf(env),
  }
}

/**
 * The answers' spans, from the settings the Worker traces `/v1/chat` with. A wrong endpoint stops
 * the Worker before any request reaches an object (it answers 500 naming the setting), so here it
 * only turns tracing off.
 */
function tracingOf(env: Env): TracingOptions | undefined {
  try {
    return otlpTracing((name) => setting(env, name))
  } catch {
    return undefined
  }
}
