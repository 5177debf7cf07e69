import type { ChatInput, ChatSnapshot, ChatStatus, Scheduler } from '../core/chat.ts'
import type { ChatStore } from '../core/chat-store.ts'
import type { ToolResult, ToolTurn, Turn, UserTurn } from '../core/conversation.ts'
import { ThinkwireError, toThinkwireError } from '../core/errors.ts'
import type { ToolCall } from '../core/events.ts'
import { nextFrame } from '../core/next-frame.ts'
import { createNotifier } from '../core/notifier.ts'
import { streamingMessage, toMessages, messageId } from '../core/messages.ts'
import { applyEvent, initialTurnState, type TurnState } from '../core/reducer.ts'
import { executeToolCalls, type ToolContext } from '../core/tool-loop.ts'
import type {
  WireApproval,
  WireApprovalDecision,
  WireCallOptions,
  WireConversationEvents,
  WireConversationRead,
  WireLoopOptions,
  WireToolResult,
} from '../core/wire.ts'
import { isRecord } from '../kit/json.ts'
import { readEventStream, type EventSourceMessage } from '../kit/read-event-stream.ts'
import { parseEvent, relayError } from './parse-event.ts'
import { relayHeaders, responseError, type RelayHeaders } from './relay.ts'

/** Options of {@link relayConversation}. */
export type RelayConversationOptions = {
  /** Where the relay is served: `'https://chat.example.com'`, or `''` for the page's own origin. */
  url: string
  /** The model of each send, as the relay names it (`'provider/model'`); read at each send, see `update()`. */
  model: string
  /** The conversation to open; without it, one is created on the first send. */
  id?: string | undefined
  /** Sent with every request (e.g. `{ authorization: 'Bearer …' }`). */
  headers?: RelayHeaders | undefined
  /** @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
  /**
   * Call options of every send (thinking, tools, ...), and the loop's on the relay: the server
   * tools its model may call (`serverTools`) and its most model calls (`maxSteps`).
   */
  options?: (WireCallOptions & WireLoopOptions) | undefined
  /** Answers tool calls in the browser; each answer is sent as a tool turn, which continues the loop. */
  onToolCall?: ((call: ToolCall, context: ToolContext) => unknown) | undefined
  /** Most tool turns one send answers. @defaultValue 8 */
  maxSteps?: number | undefined
  /** Told the id once the conversation exists on the relay (put it in the page's URL). */
  onId?: ((id: string) => void) | undefined
  /**
   * Follow the conversation while idle: messages sent and answers made elsewhere (another tab,
   * another device) arrive here as they happen, without polling.
   * @defaultValue false
   */
  follow?: boolean | undefined
  /**
   * How `follow` follows. `'websocket'`: a socket the relay's Durable Object holds while it
   * sleeps, so an idle conversation is not billed however many tabs follow it (the store first
   * asks for a ticket, `POST .../ticket`, with `headers` and `fetch`). `'sse'`: the follow stream,
   * which the relay keeps awake with heartbeats. When the relay refuses tickets, or three sockets
   * in a row do not open (a proxy that drops upgrades), the store follows over SSE instead.
   * @defaultValue `'websocket'` where there is a `WebSocket` (browsers, Node 22+), else `'sse'`
   */
  followOver?: 'websocket' | 'sse' | undefined
  /**
   * Opens the follower's socket: `WebSocket` from undici or `ws` in a Node without one, or a fake
   * in tests.
   * @defaultValue `globalThis.WebSocket`
   */
  WebSocket?: (new (url: string) => ConversationSocket) | undefined
  /**
   * Batches streaming updates to subscribers (status changes are never delayed): pass
   * `(flush) => flush()` to be told of every network read at once.
   * @defaultValue once per animation frame (`requestAnimationFrame`, else a 16 ms timer)
   */
  scheduler?: Scheduler | undefined
}

/**
 * What a conversation store uses of a WebSocket: the browser's, undici's and `ws`'s each fit. Its
 * handlers are set, never read; `data` is what a text message holds.
 */
export type ConversationSocket = {
  onopen: SocketHandler<unknown> | null
  onmessage: SocketHandler<{ data: string }> | null
  onclose: SocketHandler<unknown> | null
  send(data: string): void
  close(): void
}

/**
 * A socket's event handler, compared as a method is (bivariantly), so that each runtime's own
 * event types fit it.
 */
type SocketHandler<E> = { handle(event: E): void }['handle']

/** What {@link RelayConversation.update} may change: each is read when a send or regenerate starts. */
export type RelayConversationUpdate = Partial<
  Pick<RelayConversationOptions, 'model' | 'headers' | 'options' | 'onToolCall' | 'maxSteps'>
>

/** The first wait before a reconnection, doubled at each attempt up to `MAX_BACKOFF_MS`. */
const BACKOFF_MS = 250
const MAX_BACKOFF_MS = 8000
/** Sockets in a row that may fail to open before a follower turns to SSE. */
const SOCKET_TRIES = 3
/** How often an open socket says `ping`: proxies close connections idle for a minute or so. */
const PING_MS = 30_000

/**
 * A conversation that lives on a relay (one Durable Object per conversation, DESIGN §9), as a
 * store with the same `messages`, `status`, `send`, `stop` and `regenerate` as `Chat`. The model
 * runs on the relay: a reload, a dropped network or a second tab loses nothing. `load()` restores
 * the conversation and attaches to an answer in flight; a dropped stream resumes from the last
 * event it saw (`Last-Event-ID`), after a backoff, when the browser comes back online and when the
 * page becomes visible; `stop()` stops the answer for every tab. Items never reach the browser;
 * each answer's turn carries instead how long it thought, as the relay measured it
 * (`ShownAssistantTurn`'s `thinkingMs`), the same in every tab and after a reload.
 *
 * @example
 * ```ts
 * const chat = relayConversation({ url: '', model: 'mock/echo', id: params.get('c') ?? undefined })
 * await chat.load()
 * const { messages, send } = useConversation(chat) // thinkwire/react
 * ```
 */
export function relayConversation(options: RelayConversationOptions): RelayConversation {
  return new RelayConversation(options)
}

/** See {@link relayConversation}. */
export class RelayConversation implements ChatStore {
  #options: RelayConversationOptions
  #id: string | undefined
  #turns: Turn[] = []
  /** The user or tool turn sent and not yet acknowledged by the relay's `turn` event. */
  #sent: UserTurn | ToolTurn | undefined
  /** A turn the relay refused (it never reached the conversation): shown, and sent again by `regenerate()`. */
  #refused: UserTurn | ToolTurn | undefined
  #pending: TurnState | undefined
  /** What the relay's tool loop waits on: approvals, and this client's own calls. */
  #approvals: WireApproval[] = []
  #calls: ToolCall[] = []
  /** Results of the waiting step (`tool-result`, or sent by this store), shown beside their calls until its tool turn. */
  #results: ToolResult[] = []
  /** A restart of the relay cut the last answer (`interrupted`), until the next one starts. */
  #interrupted = false
  /** A regenerate runs: its answer replaces the last one only once it is complete. */
  #replacing = false
  /** Stopped here: the answer stays as it was at the stop until its `done` comes. */
  #halted = false
  #status: ChatStatus = 'ready'
  #error: ThinkwireError | undefined
  #lastEventId = 0
  /** The answer's stream being read, and the follow stream; aborted by `dispose()` and before a reconnection. */
  #reading: AbortController | undefined
  #following: AbortController | undefined
  #attempt = 0
  /** Sockets in a row that did not open; from `SOCKET_TRIES` on (or a refused ticket), SSE. */
  #unopened = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  /** A dropped stream waits to be resumed: from `#retry` until the relay answers again. */
  #reconnecting = false
  #notifier = createNotifier(
    () => this.#makeSnapshot(),
    () => this.#options.scheduler ?? nextFrame,
  )
  #disposed = false
  /** Counts loads and disposals: a load that another load or a dispose followed applies nothing. */
  #loads = 0
  /** The last load could not reach the relay: it is tried again (backoff, online, visible). */
  #unreached = false

  constructor(options: RelayConversationOptions) {
    this.#options = options
    this.#id = options.id
    this.#listen('addEventListener')
  }

  /** The conversation's id on the relay, once it exists. */
  get id(): string | undefined {
    return this.#id
  }

  subscribe: (listener: () => void) => () => void = this.#notifier.subscribe

  /**
   * Changes what the next send or regenerate uses (the model picked in a page, a new token): the
   * options given are replaced, the others kept. An answer in flight is not affected.
   */
  update(options: RelayConversationUpdate): void {
    this.#options = { ...this.#options, ...options }
  }

  getSnapshot: () => ChatSnapshot = this.#notifier.getSnapshot

  /**
   * Restores the conversation from the relay, and attaches to an answer in flight (which goes on
   * streaming into the store). Resolves once the conversation is restored; a failure (a deleted
   * conversation, a refused token) rejects and is the store's `error`, and one that did not reach
   * the relay is tried again as a dropped stream is (backoff, online, visible). After `dispose()` it
   * attaches the store again, so an effect may load it and dispose it more than once (React's
   * StrictMode runs every effect twice); of loads that overlap, the last one applies.
   */
  async load(): Promise<void> {
    const loading = ++this.#loads
    if (this.#disposed) {
      this.#disposed = false
      this.#listen('addEventListener')
    }
    if (this.#id === undefined) return
    let body: WireConversationRead
    try {
      body = await (await this.#fetch(`/${this.#id}`, 'GET')).json()
    } catch (caught) {
      const error = toThinkwireError(caught, 'relay')
      // Also the store's error, so that a page that only binds the store shows it.
      if (loading === this.#loads) {
        this.#fail(error)
        this.#unreached = error.kind === 'network'
        if (this.#unreached) this.#retry()
      }
      throw error
    }
    if (loading !== this.#loads) return
    // Reached: whatever dropped is resumed by what follows.
    this.#reconnecting = false
    if (this.#unreached) {
      // Reached at last: the error was only that, and no other try is due.
      this.#unreached = false
      this.#attempt = 0
      clearTimeout(this.#timer)
      if (this.#status === 'error') {
        this.#error = undefined
        this.#status = 'ready'
      }
    }
    this.#turns = body.conversation.turns
    this.#approvals = body.pending?.approvals ?? []
    this.#calls = body.pending?.calls ?? []
    // Attaching to an answer in flight reads it from its start; otherwise what is stored is all.
    this.#lastEventId = body.streaming ? 0 : body.lastEventId
    if (body.lastError !== undefined) {
      this.#error = relayError(body.lastError, 'relay', 'server', 'the last answer failed')
      this.#status = 'error'
    }
    this.#notifier.emit()
    // An answer in flight: read from its start (its `turn` event first), so nothing is missed;
    // it goes on streaming into the store after load() resolved.
    if (this.#options.follow)
      void this.#attach(body.streaming ? undefined : this.#lastEventId, true)
    else if (body.streaming) void this.#attach()
  }

  /** Sends a message; `options` are this send's (see `RelayConversationOptions.options`). */
  async send(input: ChatInput, options?: WireCallOptions & WireLoopOptions): Promise<void> {
    if (this.#busy()) return
    const turn: UserTurn =
      typeof input === 'string' || Array.isArray(input) ? { role: 'user', content: input } : input
    this.#refused = undefined
    await this.#ask('messages', turn, options, 0)
  }

  /**
   * Asks again: a new answer to the last user or tool turn, which replaces the last answer once
   * complete. After a send the relay refused (401, 429, a dropped connection), sends that turn again.
   */
  async regenerate(options?: WireCallOptions & WireLoopOptions): Promise<void> {
    if (this.#busy()) return
    const refused = this.#refused
    this.#refused = undefined
    if (refused !== undefined) return this.#ask('messages', refused, options, 0)
    if (this.#id === undefined) return
    this.#replacing = true
    await this.#ask('regenerate', undefined, options, 0)
  }

  /**
   * Clears the last error. A turn the relay refused leaves `messages` and is returned, so that a
   * page can give the question back to its prompt.
   */
  dismiss(): UserTurn | ToolTurn | undefined {
    const refused = this.#refused
    if (this.#status !== 'error') return undefined
    this.#refused = undefined
    this.#error = undefined
    this.#setStatus('ready')
    return refused
  }

  /**
   * Stops the answer on the relay, for every tab; its `done` (the stopped turn) ends the stream.
   * What is shown at the stop is what is kept: the answer is shown at once as it arrived so far
   * (not a frame later), then stops changing, and the relay keeps it up to the last event this
   * store had (sent as `?lastEventId=`), which every tab then gets.
   */
  stop(): void {
    if (this.#id === undefined || !this.#busy()) return
    this.#halted = true
    this.#notifier.emit()
    void this.#fetch(`/${this.#id}/stop?lastEventId=${this.#lastEventId}`, 'POST').catch(() => {})
  }

  /**
   * Approves a server tool's call that waits (the snapshot's `pending.approvals`): the loop goes on
   * on the relay, and its answer streams into every tab. A refusal is the store's `error`, as a
   * send's is: no such approval (404), decided already (409), expired (410); the call then waits
   * no more.
   */
  approve(approvalId: string): Promise<void> {
    return this.#decide(approvalId, { approve: true })
  }

  /** Denies a call that waits, as `approve()` approves it: the model reads the denial and `reason`. */
  deny(approvalId: string, reason?: string): Promise<void> {
    return this.#decide(approvalId, { approve: false, reason })
  }

  async #decide(approvalId: string, decision: WireApprovalDecision): Promise<void> {
    // As the relay listed it (base64url: nothing to escape).
    const path = `/${this.#id}/approvals/${approvalId}`
    try {
      await this.#fetch(path, 'POST', JSON.stringify(decision))
    } catch (error) {
      // Refused (no such approval, decided already, expired): it waits no more. One that did not
      // reach the relay (fetch's own error) may still wait.
      if (error instanceof ThinkwireError)
        this.#approvals = this.#approvals.filter((a) => a.approvalId !== approvalId)
      return this.#fail(error)
    }
    // The loop goes on on the relay, its `tool-result` first (which ends the wait in every tab):
    // a store that does not follow reads it.
    if (!this.#options.follow) void this.#attach(this.#lastEventId)
  }

  /** Stops reading and listening; the answer goes on on the relay, and `load()` attaches again. */
  dispose(): void {
    this.#disposed = true
    this.#loads++
    this.#reading?.abort()
    this.#following?.abort()
    clearTimeout(this.#timer)
    this.#listen('removeEventListener')
  }

  /** Resumes when the browser comes back online and when the page becomes visible. */
  #listen(method: 'addEventListener' | 'removeEventListener'): void {
    if (typeof window === 'undefined') return
    window[method]('online', this.#resume)
    document[method]('visibilitychange', this.#onVisible)
  }

  #busy(): boolean {
    return this.#status === 'submitted' || this.#status === 'streaming'
  }

  /** Sends a turn (or a regenerate) and reads its answer; answers tool calls and goes on. */
  async #ask(
    route: 'messages' | 'regenerate',
    turn: UserTurn | ToolTurn | undefined,
    options: WireCallOptions | undefined,
    step: number,
  ): Promise<void> {
    this.#sent = turn
    this.#error = undefined
    this.#setStatus('submitted')
    try {
      if (this.#id === undefined) {
        const created = await this.#fetch('', 'POST', '{}')
        this.#id = String(((await created.json()) as { id: unknown }).id)
        this.#options.onId?.(this.#id)
        // From now on, messages and answers from elsewhere (another tab on this id) arrive too.
        if (this.#options.follow) void this.#attach(this.#lastEventId, true)
      }
      const body = { model: this.#options.model, ...this.#options.options, ...options, turn }
      const response = await this.#fetch(`/${this.#id}/${route}`, 'POST', JSON.stringify(body))
      if (response.status === 202) {
        // A tool turn's results, stored while approvals wait: the loop goes on once they are decided.
        this.#results = [...this.#results, ...(turn as ToolTurn).results]
        this.#calls = []
        this.#sent = undefined
        return this.#setStatus('ready')
      }
      await this.#read(response.body)
    } catch (error) {
      // Not accepted (no `turn` event came back): the turn stays on screen, to be sent again.
      if (this.#sent !== undefined) this.#refused = this.#sent
      this.#fail(error)
      return
    }
    // This client's own calls (the relay runs its server tools).
    const calls = this.#calls
    const execute = this.#options.onToolCall
    if (this.#status !== 'ready' || calls.length === 0 || execute === undefined) return
    if (step + 1 >= (this.#options.maxSteps ?? 8)) return
    const results = await executeToolCalls(calls, undefined, (call, context) =>
      (this.#options.onToolCall ?? execute)(call, context),
    )
    await this.#ask('messages', results, options, step + 1)
  }

  /**
   * Reads a conversation stream to its end, resuming from the last event after a drop. An answer's
   * stream ends at its `done` or `error`, a follower's never: any other end (the relay's
   * `reconnect`, a runtime that restarted, a connection closed cleanly) is a drop too.
   */
  async #read(
    body: ReadableStream<Uint8Array> | null,
    follow = false,
    reading = this.#track(follow),
  ): Promise<void> {
    const from = this.#lastEventId
    try {
      const batches = readEventStream(body, {
        provider: 'relay',
        signal: reading.signal,
        decode: (message) => this.#event(message),
      })
      for await (const _ of batches) this.#notifier.schedule()
      // Backing off only while the relay gives nothing new.
      if (this.#lastEventId > from || !this.#busy()) this.#attempt = 0
      if (this.#disposed || reading.signal.aborted) return
      if (this.#busy() || (follow && this.#options.follow)) this.#retry()
    } catch (error) {
      if (this.#disposed || reading.signal.aborted) return
      // A failure the relay sent is the answer's; a dropped connection is resumed.
      if (error instanceof ThinkwireError && error.kind !== 'network') throw error
      if (this.#busy() || this.#options.follow) this.#retry()
    }
  }

  /** Applies one event of the stream; returns nothing (batches only drive rendering). */
  #event(message: EventSourceMessage): undefined {
    const id = Number(message.id)
    if (Number.isSafeInteger(id) && id > 0) {
      // Replayed after a reconnection: seen already.
      if (id <= this.#lastEventId) return undefined
      this.#lastEventId = id
    }
    const name = message.event
    // The conversation's own events carry JSON data, read here; the answer's, by `parseEvent`.
    const data: unknown = /^(tool-|turn|interrupted|reset)/.test(name ?? '')
      ? JSON.parse(message.data)
      : 0
    if (name === 'reset') {
      // Resumed from before what the relay's log holds: the conversation as it is now, then what
      // follows it (the answer in flight, from its start).
      const { conversation, streaming }: Partial<WireConversationEvents['reset']> = isRecord(data)
        ? data
        : {}
      if (isRecord(conversation) && Array.isArray(conversation.turns)) {
        this.#turns = conversation.turns
        this.#pending = undefined
        this.#replacing = false
        if (streaming !== true) this.#setStatus('ready')
      }
      return undefined
    }
    if (name === 'tool-approval' && isRecord(data)) {
      const approval = data as WireApproval
      // Once: an answer read again from its start asks again.
      this.#approvals = [...this.#approvals.filter((a) => a.callId !== approval.callId), approval]
      return undefined
    }
    if (name === 'tool-result' && isRecord(data)) {
      // Its call waits no more, for a person or for this client.
      const result = data as WireToolResult
      this.#results = [...this.#results, result]
      this.#approvals = this.#approvals.filter((a) => a.callId !== result.callId)
      this.#calls = this.#calls.filter((c) => c.id !== result.callId)
      return undefined
    }
    if (name === 'interrupted') {
      // Retried, what was shown of it comes again; else what was kept of it is its `done`.
      if ((data as { retried?: unknown } | null)?.retried === true) this.#pending = undefined
      this.#interrupted = true
      return undefined
    }
    if (name === 'turn') {
      const { turn, replaces }: Partial<WireConversationEvents['turn']> = isRecord(data) ? data : {}
      // A tool turn answers every call of its step; a user turn comes only when nothing waits.
      this.#approvals = []
      this.#calls = []
      this.#results = []
      this.#interrupted = false
      // The turn this answer answers: ours just sent, or (attaching, regenerating) one we have.
      const asked = this.#turns.findLast((t) => t.role !== 'assistant')
      const known = this.#sent === undefined && JSON.stringify(asked) === JSON.stringify(turn)
      if (isRecord(turn) && !known) this.#turns = [...this.#turns, turn]
      // A regenerate, maybe from another tab: its answer takes the last one's place.
      if (replaces === true) this.#replacing = true
      // Ours after all, though its request failed (the answer to the POST was lost): not an error.
      if (this.#refused !== undefined && JSON.stringify(this.#refused) === JSON.stringify(turn)) {
        this.#refused = undefined
        this.#error = undefined
      }
      this.#sent = undefined
      // Sent from another tab: this one shows the answer coming, and can stop it.
      if (!this.#busy()) this.#setStatus('submitted')
      return undefined
    }
    try {
      const event = parseEvent(message, 'relay')
      if (event === undefined) return undefined
      if (event.type === 'done') {
        let turns = this.#turns
        // A regenerate's answer replaces the one after the last user or tool turn.
        if (this.#replacing && turns.at(-1)?.role === 'assistant') turns = turns.slice(0, -1)
        this.#turns = [...turns, event.turn]
        // Its calls the relay neither answered nor asks a person about are this client's.
        const known = [...this.#results, ...this.#approvals].map((r) => r.callId)
        this.#calls = (event.turn.toolCalls ?? []).filter((call) => !known.includes(call.id))
        this.#pending = undefined
        this.#replacing = false
        this.#setStatus('ready')
        return undefined
      }
      // Stopped here: the answer stays as it was shown, until its `done`.
      if (!this.#halted) {
        this.#pending = applyEvent(this.#pending ?? initialTurnState, event)
        if (this.#status !== 'streaming') this.#setStatus('streaming')
      }
    } catch (error) {
      this.#fail(error)
    }
    return undefined
  }

  /** Reconnects after a backoff, from the last event seen. */
  #retry(): void {
    clearTimeout(this.#timer)
    const wait = Math.min(BACKOFF_MS * 2 ** this.#attempt++, MAX_BACKOFF_MS)
    this.#timer = setTimeout(() => this.#resume(), wait)
    this.#setReconnecting(true)
  }

  #resume = (): void => {
    if (this.#id === undefined) return
    if (this.#unreached) return void this.load().catch(() => {})
    if (this.#options.follow) void this.#attach(this.#lastEventId, true)
    else if (this.#busy()) void this.#attach(this.#lastEventId)
  }

  #onVisible = (): void => {
    if (document.visibilityState === 'visible') this.#resume()
  }

  /**
   * `GET .../stream`: the events after `lastEventId` (from the answer's start without it), and
   * with `follow`, every later message and answer too (on a socket where there is one).
   */
  async #attach(lastEventId?: number, follow = false): Promise<void> {
    if (this.#disposed || this.#id === undefined) return
    // Tracked before it connects: a dispose or another attach meanwhile ends it once it has.
    const reading = this.#track(follow)
    clearTimeout(this.#timer)
    if (lastEventId === undefined) this.#setStatus('submitted')
    // The last event seen goes in the query, which the relay reads as it reads Last-Event-ID.
    const after = lastEventId !== undefined && lastEventId > 0 ? `&lastEventId=${lastEventId}` : ''
    try {
      let body = follow ? await this.#socket(after) : null
      if (body === null) {
        const response = await this.#fetch(`/${this.#id}/stream?follow=${follow}${after}`, 'GET')
        // Nothing in flight and nothing missed: the answer ended while we were away.
        if (response.status === 204) {
          this.#setReconnecting(false)
          return await this.load()
        }
        body = response.body
      }
      if (reading.signal.aborted) return void body?.cancel()
      this.#setReconnecting(false)
      await this.#read(body, follow, reading)
    } catch (error) {
      if (reading.signal.aborted) return
      if (error instanceof ThinkwireError && error.kind !== 'network') this.#fail(error)
      else this.#retry()
    }
  }

  /**
   * A follower's socket (`POST .../ticket`, then `.../socket`) as the body of a follow stream,
   * whose frames its messages carry; null where the store follows over SSE.
   */
  async #socket(after: string): Promise<ReadableStream<Uint8Array> | null> {
    const { followOver, WebSocket: Socket = globalThis.WebSocket } = this.#options
    if (followOver === 'sse' || !Socket || this.#unopened >= SOCKET_TRIES) return null
    let ticket: unknown
    try {
      ;({ ticket } = await (await this.#fetch(`/${this.#id}/ticket`, 'POST')).json())
    } catch (error) {
      if (!(error instanceof ThinkwireError) || error.kind === 'network') throw error
      // A relay without sockets (or one refusing this client): SSE says why, if it refuses too.
      this.#unopened = SOCKET_TRIES
      return null
    }
    const url = new URL(
      this.#url(`/${this.#id}/socket?ticket=${ticket}${after}`),
      globalThis.location?.href,
    )
    this.#unopened++
    const socket: ConversationSocket = new Socket(url.href.replace(/^http/, 'ws'))
    const encoder = new TextEncoder()
    let ping: ReturnType<typeof setInterval> | undefined
    // The store made the socket and is its only listener: its `on` handlers are what every
    // WebSocket has (see `ConversationSocket`), and a handler set to null cannot fire late.
    /* oxlint-disable unicorn/prefer-add-event-listener */
    return new Promise((opened, failed) => {
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          socket.onopen = () => {
            this.#unopened = 0
            ping = setInterval(() => socket.send('ping'), PING_MS)
            opened(body)
          }
          // The runtime's answer to a ping is no frame.
          socket.onmessage = ({ data }) => {
            if (data !== 'pong') controller.enqueue(encoder.encode(data))
          }
          // Refused (a browser tells nothing more of a refused upgrade), or dropped: resumed
          // either way (what fails with no ThinkwireError is a dropped connection).
          socket.onclose = () => {
            clearInterval(ping)
            failed()
            controller.close()
          }
        },
        cancel() {
          clearInterval(ping)
          socket.onclose = null
          socket.close()
        },
      })
    })
    /* oxlint-enable unicorn/prefer-add-event-listener */
  }

  /** Aborts what read the answer (or followed), and tracks the next reading instead. */
  #track(follow: boolean): AbortController {
    const reading = new AbortController()
    ;(follow ? this.#following : this.#reading)?.abort()
    if (follow) this.#following = reading
    else this.#reading = reading
    return reading
  }

  /** The relay's URL of `/v1/conversations` + `path`. */
  #url(path: string): string {
    return `${this.#options.url.replace(/\/+$/, '')}/v1/conversations${path}`
  }

  /** A request to `/v1/conversations` + `path`, with a JSON `body` when given. */
  async #fetch(path: string, method: string, body?: string): Promise<Response> {
    const { headers, fetch = globalThis.fetch } = this.#options
    const response = await fetch(this.#url(path), {
      method,
      headers: await relayHeaders(headers, body !== undefined),
      body: body ?? null,
    })
    if (response.ok) return response
    throw await responseError(response, 'relay')
  }

  #fail(error: unknown): void {
    this.#error = toThinkwireError(error, 'relay')
    this.#pending = undefined
    this.#sent = undefined
    this.#replacing = false
    this.#setStatus('error')
  }

  #setReconnecting(reconnecting: boolean): void {
    if (this.#reconnecting === reconnecting) return
    this.#reconnecting = reconnecting
    this.#notifier.emit()
  }

  #setStatus(status: ChatStatus): void {
    // A stop halts an answer until it ends (or fails); a new one is shown again.
    this.#halted &&= status === 'streaming'
    this.#status = status
    this.#notifier.emit()
  }

  #makeSnapshot(): ChatSnapshot {
    const asked = this.#sent ?? this.#refused
    // The waiting step's results, beside their calls, as the tool turn that will hold them.
    const shown = [...this.#turns]
    if (this.#results.length > 0) shown.push({ role: 'tool', results: this.#results })
    if (asked) shown.push(asked)
    const messages = toMessages(shown)
    if (this.#pending !== undefined) {
      // A regenerate's answer streams in the place of the answer it will replace.
      const at =
        this.#replacing && shown.at(-1)?.role === 'assistant' ? shown.length - 1 : shown.length
      if (at < shown.length) messages.pop()
      messages.push(streamingMessage(messageId(at), this.#pending))
    }
    return {
      conversation: { turns: this.#turns },
      // The answers a restart cut, marked.
      messages,
      interrupted: this.#interrupted,
      pending: { approvals: this.#approvals, calls: this.#calls },
      status: this.#status,
      error: this.#error,
      reconnecting: this.#reconnecting,
    }
  }
}
