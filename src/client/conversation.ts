import type { ChatInput, ChatSnapshot, ChatStatus, Scheduler } from '../core/chat.ts'
import type { ChatStore, ChatStoreSnapshot } from '../core/chat-store.ts'
import type { ToolResult, ToolTurn, Turn, UserTurn } from '../core/conversation.ts'
import { ThinkwireError, toThinkwireError } from '../core/errors.ts'
import type { ToolCall } from '../core/events.ts'
import { nextFrame } from '../core/next-frame.ts'
import { createNotifier } from '../core/notifier.ts'
import { toMessages } from '../core/messages.ts'
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

/** The data of the queue's events: a message queued, or the queue as it now is. */
type QueueEvents = WireConversationEvents['queued'] & WireConversationEvents['queue']

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
export function relayConversation(given: RelayConversationOptions): RelayConversation {
  // The store's state lives in this closure: its names minify, where a class's `#fields` do not.
  let options = given
  let id = options.id
  let turns: Turn[] = []
  /** The user or tool turn sent and not yet acknowledged by the relay's `turn` event. */
  let sent: UserTurn | ToolTurn | undefined
  /** A turn the relay refused (it never reached the conversation): shown, and sent again by `regenerate()`. */
  let refused: UserTurn | ToolTurn | undefined
  let pending: TurnState | undefined
  /** What the relay's tool loop waits on: approvals, and this client's own calls. */
  let approvals: WireApproval[] = []
  let calls: ToolCall[] = []
  /** Results of the waiting step (`tool-result`, or sent by this store), shown beside their calls until its tool turn. */
  let results: ToolResult[] = []
  /** A restart of the relay cut the last answer (`interrupted`), until the next one starts. */
  let interrupted: ChatSnapshot['interrupted']
  /**
   * How many turns stay shown while a regenerate or an edit runs (all when undefined): a
   * regenerate's answer takes the place of every turn after the last user turn once complete, an
   * edit's user turn of every turn from its own.
   */
  let cut: number | undefined
  /** The user messages queued on the relay while an answer runs, in the order they will go. */
  let queue: UserTurn[] = []
  /**
   * Stopped here: the answer stays as it was at the stop until its `done` comes, and what this
   * client's tools return after the stop is not sent.
   */
  let halted = false
  let status: ChatStatus = 'ready'
  let error: ThinkwireError | undefined
  let lastEventId = 0
  /** What reads the answer's stream [0] and the follow stream [1]: aborted by `dispose()` and before a reconnection. */
  const readers: AbortController[] = []
  let attempt = 0
  /** Sockets in a row that did not open; from `SOCKET_TRIES` on (or a refused ticket), SSE. */
  let unopened = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  /** A dropped stream waits to be resumed: from `retry` until the relay answers again. */
  let reconnecting = false
  let disposed = false
  /** Counts loads and disposals: a load that another load or a dispose followed applies nothing. */
  let loads = 0
  /** The last load could not reach the relay: it is tried again (backoff, online, visible). */
  let unreached = false

  const busy = () => status === 'submitted' || status === 'streaming'
  /** Follows the conversation: as told, or while messages of its wait in the relay's queue. */
  const follows = () => options.follow || queue[0]
  /** Where a regenerate's answer goes: after the last user turn. */
  const lastUser = () => turns.findLastIndex((turn) => turn.role === 'user') + 1
  /** The index in `turns` of the message at `index` of the snapshot (its id is `m<turn index>`). */
  const turnOf = (index: number) => Number(notifier.getSnapshot().messages[index]?.id.slice(1))

  const setStatus = (next: ChatStatus): void => {
    // A stop halts an answer until it ends (or fails); a new one is shown again.
    halted &&= next === 'streaming'
    status = next
    notifier.emit()
  }

  const setReconnecting = (next: boolean): void => {
    if (reconnecting === next) return
    reconnecting = next
    notifier.emit()
  }

  /** A failure is the store's error; `goesOn`, what runs goes on (a queued message refused). */
  const fail = (caught: unknown, goesOn?: boolean): void => {
    error = toThinkwireError(caught, 'relay')
    if (goesOn) return notifier.emit()
    pending = sent = cut = undefined
    setStatus('error')
  }

  /** The relay's URL of `/v1/conversations` + `path`. */
  const url = (path: string) => `${options.url.replace(/\/+$/, '')}/v1/conversations${path}`

  /**
   * A request to `/v1/conversations/<id>` + `path`, with `body` as JSON when given, and `seen` as
   * its `Last-Event-ID` when given.
   */
  const request = async (
    path: string,
    method = 'POST',
    body?: object,
    seen?: number,
  ): Promise<Response> => {
    const { headers, fetch = globalThis.fetch } = options
    const requestHeaders = await relayHeaders(headers, !!body)
    if (seen !== undefined) requestHeaders.set('last-event-id', String(seen))
    const response = await fetch(url(path), {
      method,
      headers: requestHeaders,
      body: body ? JSON.stringify(body) : null,
    })
    if (response.ok) return response
    throw await responseError(response, 'relay')
  }

  /**
   * A request whose refusal is the store's error: what runs goes on, unless `onRefusal` is given
   * (told first). What it changes comes as events (a switch's `reset`, the cleared `queue`, the
   * loop going on), which a store that does not follow reads after it.
   */
  const tell = async (
    path: string,
    method: string,
    body?: object,
    onRefusal?: (caught: unknown) => void,
  ): Promise<void> => {
    try {
      await request(path, method, body)
    } catch (caught) {
      onRefusal?.(caught)
      return fail(caught, !onRefusal)
    }
    if (!follows() && !busy()) void attach(lastEventId)
  }

  /** Aborts what read the answer (or followed), and tracks the next reading instead. */
  const track = (follow: boolean): AbortController => {
    readers[+follow]?.abort()
    return (readers[+follow] = new AbortController())
  }

  /** Resumes when the browser comes back online and when the page becomes visible. */
  const listen = (method: 'addEventListener' | 'removeEventListener'): void => {
    if (typeof window === 'undefined') return
    window[method]('online', resume)
    document[method]('visibilitychange', onVisible)
  }

  /** Reconnects after a backoff, from the last event seen. */
  const retry = (): void => {
    clearTimeout(timer)
    timer = setTimeout(resume, Math.min(BACKOFF_MS * 2 ** attempt++, MAX_BACKOFF_MS))
    setReconnecting(true)
  }

  const resume = (): void => {
    if (id === undefined) return
    if (unreached) return void load().catch(() => {})
    if (follows()) void attach(lastEventId, true)
    else if (busy()) void attach(lastEventId)
  }

  const onVisible = (): void => {
    if (document.visibilityState === 'visible') resume()
  }

  const load = async (): Promise<void> => {
    const loading = ++loads
    if (disposed) {
      disposed = false
      listen('addEventListener')
    }
    if (id === undefined) return
    let body: WireConversationRead
    try {
      body = await (await request(`/${id}`, 'GET')).json()
    } catch (caught) {
      const failure = toThinkwireError(caught, 'relay')
      // Also the store's error, so that a page that only binds the store shows it.
      if (loading === loads) {
        fail(failure)
        unreached = failure.kind === 'network'
        if (unreached) retry()
      }
      throw failure
    }
    if (loading !== loads) return
    // Reached: whatever dropped is resumed by what follows.
    reconnecting = false
    if (unreached) {
      // Reached at last: the error was only that, and no other try is due.
      unreached = false
      attempt = 0
      clearTimeout(timer)
      if (status === 'error') {
        error = undefined
        status = 'ready'
      }
    }
    const { conversation, streaming, lastError } = body
    turns = conversation.turns
    approvals = body.pending?.approvals ?? []
    calls = body.pending?.calls ?? []
    results = body.pending?.results ?? []
    queue = body.queue ?? []
    // Attaching to an answer in flight reads it from its start; otherwise what is stored is all.
    lastEventId = streaming ? 0 : body.lastEventId
    if (lastError !== undefined) {
      error = relayError(lastError, 'relay', 'server', 'the last answer failed')
      status = 'error'
    }
    notifier.emit()
    // An answer in flight: read from its start (its `turn` event first), so nothing is missed;
    // it goes on streaming into the store after load() resolved.
    if (follows()) void attach(streaming ? undefined : lastEventId, true)
    else if (streaming) void attach()
  }

  /**
   * Sends a turn, a regenerate or an edit (`wire`: what the body says of the turn) and reads its
   * answer; answers tool calls and goes on. While an answer runs, the relay queues a message: what
   * is shown stays as it is, and the message waits in `queue`.
   */
  const ask = async (
    route: 'messages' | 'regenerate' | 'edit',
    turn: UserTurn | ToolTurn | undefined,
    call: WireCallOptions | undefined,
    step = 0,
    wire: object = { turn },
  ): Promise<void> => {
    const queuing = busy()
    if (!queuing) {
      sent = turn
      error = undefined
      setStatus('submitted')
    }
    try {
      if (id === undefined) {
        id = String(((await (await request('', 'POST', {})).json()) as { id: unknown }).id)
        options.onId?.(id)
        // From now on, messages and answers from elsewhere (another tab on this id) arrive too.
        if (follows()) void attach(lastEventId, true)
      }
      const body = { model: options.model, ...options.options, ...call, ...wire }
      // With the last event this store has: its answer's stream then starts with what came before
      // its `turn` and this store has not read (another tab's answer its follow stream has not
      // brought yet), which it would otherwise drop as seen once that `turn` is read.
      const response = await request(`/${id}/${route}`, 'POST', body, lastEventId)
      if (response.status === 202) {
        if (turn?.role === 'tool') {
          // Its results, stored while approvals wait: the loop goes on once they are decided.
          results = [...results, ...turn.results]
          calls = []
        }
        // A message queued (`{ queued }`): the `queued` event puts it in `queue`, and its answer
        // comes after those before it, which a store that does not follow follows meanwhile.
        else if (!options.follow) void attach(lastEventId, true)
        sent = undefined
        return setStatus(queuing ? status : 'ready')
      }
      await read(response.body)
    } catch (caught) {
      // Not accepted (no `turn` event came back): a message stays on screen, to be sent again
      // (one refused while an answer runs is only said: that answer goes on).
      if (cut === undefined && !queuing) refused = sent ?? refused
      return fail(caught, queuing)
    }
    // This client's own calls (the relay runs its server tools).
    const asked = calls
    const execute = options.onToolCall
    if (status !== 'ready' || !asked.length || !execute || ++step >= (options.maxSteps ?? 8)) return
    const answered = await executeToolCalls(asked, undefined, (toolCall, context) =>
      (options.onToolCall ?? execute)(toolCall, context),
    )
    // Stopped meanwhile, or answered elsewhere (another tab's tool turn): nothing waits for them.
    if (!halted && calls.length === asked.length) await ask('messages', answered, call, step)
  }

  /**
   * Reads a conversation stream to its end, resuming from the last event after a drop. An answer's
   * stream ends at its `done` or `error`, a follower's never: any other end (the relay's
   * `reconnect`, a runtime that restarted, a connection closed cleanly) is a drop too.
   */
  const read = async (
    body: ReadableStream<Uint8Array> | null,
    follow = false,
    reader = track(follow),
  ): Promise<void> => {
    const from = lastEventId
    /** The stream's last event, whether another stream brought it first or not. */
    let last: string | undefined
    try {
      const batches = readEventStream(body, {
        provider: 'relay',
        signal: reader.signal,
        decode(message) {
          last = message.event
          return apply(message)
        },
      })
      for await (const _ of batches) notifier.schedule()
      // Backing off only while the relay gives nothing new.
      if (lastEventId > from || !busy()) attempt = 0
    } catch (caught) {
      // A failure the relay sent is the answer's; a dropped connection is resumed.
      if (caught instanceof ThinkwireError && caught.kind !== 'network') throw caught
    }
    if (disposed || reader.signal.aborted) return
    // An answer's stream that ended at its `done` or `error` is not resumed, even if the store is
    // busy again: the follow stream may have brought that end first, then the next answer (a
    // queued message's), and a resume would replace that stream, from an event the relay may no
    // longer keep (its `reset` does not say the queue).
    if ((busy() && last !== 'done' && last !== 'error') || (follow && follows())) retry()
  }

  /** Applies one event of the stream; returns nothing (batches only drive rendering). */
  const apply = (message: EventSourceMessage): undefined => {
    const seen = Number(message.id)
    if (Number.isSafeInteger(seen) && seen > 0) {
      // Replayed after a reconnection: seen already.
      if (seen <= lastEventId) return
      lastEventId = seen
    }
    const name = message.event ?? ''
    if (!/^(tool-|turn|interrupted|reset|queue)/.test(name)) {
      // The answer's events, read by `parseEvent`.
      try {
        const event = parseEvent(message, 'relay')
        if (event?.type === 'done') {
          // A regenerate's answer takes the place of every turn after the last user turn.
          turns = [...turns.slice(0, cut), event.turn]
          // Its calls the relay neither answered nor asks a person about are this client's.
          const known = [...results, ...approvals].map((r) => r.callId)
          calls = (event.turn.toolCalls ?? []).filter((c) => !known.includes(c.id))
          pending = cut = undefined
          setStatus('ready')
        } else if (event && !halted) {
          // Stopped here, the answer stays as it was shown, until its `done`.
          pending = applyEvent(pending ?? initialTurnState, event)
          if (status !== 'streaming') setStatus('streaming')
        }
      } catch (caught) {
        fail(caught)
      }
      return
    }
    // The conversation's own events, whose data is a JSON object.
    const data: unknown = JSON.parse(message.data)
    if (!isRecord(data)) return
    if (name === 'tool-approval') {
      const approval = data as WireApproval
      // Once: an answer read again from its start asks again.
      approvals = [...approvals.filter((a) => a.callId !== approval.callId), approval]
    } else if (name === 'tool-result') {
      // Its call waits no more, for a person or for this client.
      const result = data as WireToolResult
      results = [...results, result]
      approvals = approvals.filter((a) => a.callId !== result.callId)
      calls = calls.filter((c) => c.id !== result.callId)
    } else if (name === 'interrupted') {
      // Retried, what was shown of it comes again; else what was kept of it is its `done`.
      interrupted = 'kept'
      if (data['retried'] === true) {
        interrupted = 'retried'
        pending = undefined
      }
    } else if (name === 'reset') {
      // The conversation as it is now: resumed from before what the relay's log holds (then what
      // follows it, the answer in flight from its start), or after a change no other event says
      // (a switch to another version, a stopped or failed edit, a stop of a loop that waited).
      const {
        conversation,
        streaming,
        queue: now,
        pending: waits,
      }: Partial<WireConversationEvents['reset']> = data
      // A resume's: the events that changed the queue may be gone from the relay's log.
      queue = now ?? queue
      // What the loop waits on, as `GET` lists it (nothing without a tool step): the approvals,
      // calls and results a resume missed, or none. A relay that lists no results leaves those
      // shown beside their calls with their step.
      approvals = waits?.approvals ?? []
      calls = waits?.calls ?? []
      results = waits?.results ?? (waits ? results : [])
      if (isRecord(conversation) && Array.isArray(conversation.turns)) {
        turns = conversation.turns
        pending = cut = undefined
        // An edit that failed stays an error.
        if (!streaming && busy()) setStatus('ready')
      }
    } else if (name === 'turn') {
      const { turn, replaces, at }: Partial<WireConversationEvents['turn']> = data
      // A tool turn answers every call of its step; a user turn comes only when nothing waits.
      approvals = []
      calls = []
      results = []
      interrupted = undefined
      // A regenerate, maybe from another tab: its answer takes the place of every turn after the
      // last user turn. An edit: its turn takes that of the turn at `at`, and of all after it.
      cut = replaces ? lastUser() : (at ?? cut)
      const said = JSON.stringify(turn)
      // The turn this answer answers: ours just sent, or (attaching, regenerating) one we have.
      const known = replaces || (!sent && JSON.stringify(turns.slice(0, cut).at(-1)) === said)
      if (isRecord(turn) && !known) {
        turns = [...turns.slice(0, cut), turn]
        cut = undefined
      }
      // Ours after all, though its request failed (the answer to the POST was lost): not an error.
      if (refused && JSON.stringify(refused) === said) refused = error = undefined
      sent = undefined
      // Sent from another tab: this one shows the answer coming, and can stop it.
      if (!busy()) setStatus('submitted')
    } else {
      // `queued`: a message took its place (told twice, it is there once); `queue`: the queue as
      // it now is (its first went, its `turn` follows, or was refused, or the queue was cleared).
      const { turn, position, queue: now }: Partial<QueueEvents> = data
      queue = now ?? [...queue]
      if (position) queue[position - 1] = turn!
    }
  }

  /**
   * `GET .../stream`: the events after `after` (from the answer's start without it), and with
   * `follow`, every later message and answer too (on a socket where there is one).
   */
  const attach = async (after?: number, follow = false): Promise<void> => {
    if (disposed || id === undefined) return
    // Tracked before it connects: a dispose or another attach meanwhile ends it once it has.
    const reader = track(follow)
    clearTimeout(timer)
    if (after === undefined) setStatus('submitted')
    // The last event seen goes in the query, which the relay reads as it reads Last-Event-ID.
    const query = after ? `&lastEventId=${after}` : ''
    try {
      let body = follow ? await socket(query) : null
      if (body === null) {
        const response = await request(`/${id}/stream?follow=${follow}${query}`, 'GET')
        // Nothing in flight and nothing missed: the answer ended while we were away.
        if (response.status === 204) {
          setReconnecting(false)
          return await load()
        }
        body = response.body
      }
      if (reader.signal.aborted) return void body?.cancel()
      setReconnecting(false)
      await read(body, follow, reader)
    } catch (caught) {
      if (reader.signal.aborted) return
      if (caught instanceof ThinkwireError && caught.kind !== 'network') fail(caught)
      else retry()
    }
  }

  /**
   * A follower's socket (`POST .../ticket`, then `.../socket`) as the body of a follow stream,
   * whose frames its messages carry; null where the store follows over SSE.
   */
  const socket = async (query: string): Promise<ReadableStream<Uint8Array> | null> => {
    const { followOver, WebSocket: Socket = globalThis.WebSocket } = options
    if (followOver === 'sse' || !Socket || unopened >= SOCKET_TRIES) return null
    let ticket: unknown
    try {
      ;({ ticket } = await (await request(`/${id}/ticket`)).json())
    } catch (caught) {
      if (!(caught instanceof ThinkwireError) || caught.kind === 'network') throw caught
      // A relay without sockets (or one refusing this client): SSE says why, if it refuses too.
      unopened = SOCKET_TRIES
      return null
    }
    const address = new URL(
      url(`/${id}/socket?ticket=${ticket}${query}`),
      globalThis.location?.href,
    )
    unopened++
    const opened: ConversationSocket = new Socket(address.href.replace(/^http/, 'ws'))
    const encoder = new TextEncoder()
    let ping: ReturnType<typeof setInterval> | undefined
    // The store made the socket and is its only listener: its `on` handlers are what every
    // WebSocket has (see `ConversationSocket`), and a handler set to null cannot fire late.
    /* oxlint-disable unicorn/prefer-add-event-listener */
    return new Promise((open, failed) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          opened.onopen = () => {
            unopened = 0
            ping = setInterval(() => opened.send('ping'), PING_MS)
            open(body)
          }
          // The runtime's answer to a ping is no frame.
          opened.onmessage = ({ data }) => {
            if (data !== 'pong') controller.enqueue(encoder.encode(data))
          }
          // Refused (a browser tells nothing more of a refused upgrade), or dropped: resumed
          // either way (what fails with no ThinkwireError is a dropped connection).
          opened.onclose = () => {
            clearInterval(ping)
            failed()
            controller.close()
          }
        },
        cancel() {
          clearInterval(ping)
          opened.onclose = null
          opened.close()
        },
      })
    })
    /* oxlint-enable unicorn/prefer-add-event-listener */
  }

  /**
   * A decision on an approval: refused (no such approval, decided already, expired), it waits no
   * more; one that did not reach the relay (fetch's own error) may still wait. The loop goes on
   * on the relay, its `tool-result` first (which ends the wait in every tab).
   */
  const decide = (approvalId: string, decision: WireApprovalDecision) =>
    // As the relay listed it (base64url: nothing to escape).
    tell(`/${id}/approvals/${approvalId}`, 'POST', decision, (caught) => {
      if (caught instanceof ThinkwireError)
        approvals = approvals.filter((a) => a.approvalId !== approvalId)
    })

  const notifier = createNotifier(
    (): ConversationSnapshot => {
      const asked = sent ?? refused
      // A regenerate's or an edit's answer streams in the place of what it will replace.
      const shown = turns.slice(0, cut)
      // The waiting step's results, beside their calls, as the tool turn that will hold them.
      if (results.length) shown.push({ role: 'tool', results })
      if (asked) shown.push(asked)
      return {
        conversation: { turns },
        messages: toMessages(shown, pending),
        interrupted,
        pending: { approvals, calls },
        queue,
        status,
        error,
        reconnecting,
      }
    },
    () => options.scheduler ?? nextFrame,
  )
  listen('addEventListener')

  return {
    get id() {
      return id
    },
    subscribe: notifier.subscribe,
    getSnapshot: notifier.getSnapshot,
    update(changes) {
      options = { ...options, ...changes }
    },
    load,
    async send(input, call) {
      // While the first send makes the conversation, there is none to queue on yet.
      if (!busy()) refused = undefined
      else if (id === undefined) return
      await ask(
        'messages',
        typeof input === 'string' || Array.isArray(input)
          ? { role: 'user', content: input }
          : input,
        call,
      )
    },
    async regenerate(call) {
      if (busy()) return
      const again = refused
      refused = undefined
      if (again) return ask('messages', again, call)
      if (id === undefined) return
      cut = lastUser()
      await ask('regenerate', undefined, call)
    },
    async edit(index, content, call) {
      if (busy()) return
      refused = undefined
      cut = turnOf(index)
      await ask('edit', { role: 'user', content }, call, 0, { turn: cut, content })
    },
    selectBranch: (index, version) =>
      tell(`/${id}/branch`, 'POST', { turn: turnOf(index), index: version }),
    clearQueue: () => tell(`/${id}/queue`, 'DELETE'),
    rename: (title) => tell(`/${id}`, 'PATCH', { title }),
    dismiss() {
      const again = refused
      if (!error) return undefined
      refused = error = undefined
      setStatus(busy() ? status : 'ready')
      return again
    },
    stop() {
      // While the loop waits (on an approval, on results) no stream is open: the relay answers
      // every call that waits as stopped, and a store that does not follow reads that after.
      const waiting = !busy()
      if (id === undefined || (waiting && !approvals.length && !calls.length)) return
      halted = true
      notifier.emit()
      void tell(`/${id}/stop?lastEventId=${lastEventId}`, 'POST')
    },
    approve: (approvalId) => decide(approvalId, { approve: true }),
    deny: (approvalId, reason) => decide(approvalId, { approve: false, reason }),
    dispose() {
      disposed = true
      loads++
      for (const reader of readers) reader?.abort()
      clearTimeout(timer)
      listen('removeEventListener')
    },
  }
}

/**
 * What a {@link RelayConversation} shows: a chat's snapshot, with what its relay's tool loop waits
 * on (`pending`), the user messages that wait in its relay's queue (`queue`), and whether a dropped
 * stream is being resumed (`reconnecting`). Each message with other versions has its `branch`.
 */
export type ConversationSnapshot = ChatStoreSnapshot & {
  readonly queue: readonly UserTurn[]
  readonly reconnecting: boolean
}

/**
 * A conversation on a relay, made by {@link relayConversation}: a {@link ChatStore} that
 * `useConversation` binds, with what a page does with a conversation that outlives it. Its
 * methods need no `this`; none rejects (a failure is the snapshot's `error`) but `load()`.
 */
export type RelayConversation = Omit<ChatStore, 'getSnapshot'> & {
  /** The conversation's id on the relay, once it exists. */
  readonly id: string | undefined
  getSnapshot(): ConversationSnapshot
  /**
   * Changes what the next send or regenerate uses (the model picked in a page, a new token): the
   * options given are replaced, the others kept. An answer in flight is not affected.
   */
  update(options: RelayConversationUpdate): void
  /**
   * Restores the conversation from the relay, and attaches to an answer in flight (which goes on
   * streaming into the store). Resolves once the conversation is restored; a failure (a deleted
   * conversation, a refused token) rejects and is the store's `error`, and one that did not reach
   * the relay is tried again as a dropped stream is (backoff, online, visible). After `dispose()` it
   * attaches the store again, so an effect may load it and dispose it more than once (React's
   * StrictMode runs every effect twice); of loads that overlap, the last one applies.
   */
  load(): Promise<void>
  /**
   * Sends a message; `options` are this send's (see `RelayConversationOptions.options`). While an
   * answer runs (or a loop waits, or others wait), the relay queues it: it shows in the snapshot's
   * `queue` until its turn comes, and a store that does not follow follows meanwhile. A refusal
   * then is the store's `error`, and the answer goes on.
   */
  send(input: ChatInput, options?: WireCallOptions & WireLoopOptions): Promise<void>
  /**
   * Asks again: a new answer to the last user turn, which takes the place of the last answer (of
   * every turn after that user turn) once complete; the old one stays a version away (the
   * message's `branch`). After a send the relay refused (401, 429, a dropped connection), sends
   * that turn again.
   */
  regenerate(options?: WireCallOptions & WireLoopOptions): Promise<void>
  /**
   * Sends a new version of the user message at `index` of `messages` (from 0): the messages from
   * there on give way to it and its answer, which is what the model gets; the old version stays a
   * `branch` away. Stopped or failed, the conversation stays as it was. Refused (409) while an
   * answer runs, a loop waits or messages are queued.
   */
  edit(
    index: number,
    content: UserTurn['content'],
    options?: WireCallOptions & WireLoopOptions,
  ): Promise<void>
  /**
   * Shows version `version` (from 0, as `branch.index`) of the message at `index` of `messages`
   * that has a `branch`: the conversation goes on under it as it last did there, in every tab.
   */
  selectBranch(index: number, version: number): Promise<void>
  /** Drops the messages that wait in the relay's queue, for every tab; what runs goes on. */
  clearQueue(): Promise<void>
  /** Gives the conversation a title (1 to 200 characters, one line), which its list shows. */
  rename(title: string): Promise<void>
  /**
   * Clears the last error. A turn the relay refused leaves `messages` and is returned, so that a
   * page can give the question back to its prompt.
   */
  dismiss(): UserTurn | ToolTurn | undefined
  /**
   * Stops the answer on the relay, for every tab; its `done` (the stopped turn) ends the stream.
   * What is shown at the stop is what is kept: the answer is shown at once as it arrived so far
   * (not a frame later), then stops changing, and the relay keeps it up to the last event this
   * store had (sent as `?lastEventId=`), which every tab then gets.
   */
  stop(): void
  /**
   * Approves a server tool's call that waits (the snapshot's `pending.approvals`): the loop goes on
   * on the relay, and its answer streams into every tab. A refusal is the store's `error`, as a
   * send's is: no such approval (404), decided already (409), expired (410); the call then waits
   * no more.
   */
  approve(approvalId: string): Promise<void>
  /** Denies a call that waits, as `approve()` approves it: the model reads the denial and `reason`. */
  deny(approvalId: string, reason?: string): Promise<void>
  /** Stops reading and listening; the answer goes on on the relay, and `load()` attaches again. */
  dispose(): void
}
