import type { Adapter, CallOptions } from './adapter.ts'
import type { AssistantTurn, Conversation, Turn, UserPart, UserTurn } from './conversation.ts'
import { ThinkwireError, toThinkwireError } from './errors.ts'
import type { Event, ToolCall } from './events.ts'
import { createNotifier, type Scheduler } from './notifier.ts'
import { toMessages, type ChatMessage } from './messages.ts'
import { applyEvent, initialTurnState, partialTurn, type TurnState } from './reducer.ts'
import type { WirePending } from './wire.ts'
import {
  stoppedResults,
  toolLoop,
  type ToolContext,
  type ToolLoopEvent,
  type ToolLoopResult,
} from './tool-loop.ts'

/** Where a chat is: idle, waiting for the first event, receiving, or failed. */
export type ChatStatus = 'ready' | 'submitted' | 'streaming' | 'error'

export type { Scheduler } from './notifier.ts'

/** Options of a {@link Chat}; all but `adapter` can be changed later with `update()`. */
export type ChatOptions = {
  adapter: Adapter
  /** The conversation to continue. @defaultValue an empty one */
  conversation?: Conversation | undefined
  /** Call options used by every send (a send's own options win). */
  options?: CallOptions | undefined
  /**
   * Answers a tool call on the client. When set, tool calls are answered and the model is called
   * again with the results, up to `maxSteps` calls per send.
   */
  onToolCall?: ((call: ToolCall, context: ToolContext) => unknown) | undefined
  /** @defaultValue 8 */
  maxSteps?: number | undefined
  /** Called with the last assistant turn of a send that finished or was stopped. */
  onFinish?: ((turn: AssistantTurn) => void) | undefined
  /** Called when a send fails. */
  onError?: ((error: ThinkwireError) => void) | undefined
  /**
   * Batches streaming updates to subscribers. Status changes are never delayed.
   * @defaultValue notify at once
   */
  scheduler?: Scheduler | undefined
}

/** An immutable view of a chat, new on every change. */
export type ChatSnapshot = {
  readonly conversation: Conversation
  /** Every message to render, the streaming one last. */
  readonly messages: readonly ChatMessage[]
  readonly status: ChatStatus
  readonly error: ThinkwireError | undefined
  /**
   * A durable conversation's stream dropped and is being resumed (`relayConversation`): say so
   * while an answer is in flight. A stateless chat never sets it.
   */
  readonly reconnecting?: boolean | undefined
  /**
   * What a durable conversation's tool loop waits on (`relayConversation`): server tool calls
   * that wait for a person's decision, and this client's own calls. A stateless chat never sets it.
   */
  readonly pending?: WirePending | undefined
  /**
   * A restart of the relay cut the last answer (a durable conversation's `interrupted` event):
   * `'kept'`, what had arrived of it is kept as a stopped turn; `'retried'`, it is asked again from
   * its start. Undefined again once another answer starts. A stateless chat never sets it.
   */
  readonly interrupted?: 'kept' | 'retried' | undefined
}

/** What `send()` takes: text, parts, or a whole user turn. */
export type ChatInput = string | UserPart[] | UserTurn

/** A send in flight. The object lives as long as the send; its fields follow the answer. */
type Run = {
  /** Aborted by `stop()`: the abort ends the send quietly. */
  readonly controller: AbortController
  /**
   * The turns shown: those the answer builds on (for a regenerate, fewer than the conversation's),
   * then the user turn, which is committed with the first complete answer. So until then they are
   * not the conversation's turns, and after that they are the very same array.
   */
  turns: Turn[]
  /**
   * The answer arriving, from its first event to its `done`. Its message takes the id of the
   * place its turn will have, after `turns`.
   */
  pending?: TurnState | undefined
  /** The last complete assistant turn of this send. */
  last?: AssistantTurn | undefined
  /** A regenerate: until its first complete answer, a stop keeps the answer it would replace. */
  replaces: boolean
}

/**
 * Where a chat is; its `type` is the chat's status. Only `#setState` assigns it. Every state can be
 * asked for `run` (the send shown) and `error` (set only after a failed send), so a send runs
 * while there is a run and no error.
 */
type ChatState =
  | { type: 'ready'; run?: undefined; error?: undefined }
  | { type: 'submitted' | 'streaming'; run: Run; error?: undefined }
  | { type: 'error'; error: ThinkwireError; run: Run }

/**
 * Runs an app's callback. What it throws is the app's error, not the chat's: it neither fails the
 * send nor is swallowed, but reported as an uncaught error (`reportError` where there is one).
 */
function report(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    ;(globalThis.reportError ?? throwLater)(error)
  }
}

/** Throws from a microtask, which a runtime without `reportError` reports as uncaught. */
const throwLater = (error: unknown) =>
  queueMicrotask(() => {
    throw error
  })

/**
 * Owns a conversation and streams the next turn into it. A send appends the user turn and the
 * assistant turn only when the stream succeeds: a failed send leaves `conversation` unchanged.
 * `stop()` keeps what arrived as a plain-text turn with no items, so nothing half is replayed.
 * A `subscribe`/`getSnapshot` pair lets any UI bind to it.
 *
 * @example
 * ```ts
 * const chat = new Chat({ adapter: mock() })
 * for await (const event of chat.send('Hello')) if (event.type === 'text') print(event.text)
 * chat.conversation.turns.length // 2
 * ```
 */
export class Chat {
  #settings: ChatOptions
  #conversation: Conversation
  #state: ChatState = { type: 'ready' }
  #notifier = createNotifier(
    () => this.#makeSnapshot(),
    () => this.#settings.scheduler,
  )

  constructor(options: ChatOptions) {
    this.#settings = options
    this.#conversation = options.conversation ?? { turns: [] }
  }

  /** The conversation: only complete turns, safe to persist and to send anywhere. */
  get conversation(): Conversation {
    return this.#conversation
  }

  get status(): ChatStatus {
    return this.#state.type
  }

  get error(): ThinkwireError | undefined {
    return this.#state.error
  }

  /** True while a send runs. */
  get busy(): boolean {
    return !!this.#running
  }

  /** Changes the options (adapter, call options, callbacks) for the next sends. */
  update(options: Partial<ChatOptions>): void {
    this.#settings = { ...this.#settings, ...options }
  }

  /** Replaces the conversation (e.g. restored from storage). Stops a running send first. */
  setConversation(conversation: Conversation): void {
    const running = this.#running
    this.#conversation = conversation
    // Leaving the running state detaches the send: it is aborted and will change nothing more.
    this.#setState({ type: 'ready' })
    running?.controller.abort()
  }

  /**
   * Sends a user message and streams the answer (and, with `onToolCall`, the steps after it).
   * The returned iterable starts the call when iterated. It throws the `ThinkwireError` when the
   * send fails, and ends quietly when `stop()` stops it.
   */
  send(input: ChatInput, options?: CallOptions): AsyncGenerator<Event, void, undefined> {
    const turn: UserTurn =
      typeof input === 'string' || Array.isArray(input) ? { role: 'user', content: input } : input
    return this.#send([...this.#conversation.turns, turn], options)
  }

  /**
   * Asks again: the last user turn (or the one that failed) is sent again, and its answer replaces
   * the old one once the new answer is complete. After a tool loop failed part-way, the steps it
   * made stay and the failed step is tried again: no tool runs twice.
   */
  regenerate(options?: CallOptions): AsyncGenerator<Event, void, undefined> {
    const state = this.#state
    // After a failure, the turns shown include the message that failed: it is the one to send again.
    const turns = state.error ? state.run.turns : this.#conversation.turns
    // A tool loop that failed after its first step: its steps are committed (the turns shown are
    // the conversation's); call the model again.
    if (state.error && turns.at(-1)?.role === 'tool') return this.#send(turns, options)
    const last = turns.findLastIndex((turn) => turn.role === 'user')
    const user = turns[last]
    if (user?.role !== 'user') {
      throw new ThinkwireError({
        kind: 'invalid-request',
        message: 'regenerate() needs a user turn to answer',
      })
    }
    // It replaces an answer only when its question was answered: a failed send's question was not
    // committed, and sending it again is a retry that replaces nothing.
    return this.#send(turns.slice(0, last + 1), options, this.#conversation.turns.includes(user))
  }

  /**
   * Stops the running send, at once: what arrived stays, as a plain-text assistant turn, and the
   * chat is ready again even while a tool that ignores its signal still runs (what it returns
   * later is dropped).
   */
  stop(): void {
    const run = this.#running
    if (run) this.#keepStopped(run)
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe: (listener: () => void) => () => void = this.#notifier.subscribe

  /** The current snapshot (the same object until something changes). */
  getSnapshot: () => ChatSnapshot = this.#notifier.getSnapshot

  get #running(): Run | undefined {
    const state = this.#state
    return state.error ? undefined : state.run
  }

  /**
   * ready or error → submitted → streaming → ready or error; a send is refused while one runs.
   * `turns` are those to send: they end with the user turn, or with a failed tool step's results.
   */
  async *#send(turns: Turn[], options: CallOptions | undefined, replaces = false) {
    if (this.busy) {
      throw new ThinkwireError({
        kind: 'invalid-request',
        message: 'Chat is busy: call stop() first',
      })
    }
    const { adapter, onToolCall, maxSteps, options: defaults } = this.#settings
    const outer = options?.signal ?? defaults?.signal
    // Aborted before it started: nothing is sent and nothing changes.
    if (outer?.aborted) return
    const run: Run = { controller: new AbortController(), turns, replaces }
    // A stop ends the send at once, also while a tool that ignores its signal still runs: it
    // settles the race below, by which time the run is no longer the chat's running one.
    const stopped = new Promise<void>((resolve) => {
      run.controller.signal.addEventListener('abort', () => resolve())
    })
    this.#setState({ type: 'submitted', run })
    const onOuterAbort = () => this.stop()
    outer?.addEventListener('abort', onOuterAbort)
    // The tool callback of the latest update(), not of the moment the send started: later steps
    // of a loop see the app's current state.
    const execute =
      onToolCall &&
      ((call: ToolCall, context: ToolContext) =>
        (this.#settings.onToolCall ?? onToolCall)(call, context))
    // Its result is not read, so `return()` may leave it without one.
    const loop: AsyncGenerator<ToolLoopEvent, ToolLoopResult | void, undefined> = toolLoop(
      adapter,
      { ...this.#conversation, turns },
      { ...defaults, ...options, signal: run.controller.signal, execute, maxSteps },
    )
    try {
      for (;;) {
        const step = await Promise.race([loop.next(), stopped])
        if (!step || this.#running !== run) {
          // Lets the loop run its cleanup once its tool settles; nothing it makes is used.
          void loop.return().catch(() => {})
          return
        }
        if (step.done) break
        const event = step.value
        this.#apply(run, event)
        if (event.type !== 'tool-results') yield event
      }
      this.#finish(run.last)
    } catch (caught) {
      // Detached, or stopped (what a stop keeps is kept below): the send ends quietly.
      if (this.#running !== run || run.controller.signal.aborted) return
      const error = toThinkwireError(caught, adapter.provider)
      // A regenerate that failed before its answer was complete keeps the answer it would replace
      // on screen (and regenerate() still finds the question to send again).
      if (run.replaces && !run.last) run.turns = this.#conversation.turns
      this.#setState({ type: 'error', error, run })
      report(() => this.#settings.onError?.(error))
      throw error
    } finally {
      outer?.removeEventListener('abort', onOuterAbort)
      // Stopped, or the consumer left the loop early, which is a stop.
      if (this.#running === run) this.#keepStopped(run)
    }
  }

  /** Folds one event of the loop into the run; the first delta moves submitted → streaming. */
  #apply(run: Run, event: ToolLoopEvent): void {
    if (event.type === 'tool-results') {
      this.#commit(run, [...run.turns, event.results])
      this.#notifier.emit()
    } else if (event.type === 'done') {
      run.pending = undefined
      run.last = event.turn
      this.#commit(run, [...run.turns, event.turn])
      // Between the steps of a tool loop nothing streams: the chat waits, as when it was sent.
      this.#setState({ type: 'submitted', run })
    } else {
      // A delta (applyEvent checks that every kind of event is handled).
      run.pending = applyEvent(run.pending ?? initialTurnState, event)
      if (this.#state.type === 'streaming') this.#notifier.schedule()
      else this.#setState({ type: 'streaming', run })
    }
  }

  /**
   * Ends a stopped send. The question stays, and what arrived of its answer (thinking, text) as an
   * `aborted` turn with no items and no tool calls (calls without results could not be sent
   * again); one that is empty is shown as stopped and left out of later requests. Calls whose
   * tools were still running are answered as stopped. A regenerate stopped before its new answer
   * was complete changes nothing: the answer it would replace stays.
   */
  #keepStopped(run: Run): void {
    run.controller.abort()
    if (run.replaces && !run.last) return this.#finish()
    const pending = run.pending
    let last = run.last
    let kept = run.turns
    const asked = kept.at(-1)
    if (pending) {
      last = partialTurn({ ...pending, calls: null })
      kept = [...kept, last]
    } else if (asked?.role === 'assistant' && asked.toolCalls?.length) {
      kept = [...kept, stoppedResults(asked.toolCalls)]
    }
    if (kept !== this.#conversation.turns) this.#commit(run, kept)
    this.#finish(last)
  }

  /** submitted or streaming → ready, reporting `turn` as the send's last. */
  #finish(turn?: AssistantTurn): void {
    this.#setState({ type: 'ready' })
    if (turn) report(() => this.#settings.onFinish?.(turn))
  }

  #commit(run: Run, turns: Turn[]): void {
    this.#conversation = { ...this.#conversation, turns }
    run.turns = turns
  }

  #setState(state: ChatState): void {
    this.#state = state
    this.#notifier.emit()
  }

  #makeSnapshot(): ChatSnapshot {
    const state = this.#state
    return {
      conversation: this.#conversation,
      messages: toMessages(
        state.run?.turns ?? this.#conversation.turns,
        state.type === 'streaming' ? state.run.pending : undefined,
      ),
      status: state.type,
      error: state.error,
    }
  }
}
