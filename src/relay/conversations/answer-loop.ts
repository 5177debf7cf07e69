import type { CallOptions } from '../../core/adapter.ts'
import type {
  AssistantTurn,
  Conversation,
  ToolResult,
  ToolTurn,
  Turn,
} from '../../core/conversation.ts'
import { abortedError, ThinkwireError } from '../../core/errors.ts'
import type { ToolCall } from '../../core/events.ts'
import { partialTurn } from '../../core/reducer.ts'
import type { Registry } from '../../core/registry.ts'
import { notRunResults } from '../../core/tool-loop.ts'
import type { WireApproval, WirePending } from '../../core/wire.ts'
import { admitAnswer, endAnswer, type AnswerTally } from '../answer-pipeline.ts'
import { outputReserveOf } from '../budget.ts'
import type { ErrorResponder } from '../dialects.ts'
import { resolveAdapter } from '../failure.ts'
import type { RateLimiter } from '../rate-limit.ts'
import { errorResponse, jsonResponse } from '../responses.ts'
import {
  callStart,
  exportSpan,
  toolRunSpan,
  traceCall,
  type CallTrace,
  type TracingOptions,
} from '../tracing.ts'
import { AnswerRun, type AnswerCall, type CallEnd } from './answer-run.ts'
import { createApprovalSigner, newApprovalKey, type ApprovalSigner } from './approval-ids.ts'
import type {
  AnswerPlan,
  ConversationRecord,
  LoopCall,
  LoopEnd,
  LoopState,
} from './conversation-record.ts'
import { utf8Length, type ConversationStore } from './conversation-store.ts'
import { foldFrames } from './fold-frames.ts'
import type { Journal } from './journal.ts'
import {
  errorResult,
  needsApproval,
  runServerTool,
  serverTool,
  serverToolSpecs,
  type ServerTools,
} from './server-tools.ts'
import { withThinkingTime } from './thinking-timer.ts'
import {
  answerCall,
  approvalCall,
  isAnswered,
  isRunning,
  pendingOf,
  toolTurnOf,
  waitingOn,
  type CallState,
  type StepCall,
  type ToolStep,
} from './tool-step.ts'
import { answerBytesOf, modelTurn, sizeRefusal, type ConversationSizeLimits } from './turn-rules.ts'
import { NO_TURNS } from './turn-tree.ts'

/**
 * The first keep-alive alarm is set only for an answer still running this long after it started
 * (an object with no request is evicted after 70 s at the earliest), so a short answer sets none.
 * An answer no client asked for just now (a loop that goes on by itself) sets it at once.
 */
export const KEEPALIVE_AFTER_MS = 10_000

/**
 * The most characters of a loop's JSON its message's turn keeps (see `start`): a loop with more
 * (the client's tools, say) is written to the metadata instead, so that each user turn stored
 * grows by a few hundred bytes at most.
 */
const CARRIED_LOOP_CHARS = 2048

/** The settings a loop reads. */
export type LoopSettings = {
  idleTimeoutMs: number
  sizes: ConversationSizeLimits
  rateLimiter: RateLimiter | undefined
  tracing: TracingOptions | undefined
  allows: (model: string) => boolean
  /** How long an approval waits before its call is answered as not run. */
  approvalMs: number
}

/** What a loop needs of its host. */
export type LoopHost = {
  record: ConversationRecord
  store: ConversationStore
  journal: Journal
  settings: LoopSettings
  tools: ServerTools
  registry(): Registry
  /** The relay's keys for approval ids (none: the conversation makes its own). */
  approvalKeys: readonly string[]
  now(): number
  waitUntil(promise: Promise<unknown>): void
  /** The conversation changed: its client's list is told. */
  announce(): void
  /** Sets the alarm as the loop now needs it (see `ConversationHost`). */
  arm(): void
  /** A loop ended (not one that waits): the queue's next message goes (see `ConversationHost`). */
  ended(): void
}

/** What a loop keeps of the message that starts it (its `LoopState` but the step it is at). */
export type LoopParams = Omit<LoopState, 'steps' | 'call' | 'streamFrom'>

/**
 * A message's admitted loop: the turn its first model call answers (stored turn `answers`, or the
 * message's own turn, stored as the loop starts), that call, and what it makes: an answer that
 * replaces (a regenerate's), a version of the turn at index `at` (an edit's), which becomes the
 * active path only once complete.
 */
export type LoopStart = {
  answered: Turn
  answers: number | NonNullable<AnswerPlan['added']>
  replaces: boolean
  version: LoopCall['version']
  at: number | undefined
  call: AnswerCall
  params: LoopParams
  /** Its reservation and span. */
  tally: AnswerTally
}

/** An approval the conversation issued, as stored (by its id). */
type ApprovalRecord = {
  step: number
  callId: string
  name: string
  expiresAt: number
  status: 'pending' | 'approved' | 'denied' | 'stopped' | 'expired'
}

/**
 * The answer in flight, from its first event to the end of the stream a client reads: its steps'
 * model calls and server tools, until the loop ends or waits.
 */
type Segment = {
  readonly firstId: number
  /** The model call of the step in flight (made before it is admitted). */
  answer: AnswerRun | undefined
  /** Aborts the server tools of the step in flight. */
  tools: AbortController | undefined
  /** The server tools that run now, since when (its `performance.now()` and epoch times). */
  toolRun: { startPerf: number; startMs: number; calls: StepCall[] } | undefined
  keepAlive: ReturnType<typeof setTimeout> | undefined
  readonly ended: Promise<void>
  end(): void
}

const STOPPED_RUNNING = 'Stopped before the tool finished.'
const STOPPED_WAITING = 'Not run: the loop was stopped before this call was answered.'
const INTERRUPTED =
  'Interrupted: the relay restarted while the tool ran; it is not run again (call it again to retry).'

/**
 * The answers of a conversation (DESIGN §9, §13): each message's loop of model calls and tool
 * steps, run in the host with no browser needed. A model call's tool calls make a tool step: the
 * server tools it names run at once and in parallel (with the stop signal), those that need a
 * person wait for an approval, the client's own calls for its tool turn; when every call has its
 * result the tool turn is stored and the next model call made, up to `maxSteps`. A step that
 * waits ends the stream a client reads (with the step's `done`), and is kept in storage, so a
 * decision, a client's results, a reload or a restart find it. What runs is kept so too: after a
 * restart, a model call none of whose events was stored runs again once, one that streamed is kept
 * as a stopped turn, and a server tool that ran is answered as interrupted, never run twice.
 */
export class AnswerLoop {
  #host: LoopHost
  #segment: Segment | undefined
  /** The loop's tool step: undefined for none, null until read. */
  #step: ToolStep | undefined | null = null
  #signer: { keys: readonly string[]; signer: ApprovalSigner } | undefined

  constructor(host: LoopHost) {
    this.#host = host
  }

  /** Whether an answer is in flight (a model call, or server tools). */
  get running(): boolean {
    return this.#segment !== undefined
  }

  /** The first event of the answer in flight: a stream without `Last-Event-ID` starts there. */
  get firstId(): number | undefined {
    return this.#segment?.firstId
  }

  /**
   * The turns that room must not be made of though off the active path: an edit's new version,
   * while its first answer runs.
   */
  keeps(): ReadonlySet<number> {
    const call = this.#host.record.meta?.loop?.call
    if (this.running && call?.version === 'edit' && call.answers !== undefined)
      return new Set([call.answers])
    return NO_TURNS
  }

  /** What the loop's tool step waits on, for `GET`; undefined without one. */
  pending(): WirePending | undefined {
    const step = this.#toolStep()
    return step === undefined ? undefined : pendingOf(step)
  }

  /** What a waiting loop waits on, named for the 409 a message gets; undefined when none waits. */
  waitingOn(): string | undefined {
    if (this.#segment !== undefined) return undefined
    const step = this.#toolStep()
    return step === undefined ? undefined : waitingOn(step)
  }

  /** The calls of the waiting step its client answers. */
  clientCalls(): ToolCall[] {
    const calls = this.#toolStep()?.calls ?? []
    return calls.filter(({ state }) => state.is === 'client').map(({ call }) => call)
  }

  /** When the first approval that waits expires (epoch ms); undefined when none waits. */
  nextExpiry(): number | undefined {
    let first: number | undefined
    for (const { state } of this.#toolStep()?.calls ?? []) {
      if (state.is === 'approval' && (first === undefined || state.expiresAt < first))
        first = state.expiresAt
    }
    return first
  }

  /** How long the loop's server tools have run so far, in ms; undefined before any ran. */
  toolMs(): number | undefined {
    return this.#host.record.meta?.loop?.toolMs
  }

  /**
   * Starts a message's loop: its `turn`, then its first model call (admitted by the host, so that
   * a refusal is the message's status). A client's tool turn that answered a waiting step starts
   * one too: that step ends with it.
   */
  start(start: LoopStart): void {
    const { record, journal } = this.#host
    const firstId = journal.lastId + 1
    const segment = this.#begin(firstId, KEEPALIVE_AFTER_MS)
    const { replaces, version, at } = start
    const added = typeof start.answers === 'number' ? undefined : start.answers
    const answers = typeof start.answers === 'number' ? start.answers : record.nextSeq
    const call: LoopCall = { firstId, replaces, retried: false, answers, version, at }
    const loop: LoopState = { ...start.params, steps: 1, streamFrom: firstId, call }
    const stepWaited = this.#toolStep() !== undefined
    if (stepWaited) {
      // A client's tool turn answered the step that waited: the loop goes on, its tools' time too.
      this.#saveStep(undefined)
      const toolMs = record.meta!.loop?.toolMs
      if (toolMs !== undefined) loop.toolMs = toolMs
    }
    // A message's new turn keeps the loop it starts, in its own row, when the loop is small: the
    // metadata is not written until the loop changes or ends (a restart finds the loop there, see
    // `ConversationRecord`), one row fewer a message.
    const kept = added !== undefined && version === undefined && !stepWaited
    const carried = kept ? JSON.stringify(loop) : undefined
    const carry =
      carried !== undefined && carried.length <= CARRIED_LOOP_CHARS ? carried : undefined
    if (added !== undefined) {
      const { parent, active, json, bytes } = added
      record.addTurn(added.turn, { parent, active, loop: carry }, json, bytes)
    }
    const { lastError: _cleared, ...meta } = record.meta!
    const started = { ...meta, streaming: true, updatedAt: this.#isoNow(), loop }
    if (carry !== undefined) record.holdMeta(started)
    else record.saveMeta(started)
    journal.publish({ type: 'turn', turn: record.shown(start.answered, answers), replaces, at })
    this.#host.announce()
    segment.answer = new AnswerRun(firstId, start.replaces, start.tally)
    this.#call(segment.answer, start.call)
  }

  /**
   * Stops what runs or waits, from any tab: a model call keeps what its stopping client showed (as
   * before), and every call of the tool step without a result is answered as stopped. Settles once
   * that is stored.
   */
  async stop(seen: number | undefined): Promise<void> {
    const segment = this.#segment
    if (segment?.answer !== undefined) {
      void segment.answer.stop(seen)
      return segment.ended
    }
    const step = this.#toolStep()
    if (step !== undefined) this.#stopStep(step)
  }

  /** The conversation is deleted: what runs stops, and nothing of it is kept. */
  cancel(): void {
    const segment = this.#segment
    this.#segment = undefined
    this.#step = undefined
    if (segment === undefined) return
    clearTimeout(segment.keepAlive)
    segment.tools?.abort(new Error('the conversation was deleted'))
    segment.answer?.cancel()
    segment.end()
  }

  /**
   * A person's decision on approval `approvalId` (`POST .../approvals/:approvalId`): 202 and the
   * loop goes on (an approved call runs; a denied one is answered as an error with the reason);
   * 404 for an id this conversation did not issue (or one that no longer matches its call), 409
   * once decided (or answered by a stop), 410 once expired.
   */
  async decide(approvalId: string, approve: boolean, reason?: string): Promise<Response> {
    const unknown = () => errorResponse(404, 'invalid-request', 'no such approval')
    const issued = this.#approval(approvalId)
    if (issued === undefined) return unknown()
    const refused = this.#decided(issued)
    if (refused !== undefined) return refused
    const step = this.#toolStep()
    const waiting = step === undefined ? undefined : approvalCall(step, approvalId)
    if (step === undefined || waiting === undefined) return unknown()
    const meta = this.#host.record.meta!
    const { call } = waiting
    const { id: callId, name, input } = call
    const subject = { conversationId: meta.id, step: step.step, callId, name, input }
    if (!(await this.#approvals().verify(approvalId, subject))) return unknown()
    // Decided by another request while the id was checked: the first decision stands.
    const now = this.#approval(approvalId)
    const raced = now === undefined ? unknown() : this.#decided(now)
    if (raced !== undefined) return raced
    if (this.#toolStep() !== step || waiting.state.is !== 'approval') return unknown()
    this.#settleApproval(approvalId, approve ? 'approved' : 'denied')
    this.#resume()
    if (approve) {
      waiting.state = { is: 'running' }
      this.#run(step, waiting)
    } else {
      const why = reason === undefined || reason === '' ? '.' : `: ${reason}`
      this.#answer(step, waiting, errorResult(call, `Not run: the user denied this call${why}`))
    }
    this.#settle()
    return jsonResponse(202, { approvalId, approve })
  }

  /** Answers the approvals past their time as not run, and goes on (the alarm rang). */
  expire(): void {
    const step = this.#toolStep()
    if (step === undefined) return
    const now = this.#host.now()
    const due = step.calls.filter(({ state }) => state.is === 'approval' && state.expiresAt <= now)
    if (due.length === 0) return
    this.#resume()
    for (const stepCall of due) {
      const { state, call } = stepCall
      if (state.is !== 'approval') continue
      this.#settleApproval(state.approvalId, 'expired')
      const at = new Date(state.expiresAt).toISOString()
      this.#answer(step, stepCall, errorResult(call, `Not run: its approval expired at ${at}.`))
    }
    this.#settle()
  }

  /**
   * Answers the waiting step's client calls with a client's tool turn: the whole tool turn once
   * every call has its result (to send as the message's turn), else undefined (the step still
   * waits on approvals). The host has checked that they answer exactly its client calls.
   */
  clientResults(results: readonly ToolResult[]): ToolTurn | undefined {
    const step = this.#toolStep()!
    const sent = new Map(results.map((result) => [result.callId, result]))
    const whole = step.calls.map(({ call, state }) =>
      state.is === 'answered' ? state.result : sent.get(call.id),
    )
    // Complete: nothing is stored here, the message stores the tool turn once it is admitted.
    if (whole.every((result) => result !== undefined)) return { role: 'tool', results: whole }
    for (const stepCall of step.calls) {
      const result = sent.get(stepCall.call.id)
      if (result !== undefined) answerCall(stepCall, result)
    }
    this.#saveStep(step)
    return undefined
  }

  /**
   * On the host's start: what a restart cut (DESIGN §13). A model call none of whose events was
   * stored runs again, once; one that streamed is kept as a stopped turn, and the stream gets
   * `interrupted` before its `done`. Server tools that ran are answered as interrupted (never run
   * twice), and the loop goes on. An answer cut before loops were kept ends with an error.
   */
  recover(): void {
    const meta = this.#host.record.meta
    if (meta === undefined || !meta.streaming) return
    const loop = meta.loop
    if (loop === undefined) return this.#recoverOlder()
    if (loop.call !== undefined) return this.#recoverCall(loop, loop.call)
    const step = this.#toolStep()
    if (step === undefined) return this.#endLoop()
    this.#begin(loop.streamFrom, 0)
    for (const stepCall of step.calls) {
      if (stepCall.state.is === 'running')
        this.#answer(step, stepCall, errorResult(stepCall.call, INTERRUPTED))
    }
    this.#settle()
  }

  #recoverCall(loop: LoopState, stored: LoopCall): void {
    const { record, store, journal } = this.#host
    const storedLast = store.storedEventIds().last
    const call = { ...stored, answers: this.#answersOf(stored) }
    // The answer goes on from where its stream started: what the log holds of it is kept.
    const segment = this.#begin(loop.streamFrom, 0)
    if (storedLast <= call.firstId && !call.retried) {
      // Nothing of it reached storage: it runs again, from its start. Its `turn` goes out again
      // when that was lost too (a client showing it already knows it).
      let firstId = call.firstId
      if (storedLast < call.firstId) {
        firstId = journal.lastId + 1
        const asked = call.answers === undefined ? undefined : record.turn(call.answers)
        if (asked !== undefined) {
          const turn = record.shown(asked, call.answers)
          journal.publish({ type: 'turn', turn, replaces: call.replaces, at: call.at })
        }
      }
      journal.publish({ type: 'interrupted', retried: true })
      const retried = { ...call, firstId, retried: true }
      record.saveMeta({ ...record.meta!, loop: { ...loop, call: retried } })
      segment.answer = new AnswerRun(firstId, call.replaces)
      void this.#admit(segment.answer)
      return
    }
    journal.publish({ type: 'interrupted', retried: false })
    this.#keepStopped(call, undefined, undefined)
    this.#endLoop()
  }

  /**
   * The stored turn a call answers: in a call stored before branches, the last user turn of the
   * active path for a regenerate (it replaced what follows), else the path's last turn.
   */
  #answersOf(call: LoopCall): number | undefined {
    if (call.answers !== undefined) return call.answers
    const { record } = this.#host
    const path = record.tree.path()
    if (!call.replaces) return path.at(-1)
    const asked = record.turns().findLastIndex((turn) => turn.role === 'user')
    return asked === -1 ? undefined : path[asked]
  }

  /** An answer cut before loops were kept (no call to run again): it ends with an error. */
  #recoverOlder(): void {
    const { record, journal } = this.#host
    const message = 'the answer was interrupted when the relay restarted: regenerate it'
    journal.append({ type: 'error', error: { kind: 'server', message, retryable: true } })
    journal.flush()
    const lastError = { kind: 'server', message }
    record.saveMeta({ ...record.meta!, streaming: false, lastError, updatedAt: this.#isoNow() })
    this.#host.announce()
  }

  /** Runs a step's admitted model call, then stores how it ended. */
  #call(answer: AnswerRun, call: AnswerCall): void {
    const { journal, settings } = this.#host
    const publish = journal.publish.bind(journal)
    void answer.run(call, settings.idleTimeoutMs, publish).then((end) => {
      // Undefined when the conversation was deleted meanwhile: nothing is left to store into.
      if (end !== undefined) void this.#answered(answer, end)
    })
  }

  /**
   * A step's model call ended: stopped, it keeps what its stopping client showed; failed, the
   * loop ends with the error; complete, its turn is stored, and its tool calls make the next step.
   */
  async #answered(answer: AnswerRun, end: CallEnd): Promise<void> {
    if (this.#segment?.answer !== answer) return
    if (answer.stopping) return this.#stopped(answer, end)
    if ('failure' in end) return this.#failed(answer, end)
    const calls = end.turn.toolCalls ?? []
    if (calls.length === 0) {
      const { record, journal } = this.#host
      // Its `done` takes the next id: the answer's row says the loop ended there (see `#keep`),
      // unless a version's (its metadata is written as it completes).
      const version = record.meta!.loop!.call?.version
      const ended =
        version === undefined ? { id: journal.lastId + 1, at: this.#isoNow() } : undefined
      const seq = this.#keep(answer, end, ended)
      const others = this.#room(seq)
      journal.publish({ type: 'done', turn: record.shown(end.turn, seq) })
      if (others) this.#resetAll()
      return this.#endLoop(undefined, ended)
    }
    // Approval ids are made before anything of the step is stored: a restart finds the call and
    // its step stored together, or neither.
    const step = await this.#stepOf(calls, answer)
    const segment = this.#segment
    if (segment?.answer !== answer) return
    if (answer.stopping) return this.#stopped(answer, end)
    this.#keep(answer, end)
    segment.answer = undefined
    this.#commitStep(step)
  }

  /**
   * Stores a complete answer under the turn it answers, on the active path from now on (a
   * regenerate's or an edit's version takes the place of what it replaces, which stays one
   * `branch` away); returns its number.
   */
  #keep(
    answer: AnswerRun,
    end: { turn: AssistantTurn },
    ended?: { id: number; at: string },
  ): number {
    const { record } = this.#host
    const call = record.meta!.loop!.call
    const answers = call === undefined ? undefined : this.#answersOf(call)
    // A loop that ends with this answer, at event `ended.id`, is said to by the answer's row, with
    // what its end changes in the metadata, which is then not written (see `#endLoop`).
    const loop =
      ended === undefined
        ? undefined
        : JSON.stringify({
            ended: ended.id,
            updatedAt: ended.at,
            title: record.meta!.title,
          } satisfies LoopEnd)
    const seq = record.addTurn(end.turn, { parent: answers, active: true, loop })
    if (call?.version !== undefined) {
      // Complete: the loop goes on as any other, on the path it made.
      const meta = record.meta!
      const { version: _made, at: _at, ...rest } = call
      record.saveMeta({ ...meta, loop: { ...meta.loop!, call: rest } })
    }
    answer.ended(end)
    return seq
  }

  #stopped(answer: AnswerRun, end: CallEnd): void {
    const { state } = answer
    const keepUntil = state.phase === 'stopping' ? state.keepUntil : undefined
    const call = this.#host.record.meta!.loop!.call ?? {
      firstId: answer.firstId,
      replaces: answer.replaces,
      retried: false,
    }
    this.#keepStopped(call, keepUntil, answer.thinking.thinkingMs())
    answer.ended(end)
    this.#endLoop()
  }

  /**
   * Stores an answer that did not complete (stopped, or cut by a restart) and sends its `done`:
   * what arrived, as plain text, no items (nothing half is replayed) and no tool calls (calls
   * without results could not be sent again), rebuilt from its events from its first to
   * `keepUntil` (the last one its stopping client showed). A regenerate's or an edit's leaves the
   * active path as it was, and is kept as a version off it when it has text: a regenerate's
   * `done` is the answer that stays; an edit's is the stopped answer, and a `reset` follows (as it
   * does a regenerate that replaced a loop's steps) so that every tab shows the path that stays.
   */
  #keepStopped(call: LoopCall, keepUntil: number | undefined, thinkingMs: number | undefined) {
    const { record, journal } = this.#host
    const frames = journal.framesFrom(call.firstId, keepUntil)
    const stopped = withThinkingTime(partialTurn(foldFrames(frames)), thinkingMs)
    const answers = this.#answersOf(call)
    const { version } = call
    if (version === undefined) {
      const seq = record.addTurn(stopped, { parent: answers, active: true })
      journal.publish({ type: 'done', turn: record.shown(stopped, seq) })
      return
    }
    const kept =
      stopped.text === '' ? undefined : record.addTurn(stopped, { parent: answers, active: false })
    if (kept === undefined && version === 'edit' && answers !== undefined)
      record.removeTurn(answers)
    const others = kept !== undefined && this.#room(kept)
    if (version === 'regenerate') {
      const last = record.lastTurn()
      if (last?.role === 'assistant') {
        journal.publish({ type: 'done', turn: record.shown(last, record.lastSeq()) })
      }
      if (!others && !this.#replacedLoop(answers)) return
    } else journal.publish({ type: 'done', turn: stopped })
    this.#resetAll()
  }

  /** Whether more than one turn of the active path follows turn `seq` (a loop's steps). */
  #replacedLoop(seq: number | undefined): boolean {
    const path = this.#host.record.tree.path()
    return seq !== undefined && path.length - path.indexOf(seq) - 1 > 1
  }

  /**
   * Sends every stream the conversation as it now is, after a change no other event says
   * (`streaming`: the loop goes on).
   */
  #resetAll(streaming = false): void {
    const { record, journal } = this.#host
    journal.publish({ type: 'reset', conversation: record.shownJson(), streaming })
  }

  /**
   * Room for what the loop just stored (`seq`), the oldest versions off the active path dropped
   * first; returns whether the turns of other versions than `seq`'s were dropped (its own count is
   * in its `done`), for which every tab then needs the conversation.
   */
  #room(seq: number): boolean {
    const { record, settings } = this.#host
    const parent = record.tree.parentOf(seq)
    const dropped = record.makeRoom(settings.sizes, record.queuedBytes())
    return dropped.some((at) => at !== parent)
  }

  #failed(answer: AnswerRun, end: { failure: ThinkwireError }): void {
    const error = end.failure
    const { record, journal } = this.#host
    journal.publish({ type: 'error', error })
    answer.ended(end)
    // An edit that failed leaves nothing of itself; every tab shows the path as it was.
    const call = record.meta!.loop!.call
    if (call?.version === 'edit') {
      const answers = this.#answersOf(call)
      if (answers !== undefined) record.removeTurn(answers)
    }
    if (
      call?.version === 'edit' ||
      (call?.version === 'regenerate' && this.#replacedLoop(call.answers))
    )
      this.#resetAll()
    this.#endLoop({ kind: error.kind, message: error.message })
  }

  /** The tool step the calls of a complete model call make (not stored yet). */
  async #stepOf(calls: readonly ToolCall[], answer: AnswerRun): Promise<ToolStep> {
    const meta = this.#host.record.meta!
    const loop = meta.loop!
    const step: ToolStep = { step: (meta.toolSteps ?? 0) + 1, calls: [], announced: false }
    if (answer.span !== undefined) step.trace = answer.span
    if (loop.steps >= loop.maxSteps) {
      // At the limit the model may not be called again: its calls are answered as not run.
      const { results } = notRunResults(calls, loop.maxSteps)
      step.calls = calls.map((call, i) => ({ call, state: answered(results[i]!) }))
      return step
    }
    const expiresAt = this.#host.now() + this.#host.settings.approvalMs
    for (const call of calls) {
      step.calls.push({ call, state: await this.#firstState(call, step.step, loop, expiresAt) })
    }
    return step
  }

  /** Where a call starts: run, wait for an approval, or wait for its client. */
  async #firstState(
    call: ToolCall,
    step: number,
    loop: LoopState,
    expiresAt: number,
  ): Promise<CallState> {
    if (!loop.serverTools.includes(call.name)) return { is: 'client' }
    const tool = serverTool(this.#host.tools, call.name)
    if (tool === undefined) {
      return answered(errorResult(call, `Not run: ${call.name} is no longer a server tool here.`))
    }
    if (!needsApproval(tool, call.input)) return { is: 'running' }
    const conversationId = this.#host.record.meta!.id
    const subject = { conversationId, step, callId: call.id, name: call.name, input: call.input }
    return { is: 'approval', approvalId: await this.#approvals().sign(subject), expiresAt }
  }

  /**
   * Stores a step with the turn that made it, and starts it: approvals are asked for, server
   * tools run, results made by the relay go out.
   */
  #commitStep(step: ToolStep): void {
    const { record, journal, store } = this.#host
    const meta = record.meta!
    const loop = { ...meta.loop!, call: undefined, madeStep: meta.loop!.call }
    record.saveMeta({ ...meta, toolSteps: step.step, loop })
    // Stored by `#settle` below, in the same commit, unless it ends there (every call answered).
    this.#step = step
    for (const { call, state } of step.calls) {
      if (state.is === 'answered') journal.publish({ type: 'tool-result', result: state.result })
      if (state.is !== 'approval') continue
      const { approvalId, expiresAt } = state
      const issued: ApprovalRecord = {
        step: step.step,
        callId: call.id,
        name: call.name,
        expiresAt,
        status: 'pending',
      }
      store.saveApproval(approvalId, issued)
      journal.publish({ type: 'tool-approval', approval: approvalOf(call, approvalId, expiresAt) })
    }
    for (const stepCall of step.calls) {
      if (stepCall.state.is === 'running') this.#run(step, stepCall)
    }
    // A restart, or an approval's expiry, is found with no browser attached.
    this.#host.arm()
    this.#settle()
  }

  /** Runs one server tool call of the step, with the stop signal. */
  #run(step: ToolStep, stepCall: StepCall): void {
    const segment = this.#segment!
    const tool = serverTool(this.#host.tools, stepCall.call.name)!
    const controller = (segment.tools ??= new AbortController())
    segment.toolRun ??= { startPerf: performance.now(), startMs: Date.now(), calls: [] }
    segment.toolRun.calls.push(stepCall)
    const context = { signal: controller.signal, conversationId: this.#host.record.meta!.id }
    void runServerTool(tool, stepCall.call, context).then((result) => {
      // Answered meanwhile (a stop), or the conversation was deleted.
      if (this.#step !== step || stepCall.state.is !== 'running') return
      this.#answer(step, stepCall, result)
      this.#settle()
    })
  }

  /**
   * Answers one call with a result the relay made, sent as `tool-result`; the step is stored by
   * whoever answered it (`#settle`, or a stop, which is done with it).
   */
  #answer(step: ToolStep, stepCall: StepCall, result: ToolResult): void {
    if (!answerCall(stepCall, result)) return
    this.#host.journal.publish({ type: 'tool-result', result })
  }

  /**
   * After the step's calls changed: while a server tool still runs, the step is stored as it now
   * is (a restart answers what ran as interrupted); once none runs, the next model call when every
   * call has its result (the step, done with, is not stored again), else it waits, stored.
   */
  #settle(): void {
    const step = this.#toolStep()
    if (step === undefined) return
    if (isRunning(step)) return this.#saveStep(step)
    this.#toolsRan(step)
    if (isAnswered(step)) return this.#completeStep(step)
    // It waits: the stream ends with the step's `done`, and the loop is stored as it is.
    this.#announceStep(step)
    this.#saveStep(step)
    const { record, journal } = this.#host
    const lastEventId = journal.lastId
    record.saveMeta({ ...record.meta!, streaming: false, updatedAt: this.#isoNow(), lastEventId })
    this.#endSegment()
  }

  /** Every call has its result: the tool turn is stored, and the next model call made. */
  #completeStep(step: ToolStep): void {
    const { record } = this.#host
    const loop = record.meta!.loop!
    this.#announceStep(step)
    const tools = toolTurnOf(step)
    const seq = record.addTurn(tools)
    this.#saveStep(undefined)
    // At the limit the calls were answered as not run: the loop ends with them.
    if (loop.steps >= loop.maxSteps) return this.#endLoop()
    this.#next(tools, seq)
  }

  /** The step's `done` (the turn that made its calls), once; its caller stores the step. */
  #announceStep(step: ToolStep): void {
    if (step.announced) return
    step.announced = true
    const { record } = this.#host
    const turn = record.lastTurn()
    if (turn?.role === 'assistant')
      this.#host.journal.publish({ type: 'done', turn: record.shown(turn, record.lastSeq()) })
  }

  /** The loop's next model call, answering its tool turn (stored turn `answers`). */
  #next(tools: ToolTurn, answers: number): void {
    const { record, journal } = this.#host
    const meta = record.meta!
    const loop = meta.loop!
    const firstId = journal.lastId + 1
    journal.publish({ type: 'turn', turn: tools, replaces: false })
    // Each step is stored before the next provider call: its turns, and its events.
    journal.flush()
    const call: LoopCall = { firstId, replaces: false, retried: false, answers }
    record.saveMeta({ ...meta, loop: { ...loop, steps: loop.steps + 1, call } })
    const answer = new AnswerRun(firstId, false)
    this.#segment!.answer = answer
    void this.#admit(answer)
  }

  /**
   * Admits a model call the loop makes by itself (a later step, a retry), as a message is
   * admitted: the model, the conversation's room for its answer, the client's limits. A refusal
   * ends the loop with it as the error.
   */
  async #admit(answer: AnswerRun): Promise<void> {
    const { record, settings } = this.#host
    const meta = record.meta!
    const loop = meta.loop!
    let refusal: ThinkwireError | undefined
    const error: ErrorResponder = (status, kind, message, details) => {
      const { retryable = false, retryAfterMs } = details ?? {}
      refusal = new ThinkwireError({ kind, message, retryable, retryAfterMs, status })
      return errorResponse(status, kind, message, details)
    }
    const adapter = resolveAdapter(this.#host.registry(), loop.model, settings.allows, error)
    if (adapter instanceof Response) return this.#answered(answer, { failure: refusal! })
    const options = withServerTools(loop.options, this.#host.tools, loop.serverTools)
    const room = outputReserveOf(adapter, options)
    const answers = loop.call === undefined ? undefined : this.#answersOf(loop.call)
    // A retry's room was kept when its call was first admitted.
    if (!answer.replaces && loop.call?.retried !== true) {
      const over = this.#roomFor(room)
      if (over !== undefined) {
        const failure = new ThinkwireError({ kind: 'invalid-request', message: over })
        return this.#answered(answer, { failure })
      }
    }
    const sentBytes = record.tree.bytesTo(answers) + utf8Length(meta.system ?? '')
    const call = { sentBytes, adapter, options }
    const admitted = await admitAnswer(settings.rateLimiter, meta.owner, call, error)
    if (admitted instanceof Response) return this.#answered(answer, { failure: refusal! })
    const { reservation } = admitted
    if (this.#segment?.answer !== answer || answer.stopping) {
      // Stopped or deleted meanwhile: it never reached the model.
      endAnswer({ reservation, trace: undefined }, { type: 'released' })
      return this.#answered(answer, { failure: abortedError(adapter.provider) })
    }
    const conversation = this.#conversation(answers)
    const trace = this.#trace(adapter, options, conversation, loop.traceparent)
    answer.admit({ reservation, trace, waitUntil: this.#host.waitUntil })
    this.#call(answer, { adapter, conversation, options })
  }

  /**
   * Room for the next step's answer of up to `answerTokens`, the oldest versions off the active
   * path dropped for it when needed (every tab is then sent the conversation); undefined when it
   * fits, else why not.
   */
  #roomFor(answerTokens: number): string | undefined {
    const { record, settings } = this.#host
    const queued = record.queuedBytes()
    const need = { turns: 1, bytes: answerBytesOf(answerTokens) }
    if (record.makeRoom(settings.sizes, queued, need).length > 0) this.#resetAll(true)
    const over = sizeRefusal(
      { turns: record.totals.turns, bytes: record.totals.bytes + queued },
      { turns: 1, bytes: 0, answerTokens },
      settings.sizes,
    )
    return over?.message
  }

  /** What a model call of the loop sends: the stored turns up to the one it answers. */
  #conversation(answers: number | undefined): Conversation {
    const meta = this.#host.record.meta!
    const turns = answers === undefined ? [] : this.#host.record.turnsTo(answers)
    const conversation: Conversation = { turns: turns.map(modelTurn) }
    if (meta.system !== undefined) conversation.system = meta.system
    return conversation
  }

  #trace(
    adapter: AnswerCall['adapter'],
    options: CallOptions,
    conversation: Conversation,
    traceparent: string | undefined,
  ): CallTrace | undefined {
    const { tracing } = this.#host.settings
    if (tracing === undefined) return undefined
    const { provider, model } = adapter
    const conversationId = this.#host.record.meta!.id
    const call = { provider, model, options, conversation, streamed: true, conversationId }
    return traceCall(tracing, traceparent ?? null, call, callStart(), this.#host.waitUntil)
  }

  /** Stops a tool step: every call without a result is answered as stopped, and the loop ends. */
  #stopStep(step: ToolStep): void {
    const { record } = this.#host
    this.#segment?.tools?.abort(new Error('stopped'))
    for (const stepCall of step.calls) {
      const { state, call } = stepCall
      if (state.is === 'answered') continue
      if (state.is === 'approval') this.#settleApproval(state.approvalId, 'stopped')
      const message = state.is === 'running' ? STOPPED_RUNNING : STOPPED_WAITING
      this.#answer(step, stepCall, errorResult(call, message))
    }
    this.#toolsRan(step)
    this.#announceStep(step)
    record.addTurn(toolTurnOf(step))
    // No answer follows this tool turn, which a `turn` event would announce: every tab that
    // follows gets the conversation as it now is, as a resume from before the log would.
    this.#resetAll()
    this.#saveStep(undefined)
    this.#endLoop()
  }

  /**
   * None of the step's server tools runs any more: their time is added to the loop's (what
   * `server-timing` says), and, traced, their run is a span under the model call's that asked.
   */
  #toolsRan(step: ToolStep): void {
    const segment = this.#segment
    const run = segment?.toolRun
    if (segment === undefined || run === undefined) return
    segment.toolRun = undefined
    const durationMs = performance.now() - run.startPerf
    const { record, settings, waitUntil } = this.#host
    const meta = record.meta!
    const loop = meta.loop!
    record.saveMeta({ ...meta, loop: { ...loop, toolMs: (loop.toolMs ?? 0) + durationMs } })
    if (settings.tracing === undefined || step.trace === undefined) return
    const calls = run.calls.map(({ call, state }) => ({
      callId: call.id,
      name: call.name,
      isError: state.is === 'answered' && state.result.isError === true,
    }))
    const { startMs } = run
    const span = toolRunSpan({
      parent: step.trace,
      conversationId: meta.id,
      step: step.step,
      calls,
      startMs,
      durationMs,
    })
    exportSpan(settings.tracing, span, waitUntil)
  }

  /**
   * The loop is over: stored as idle (`ended`: the last event id and time the answer's row says,
   * see `#keep`; when that id is still the last, the metadata is not written), and the answer's
   * stream ends; the queue's next goes.
   */
  #endLoop(lastError?: { kind: string; message: string }, ended?: { id: number; at: string }) {
    const { record, journal } = this.#host
    const { loop: _ended, ...meta } = record.meta!
    const lastEventId = journal.lastId
    const updatedAt = ended?.at ?? this.#isoNow()
    const next = { ...meta, streaming: false, updatedAt, lastEventId }
    if (lastError !== undefined) record.saveMeta({ ...next, lastError })
    else if (ended?.id === lastEventId) record.holdMeta(next)
    else record.saveMeta(next)
    this.#endSegment()
    this.#host.ended()
  }

  /** An answer starts at event `firstId`; its first keep-alive alarm is set after `keepAliveMs`. */
  #begin(firstId: number, keepAliveMs: number): Segment {
    let end!: () => void
    const ended = new Promise<void>((resolve) => (end = resolve))
    const arm = () => this.#host.arm()
    const keepAlive = keepAliveMs > 0 ? setTimeout(arm, keepAliveMs) : undefined
    const segment: Segment = {
      firstId,
      answer: undefined,
      tools: undefined,
      toolRun: undefined,
      keepAlive,
      ended,
      end,
    }
    this.#segment = segment
    if (keepAliveMs === 0) arm()
    return segment
  }

  /** A waiting loop goes on, with no browser attached (a decision, an expiry). */
  #resume(): void {
    if (this.#segment !== undefined) return
    const { record, journal } = this.#host
    const streamFrom = journal.lastId + 1
    this.#begin(streamFrom, 0)
    const meta = record.meta!
    const loop = { ...meta.loop!, streamFrom }
    record.saveMeta({ ...meta, loop, streaming: true, updatedAt: this.#isoNow() })
    this.#host.announce()
  }

  /**
   * The answer in flight ended (or a waiting loop was answered without one): its streams end, and
   * the events before it are forgotten; its own stay held (the metadata just saved says its last
   * id). Without one, what is held is written.
   */
  #endSegment(): void {
    const segment = this.#segment
    const { journal } = this.#host
    this.#segment = undefined
    if (segment === undefined) journal.flush()
    else {
      clearTimeout(segment.keepAlive)
      journal.endAnswer(segment.firstId)
      segment.end()
    }
    this.#host.announce()
    this.#host.arm()
  }

  #toolStep(): ToolStep | undefined {
    if (this.#step === null) {
      const { record, store } = this.#host
      this.#step =
        record.meta?.loop === undefined ? undefined : (store.toolStep() as ToolStep | undefined)
    }
    return this.#step
  }

  #saveStep(step: ToolStep | undefined): void {
    this.#step = step
    this.#host.store.saveToolStep(step)
  }

  #approval(id: string): ApprovalRecord | undefined {
    return this.#host.store.approval(id) as ApprovalRecord | undefined
  }

  /** Stores how approval `id` was answered. */
  #settleApproval(id: string, status: ApprovalRecord['status']): void {
    const issued = this.#approval(id)
    if (issued !== undefined) this.#host.store.saveApproval(id, { ...issued, status })
  }

  /** Why approval `id` can no longer be decided (409 decided, 410 expired); undefined: it can. */
  #decided(issued: ApprovalRecord): Response | undefined {
    const { status } = issued
    if (status === 'approved' || status === 'denied' || status === 'stopped') {
      const how = status === 'stopped' ? 'answered as stopped' : status
      return errorResponse(409, 'invalid-request', `this approval was decided already (${how})`)
    }
    if (status === 'expired' || issued.expiresAt <= this.#host.now()) {
      if (status === 'pending') this.expire()
      const at = new Date(issued.expiresAt).toISOString()
      return errorResponse(410, 'invalid-request', `this approval expired at ${at}`)
    }
    return undefined
  }

  /**
   * The signer of approval ids: the relay's keys, else the conversation's own (a random key made
   * with its first approval and kept in its metadata, never sent). The conversation's own key
   * keeps verifying once the relay has keys, so approvals that wait then stay good.
   */
  #approvals(): ApprovalSigner {
    const { record } = this.#host
    const own = record.meta!.approvalKey
    let keys = [...this.#host.approvalKeys, ...(own === undefined ? [] : [own])]
    if (keys.length === 0) {
      const key = newApprovalKey()
      record.saveMeta({ ...record.meta!, approvalKey: key })
      keys = [key]
    }
    let made = this.#signer
    if (made === undefined || made.keys.join() !== keys.join())
      this.#signer = made = { keys, signer: createApprovalSigner(keys) }
    return made.signer
  }

  #isoNow(): string {
    return new Date(this.#host.now()).toISOString()
  }
}

/** The call options of a loop's model call: the client's tools, and the server tools it names. */
export function withServerTools(
  options: CallOptions,
  tools: ServerTools,
  names: readonly string[],
): CallOptions {
  if (names.length === 0) return options
  return { ...options, tools: [...(options.tools ?? []), ...serverToolSpecs(tools, names)] }
}

function answered(result: ToolResult): CallState {
  return { is: 'answered', result }
}

function approvalOf(call: ToolCall, approvalId: string, expiresAt: number): WireApproval {
  const at = new Date(expiresAt).toISOString()
  return { approvalId, callId: call.id, name: call.name, input: call.input, expiresAt: at }
}
