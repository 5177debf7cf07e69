import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../core/conversation.ts'
import type { ThinkwireError } from '../../core/errors.ts'
import {
  callModel,
  endAnswer,
  wireTurn,
  type AnswerOutcome,
  type AnswerTally,
} from '../answer-pipeline.ts'
import { sentDelta, streamedCharsOf } from '../event-stream.ts'
import { relayFailure } from '../failure.ts'
import type { SpanContext } from '../tracing.ts'
import type { ConversationEvent } from './journal.ts'
import { createThinkingTimer, withThinkingTime, type ThinkingTimer } from './thinking-timer.ts'

const NOT_ADMITTED: AnswerTally = { reservation: undefined, trace: undefined }

/** The model call an answer makes. */
export type AnswerCall = { adapter: Adapter; conversation: Conversation; options: CallOptions }

/**
 * Where an answer is: `running`; `stopping` once a client asked it to stop, keeping its events up
 * to `keepUntil` (the last one that client showed); `cancelled` when its conversation was deleted
 * (nothing of it is kept); `ended` once its end is stored and settled. Only forward: a second stop
 * changes nothing, and an ended answer is never reopened.
 */
export type AnswerState =
  | { phase: 'running' }
  | { phase: 'stopping'; keepUntil: number | undefined }
  | { phase: 'cancelled' }
  | { phase: 'ended' }

/** How the model call of an answer ended, for its host to store. */
export type CallEnd = { turn: AssistantTurn } | { failure: ThinkwireError }

/**
 * One answer of a conversation, from its `turn` event to its end: the model call, its events
 * published as they arrive, what it has streamed (what a stopped or failed answer is charged for;
 * the text itself is not held, a stopped answer is rebuilt from its logged events), how long it
 * thought, and its reservation and span, settled and ended once by {@link end}.
 */
export class AnswerRun {
  readonly controller = new AbortController()
  /** The id of its `turn` event: a stream without `Last-Event-ID` starts there. */
  readonly firstId: number
  /** A regenerate: the last answer is replaced, once this one is complete. */
  readonly replaces: boolean
  readonly thinking: ThinkingTimer = createThinkingTimer(() => performance.now())
  /** Settles once the answer's end is stored. */
  readonly finished: Promise<void>
  #state: AnswerState = { phase: 'running' }
  #chars = 0
  #tally: AnswerTally
  #settled!: () => void

  /**
   * `tally`: its reservation and span; a later step of a loop is made before it is admitted (so
   * a stop meanwhile has an answer to stop), and gets them with {@link admit}.
   */
  constructor(firstId: number, replaces: boolean, tally: AnswerTally = NOT_ADMITTED) {
    this.firstId = firstId
    this.replaces = replaces
    this.#tally = tally
    this.finished = new Promise<void>((resolve) => (this.#settled = resolve))
  }

  /** The answer was admitted: its end settles this reservation and span. */
  admit(tally: AnswerTally): void {
    this.#tally = tally
  }

  get state(): AnswerState {
    return this.#state
  }

  /** Its span's ids, when traced: its tools' runs are traced under it. */
  get span(): SpanContext | undefined {
    return this.#tally.trace?.span
  }

  /** Whether a client asked it to stop (its end is then stored as a stopped turn). */
  get stopping(): boolean {
    return this.#state.phase === 'stopping'
  }

  /**
   * Asks the answer to stop: the first stop says what is kept (the events up to `seen`); one sent
   * again (a second tab, a retry) changes nothing. Settles once the stopped turn is stored.
   */
  stop(seen: number | undefined): Promise<void> {
    if (this.#state.phase === 'running') this.#state = { phase: 'stopping', keepUntil: seen }
    this.controller.abort(new Error('stopped'))
    return this.finished
  }

  /** Its conversation was deleted: the call stops, and the answer ends with nothing kept. */
  cancel(): void {
    if (this.#state.phase === 'ended' || this.#state.phase === 'cancelled') return
    this.#state = { phase: 'cancelled' }
    this.controller.abort(new Error('the conversation was deleted'))
    this.#end({ type: 'cancel', streamedChars: this.#chars })
  }

  /**
   * Runs the model call, publishing each delta as the relay sends it; returns how it ended, or
   * undefined when the answer was cancelled meanwhile (nothing is left to store into).
   */
  async run(call: AnswerCall, idleTimeoutMs: number, publish: (event: ConversationEvent) => void) {
    const { adapter } = call
    const signal = this.controller.signal
    const trace = this.#tally.trace
    let end: CallEnd | undefined
    try {
      const events = callModel(adapter, call.conversation, call.options, signal, idleTimeoutMs)
      for await (const event of events) {
        if (this.#state.phase === 'cancelled') return undefined
        trace?.firstChunk()
        this.thinking.note(event.type)
        if (event.type === 'done') {
          end = { turn: withThinkingTime(wireTurn(event.turn), this.thinking.thinkingMs()) }
          break
        }
        const sent = sentDelta(event)
        this.#chars += streamedCharsOf(sent)
        publish(sent)
      }
      if (end === undefined) {
        throw signal.aborted
          ? signal.reason
          : new Error(`${adapter.provider}: the stream ended without a done event`)
      }
    } catch (error) {
      end = { failure: relayFailure(error, adapter.provider, signal) }
    }
    return this.#state.phase === 'cancelled' ? undefined : end
  }

  /**
   * The answer's end is stored: its span and reservation say how it ended (stopped, complete,
   * failed), and a stop waiting on it is answered.
   */
  ended(end: CallEnd): void {
    const streamedChars = this.#chars
    if (this.#state.phase === 'stopping') {
      const usage = 'turn' in end ? end.turn.usage : undefined
      this.#end({ type: 'stopped', streamedChars, usage })
    } else if ('turn' in end) {
      this.#end({ type: 'done', turn: end.turn })
    } else {
      this.#end({ type: 'error', error: end.failure, streamedChars })
    }
  }

  #end(outcome: AnswerOutcome): void {
    if (this.#state.phase !== 'cancelled') this.#state = { phase: 'ended' }
    endAnswer(this.#tally, outcome)
    this.#settled()
  }
}
