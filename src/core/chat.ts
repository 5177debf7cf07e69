import type { Adapter, CallOptions } from './adapter.ts'
import type {
  AssistantTurn,
  Conversation,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from './conversation.ts'
import { isThinkwireError, ThinkwireError, toThinkwireError } from './errors.ts'
import type { Event, ToolCall } from './events.ts'
import { adoptId, idOf, toMessages, type ChatMessage } from './messages.ts'
import { applyEvent, initialTurnState, partialTurn, type TurnState } from './reducer.ts'
import { executeToolCalls, type ToolContext } from './tools.ts'

/** Where a chat is: idle, waiting for the first event, receiving, or failed. */
export type ChatStatus = 'ready' | 'submitted' | 'streaming' | 'error'

/** Runs a callback soon: once per animation frame in a browser, at once in tests. */
export type Scheduler = (flush: () => void) => void

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
}

/** What `send()` takes: text, parts, or a whole user turn. */
export type ChatInput = string | UserPart[] | UserTurn

const immediate: Scheduler = (flush) => flush()

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
  #status: ChatStatus = 'ready'
  #error: ThinkwireError | undefined
  /** Turns shown while a send runs (or after it failed): the base, then the draft. */
  #base: readonly Turn[] | undefined
  #draft: Turn[] = []
  #pending: { state: TurnState; id: string } | undefined
  #controller: AbortController | undefined
  #stopped = false
  #listeners = new Set<() => void>()
  #snapshot: ChatSnapshot
  #dirty = false

  constructor(options: ChatOptions) {
    this.#settings = options
    this.#conversation = options.conversation ?? { turns: [] }
    this.#snapshot = this.#makeSnapshot()
  }

  /** The conversation: only complete turns, safe to persist and to send anywhere. */
  get conversation(): Conversation {
    return this.#conversation
  }

  get status(): ChatStatus {
    return this.#status
  }

  get error(): ThinkwireError | undefined {
    return this.#error
  }

  /** True while a send runs. */
  get busy(): boolean {
    return this.#controller !== undefined
  }

  /** Changes the options (adapter, call options, callbacks) for the next sends. */
  update(options: Partial<ChatOptions>): void {
    this.#settings = { ...this.#settings, ...options }
  }

  /** Replaces the conversation (e.g. restored from storage). Stops a running send first. */
  setConversation(conversation: Conversation): void {
    // Detach a running send: it is aborted and will change nothing more.
    const running = this.#controller
    this.#controller = undefined
    running?.abort()
    this.#conversation = conversation
    this.#base = undefined
    this.#draft = []
    this.#error = undefined
    this.#status = 'ready'
    this.#notify(true)
  }

  /**
   * Sends a user message and streams the answer (and, with `onToolCall`, the steps after it).
   * The returned iterable starts the call when iterated. It throws the `ThinkwireError` when the
   * send fails, and ends quietly when `stop()` stops it.
   */
  send(input: ChatInput, options?: CallOptions): AsyncGenerator<Event, void, undefined> {
    const turn: UserTurn =
      typeof input === 'string' || Array.isArray(input) ? { role: 'user', content: input } : input
    return this.#run(this.#conversation.turns, turn, options)
  }

  /**
   * Asks again: the last user turn (or the one that failed) is sent again, and its answer replaces
   * the old one once the new answer is complete.
   */
  regenerate(options?: CallOptions): AsyncGenerator<Event, void, undefined> {
    if (this.#status === 'error' && this.#base !== undefined && this.#draft[0]?.role === 'user') {
      return this.#run(this.#base, this.#draft[0], options)
    }
    const turns = this.#conversation.turns
    const last = turns.findLastIndex((turn) => turn.role === 'user')
    const user = turns[last]
    if (user?.role !== 'user') {
      throw new ThinkwireError({
        kind: 'invalid-request',
        message: 'regenerate() needs a user turn to answer',
      })
    }
    return this.#run(turns.slice(0, last), user, options)
  }

  /** Stops the running send. What arrived stays, as a plain-text assistant turn. */
  stop(): void {
    if (this.#controller === undefined) return
    this.#stopped = true
    this.#controller.abort()
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The current snapshot (the same object until something changes). */
  getSnapshot = (): ChatSnapshot => this.#snapshot

  async *#run(base: readonly Turn[], user: UserTurn, options: CallOptions | undefined) {
    if (this.#controller !== undefined) {
      throw new ThinkwireError({
        kind: 'invalid-request',
        message: 'Chat is busy: a send is still running (call stop() first)',
      })
    }
    const controller = new AbortController()
    const outer = options?.signal ?? this.#settings.options?.signal
    const onOuterAbort = () => this.stop()
    outer?.addEventListener('abort', onOuterAbort, { once: true })
    this.#controller = controller
    this.#stopped = false
    this.#base = base
    this.#draft = [user]
    this.#error = undefined
    let committed: Turn[] = [...base]
    let last: AssistantTurn | undefined
    const callOptions: CallOptions = {
      ...this.#settings.options,
      ...options,
      signal: controller.signal,
    }
    const { adapter, onToolCall, maxSteps = 8 } = this.#settings

    this.#setStatus('submitted')
    try {
      for (let step = 1; ; step++) {
        const pending = { state: initialTurnState, id: idOf({}) }
        this.#pending = pending
        const conversation: Conversation = {
          ...this.#conversation,
          turns: [...committed, ...this.#draft],
        }
        for await (const event of adapter.stream(conversation, callOptions)) {
          if (this.#controller !== controller) return
          pending.state = applyEvent(pending.state, event)
          if (event.type === 'done') {
            adoptId(event.turn, pending.id)
            last = event.turn
            committed = this.#commit([...committed, ...this.#draft, event.turn])
            this.#pending = undefined
            this.#notify(true)
          } else if (this.#status !== 'streaming') this.#setStatus('streaming')
          else this.#notify(false)
          yield event
        }
        const calls = last?.toolCalls ?? []
        if (onToolCall === undefined || calls.length === 0 || step >= maxSteps) break
        const results = await this.#answerTools(calls, onToolCall, controller.signal)
        if (this.#controller !== controller) return
        committed = this.#commit([...committed, results])
        if (this.#stopped) break
      }
      this.#finish('ready')
      if (last !== undefined) this.#settings.onFinish?.(last)
    } catch (caught) {
      if (this.#controller !== controller) return
      if (this.#stopped) {
        this.#keepStopped(committed, last)
        return
      }
      const error = isThinkwireError(caught) ? caught : toThinkwireError(caught, adapter.provider)
      this.#error = error
      this.#base = committed
      this.#finish('error', true)
      this.#settings.onError?.(error)
      throw error
    } finally {
      outer?.removeEventListener('abort', onOuterAbort)
      if (this.#controller === controller) {
        // The consumer left the loop early: that is a stop.
        this.#stopped = true
        controller.abort()
        this.#keepStopped(committed, last)
      }
    }
  }

  /** Ends a stopped send: keeps the draft and what arrived of the answer, as plain text. */
  #keepStopped(committed: Turn[], last: AssistantTurn | undefined): void {
    const pending = this.#pending
    const partial = pending === undefined ? undefined : stoppedTurn(pending.state)
    if (partial !== undefined && pending !== undefined) adoptId(partial, pending.id)
    const kept = [...committed, ...this.#draft, ...(partial === undefined ? [] : [partial])]
    if (kept.length > committed.length) this.#commit(kept)
    this.#finish('ready')
    const final = partial ?? last
    if (final !== undefined) this.#settings.onFinish?.(final)
  }

  async #answerTools(
    calls: readonly ToolCall[],
    onToolCall: NonNullable<ChatOptions['onToolCall']>,
    signal: AbortSignal,
  ): Promise<ToolTurn> {
    try {
      return await executeToolCalls(calls, signal, onToolCall)
    } catch (error) {
      if (!this.#stopped) throw error
      // Stopped while tools ran: answer every call so the conversation stays valid to send.
      return {
        role: 'tool',
        results: calls.map((call) => ({
          callId: call.id,
          name: call.name,
          output: 'Stopped before the tool finished.',
          isError: true,
        })),
      }
    }
  }

  #commit(turns: Turn[]): Turn[] {
    this.#conversation = { ...this.#conversation, turns }
    this.#base = turns
    this.#draft = []
    return turns
  }

  #finish(status: ChatStatus, keepDraft = false): void {
    this.#controller = undefined
    this.#pending = undefined
    if (!keepDraft) {
      this.#base = undefined
      this.#draft = []
    }
    this.#setStatus(status)
  }

  #setStatus(status: ChatStatus): void {
    this.#status = status
    this.#notify(true)
  }

  #notify(urgent: boolean): void {
    if (urgent) {
      this.#emit()
      return
    }
    if (this.#dirty) return
    this.#dirty = true
    ;(this.#settings.scheduler ?? immediate)(() => {
      if (this.#dirty) this.#emit()
    })
  }

  #emit(): void {
    this.#dirty = false
    this.#snapshot = this.#makeSnapshot()
    for (const listener of this.#listeners) listener()
  }

  #makeSnapshot(): ChatSnapshot {
    const turns =
      this.#base === undefined ? this.#conversation.turns : [...this.#base, ...this.#draft]
    const messages = toMessages(turns)
    const pending = this.#pending
    if (pending !== undefined && this.#status === 'streaming') {
      messages.push({
        id: pending.id,
        role: 'assistant',
        text: pending.state.text,
        thinking: pending.state.thinking,
        toolCalls: pending.state.toolCalls,
        status: 'streaming',
      })
    }
    return { conversation: this.#conversation, messages, status: this.#status, error: this.#error }
  }
}

/** The turn kept on stop: text only (tool calls without results could not be sent again). */
function stoppedTurn(state: TurnState): AssistantTurn | undefined {
  if (state.text === '') return undefined
  const turn = partialTurn(state, 'aborted')
  delete turn.toolCalls
  return turn
}
