import type { Conversation, UserTurn } from '../../core/conversation.ts'
import type { Registry } from '../../core/registry.ts'
import type { WireQueuedMessage } from '../../core/wire.ts'
import { admitAnswer, endAnswer } from '../answer-pipeline.ts'
import { outputReserveOf } from '../budget.ts'
import { resolveAdapter } from '../failure.ts'
import { countRequest } from '../limit-refusal.ts'
import type { ResolvedLimits } from '../options.ts'
import type { RateLimiter } from '../rate-limit.ts'
import { errorOf, errorResponse, jsonResponse } from '../responses.ts'
import { callStart, traceCall, type CallStart, type TracingOptions } from '../tracing.ts'
import { isRecord, type Validation } from '../validate-json.ts'
import { withServerTools, type AnswerLoop } from './answer-loop.ts'
import type {
  Ask,
  ConversationMeta,
  ConversationRecord,
  QueuedMessage,
} from './conversation-record.ts'
import { utf8Length } from './conversation-store.ts'
import type { ConversationEvent, Journal } from './journal.ts'
import type { ServerTools } from './server-tools.ts'
import {
  checkClientResults,
  modelTurn,
  sendsToolTurn,
  sizeRefusal,
  validateEditRequest,
  validateMessageRequest,
  type ConversationSizeLimits,
  type MessageRequest,
} from './turn-rules.ts'

/** What the pipeline needs of its conversation's host. */
export type PipelineHost = {
  record: ConversationRecord
  loop: AnswerLoop
  journal: Journal
  settings: {
    limits: ResolvedLimits
    rateLimiter?: RateLimiter | undefined
    sizes: ConversationSizeLimits
    tracing?: TracingOptions | undefined
    allows: (model: string) => boolean
  }
  tools: ServerTools
  registry(): Registry
  waitUntil(promise: Promise<unknown>): void
  /** The conversation changed: its client's list is told. */
  announce(): void
  now(): number
  /**
   * The `reset` frame of the conversation as it is now, standing for the events up to `id`
   * (`streaming`: an answer is in flight, whose events follow it).
   */
  resetFrame(id: number, streaming: boolean): string
}

const noSuchConversation = () => errorResponse(404, 'invalid-request', 'no such conversation')

/** The 409 of a request that must wait for the answer in flight. */
const busy = () =>
  errorResponse(409, 'invalid-request', 'an answer is in flight: wait for it or stop it')

/**
 * How a conversation's messages become answers (DESIGN §9, §14): one pipeline for a message, a
 * regenerate and an edit posted now and for a queued message whose turn came (checked, admitted
 * against the client's limits, its turn stored, its loop started), and the queue of messages
 * posted while an answer runs or a loop waits.
 */
export class MessagePipeline {
  #host: PipelineHost
  /** The queue's next message is being admitted: a message meanwhile is queued after it. */
  #draining = false

  constructor(host: PipelineHost) {
    this.#host = host
  }

  /** Why a regenerate, an edit or a switch cannot go now (what runs, waits or is queued). */
  busyRefusal(): Response | undefined {
    const { loop, record } = this.#host
    const waits = loop.waitingOn()
    if (waits !== undefined) {
      const message = `the agent waits on ${waits}: decide, send the tool results, or stop it`
      return errorResponse(409, 'invalid-request', message)
    }
    if (loop.running || this.#draining || record.queued.length > 0) return busy()
    return undefined
  }

  /** Whether a message waits its turn: a user turn, while an answer runs or waits or others wait. */
  queues(body: unknown): boolean {
    if (sendsToolTurn(body)) return false
    const { loop, record } = this.#host
    const busyNow = loop.running || loop.waitingOn() !== undefined
    return busyNow || this.#draining || record.queued.length > 0
  }

  /**
   * Queues a message (DESIGN §14), checked as it would be sent (its fields, its model) and counted
   * against the conversation's bytes: 202 `{ queued: n }`, its place, and every follower gets a
   * `queued` event. It is sent, as it came, when the answers before it end.
   */
  enqueue(meta: ConversationMeta, body: unknown, traceparent: string | undefined) {
    const { record, loop, settings } = this.#host
    const { limits, rateLimiter: limiter, sizes } = settings
    const names = Object.keys(this.#host.tools)
    const checked = validateMessageRequest(body, limits, [], 'message', names)
    if (!checked.ok) {
      const { field, message } = checked.error
      return countRequest(limiter, meta.owner).then(
        (counted) => counted ?? errorResponse(400, 'invalid-request', message, { field }),
      )
    }
    const adapter = resolveAdapter(this.#host.registry(), checked.value.model, settings.allows)
    if (adapter instanceof Response) return adapter
    const turn = checked.value.turn as UserTurn
    const entry: QueuedMessage = { turn, body: JSON.stringify(body) }
    if (traceparent !== undefined) entry.traceparent = traceparent
    const json = JSON.stringify(entry)
    // What stays once room is made (versions off the path may go), the queue, and this message.
    const kept = record.keptSizes(loop.keeps())
    const stored = { turns: kept.turns, bytes: kept.bytes + record.queuedBytes() }
    const refusal = sizeRefusal(stored, { turns: 0, bytes: utf8Length(json) }, sizes)
    if (refusal !== null) return errorResponse(413, 'invalid-request', refusal.message)
    record.enqueue(json)
    const position = record.queued.length
    this.publishIdle({ type: 'queued', turn, position })
    // Queued while nothing ran (the queue was about to move on): it goes when its turn comes.
    void this.drain()
    return jsonResponse(202, { queued: position } satisfies WireQueuedMessage)
  }

  /**
   * The one pipeline of an answer, for a message, a regenerate or an edit posted now, or a queued
   * message whose turn came (`item`): checked, admitted against the client's limits, its turn
   * stored, and its loop started; returns where its events start, or the refusal. `seen`: the
   * last event the client that posted it has (its `Last-Event-ID`); when events came between it
   * and the answer's `turn`, `first` is a `reset` with the conversation as it was just before
   * that `turn`, to send ahead of it.
   */
  async answer(
    meta: ConversationMeta,
    kind: Ask['kind'],
    body: unknown,
    from: {
      traceparent?: string | undefined
      start?: CallStart | undefined
      item?: number
      seen?: number | undefined
    },
  ): Promise<{ before: number; first: string | undefined } | Response> {
    const loop = this.#host.loop
    const record = this.#host.record
    const { limits, rateLimiter: limiter, sizes } = this.#host.settings
    if (loop.running || (this.#draining && from.item === undefined)) return busy()
    // A loop that waits counts as running: only a tool turn that answers its client's calls goes on.
    const waits = loop.waitingOn()
    if (waits !== undefined && (kind !== 'message' || !sendsToolTurn(body))) {
      const message = `the agent waits on ${waits}: decide, send the tool results, or stop it`
      return errorResponse(409, 'invalid-request', message)
    }
    const names = Object.keys(this.#host.tools)
    let checked: Validation<MessageRequest & { at?: number }>
    if (kind === 'edit') checked = validateEditRequest(body, limits, record.turns(), names)
    else {
      const last = kind === 'message' ? record.lastTurn() : undefined
      const stored = last === undefined ? [] : [last]
      checked = validateMessageRequest(body, limits, stored, kind, names)
    }
    if (checked.ok && waits !== undefined)
      checked = checkClientResults(checked.value, loop.clientCalls())
    if (!checked.ok) {
      const { field, message } = checked.error
      const counted = await countRequest(limiter, meta.owner)
      return counted ?? errorResponse(400, 'invalid-request', message, { field })
    }
    const { model, options, serverTools, maxSteps, at } = checked.value
    let { turn } = checked.value
    if (waits !== undefined && turn?.role === 'tool') {
      const whole = loop.clientResults(turn.results)
      if (whole === undefined) {
        // Approvals still wait: the loop goes on, with its own model and options, once decided.
        const counted = await countRequest(limiter, meta.owner)
        return counted ?? jsonResponse(202, { pending: loop.pending() })
      }
      turn = whole
    }
    const adapter = resolveAdapter(this.#host.registry(), model, this.#host.settings.allows)
    if (adapter instanceof Response) return adapter
    const callOptions = withServerTools(options, this.#host.tools, serverTools)
    const ask: Ask =
      kind === 'regenerate'
        ? { kind }
        : kind === 'edit'
          ? { kind, at: at!, turn: turn as UserTurn }
          : { kind, turn: turn! }
    const queued = record.queuedBytes(from.item)
    const plan = record.answerPlan(ask, outputReserveOf(adapter, callOptions), sizes, queued)
    if ('status' in plan) return errorResponse(plan.status, 'invalid-request', plan.message)
    const { added } = plan
    const sent = record.tree.bytesTo(plan.answers ?? added?.parent) + (added?.bytes ?? 0)
    const sentBytes = sent + utf8Length(meta.system ?? '')
    const call = { sentBytes, adapter, options: callOptions }
    const shape = record.shape
    const admitted = await admitAnswer(limiter, meta.owner, call)
    if (admitted instanceof Response) return admitted
    const { reservation } = admitted
    // Deleted, changed by another request, or (a queued message) cleared, while the limiter was
    // asked.
    const cleared = from.item !== undefined && record.queued[0] !== from.item
    if (record.meta === undefined || loop.running || record.shape !== shape || cleared) {
      endAnswer({ reservation, trace: undefined }, { type: 'released' })
      return record.meta === undefined ? noSuchConversation() : busy()
    }
    const before = this.#host.journal.lastId
    // A client that has not read every event before this `turn` (another tab's answer, which its
    // follow stream has not brought yet) would take the `turn`'s id as the last it has, and drop
    // those events as seen when they come: it gets what they said first, as the conversation
    // stands now, before the `turn` (and an answer is in flight, this one). One `reset` rather
    // than those events again: the first `turn` on a message's stream stays its own, which is
    // where a client puts the turn it sent and a regenerate's or an edit's answer.
    const seen = from.seen
    const first =
      seen !== undefined && seen < before ? this.#host.resetFrame(before, true) : undefined
    // Room for it, the oldest versions off the active path dropped first: every tab is told.
    if (record.makeRoom(sizes, queued, plan.need, plan.replaced).length > 0) {
      this.#host.journal.publish({
        type: 'reset',
        conversation: record.shownJson(),
        streaming: false,
      })
    }
    if (from.item !== undefined) {
      record.dequeue(from.item)
      this.#host.journal.publish({ type: 'queue', queue: JSON.stringify(record.queuedTurns()) })
    }
    const conversation: Conversation = { turns: plan.turns.map(modelTurn) }
    if (meta.system !== undefined) conversation.system = meta.system
    const waitUntil = this.#host.waitUntil
    const { traceparent, start } = from
    const trace =
      start === undefined
        ? undefined
        : traceCall(
            this.#host.settings.tracing,
            traceparent ?? null,
            {
              provider: adapter.provider,
              model: adapter.model,
              options: callOptions,
              conversation,
              streamed: true,
              conversationId: meta.id,
            },
            start,
            waitUntil,
          )
    loop.start({
      answered: plan.turns.at(-1)!,
      answers: added ?? plan.answers!,
      replaces: plan.replaces,
      version: plan.version,
      at: plan.at,
      call: { adapter, conversation, options: callOptions },
      params: { model, options, serverTools, maxSteps, traceparent },
      tally: { reservation, trace, waitUntil },
    })
    return { before, first }
  }

  /**
   * Sends the queue's next message once nothing runs or waits (an answer ended, the host started
   * with a stored queue), one at a time: each goes through the pipeline a message posted now goes
   * through. One refused when its turn came (a limit, its model, the room left) leaves the queue:
   * every tab is told (`queue`, then an `error` saying why, kept as `lastError`), and the next goes.
   */
  async drain(): Promise<void> {
    const record = this.#host.record
    if (this.#draining) return
    this.#draining = true
    try {
      for (;;) {
        const meta = record.meta
        if (
          meta === undefined ||
          this.#host.loop.running ||
          this.#host.loop.waitingOn() !== undefined
        )
          return
        const next = record.queue()[0]
        if (next === undefined) return
        const queued = JSON.parse(next.json) as QueuedMessage
        const start = this.#host.settings.tracing === undefined ? undefined : callStart()
        const from = { traceparent: queued.traceparent, start, item: next.item }
        const started = await this.answer(meta, 'message', JSON.parse(queued.body), from)
        if (!(started instanceof Response)) return
        // Cleared, or the conversation deleted, meanwhile: nothing is left to tell.
        if (!record.queued.includes(next.item)) continue
        record.dequeue(next.item)
        const kind = errorOf(started)?.kind ?? 'invalid-request'
        const message = await refusalMessage(started)
        this.publishIdle({ type: 'queue', queue: JSON.stringify(record.queuedTurns()) })
        this.publishIdle({ type: 'error', error: { kind, message, retryable: false } })
        const lastError = { kind, message }
        record.saveMeta({
          ...record.meta!,
          lastError,
          updatedAt: new Date(this.#host.now()).toISOString(),
        })
        this.#host.announce()
      }
    } finally {
      this.#draining = false
    }
  }

  /**
   * Sends an event to every stream; while no answer runs (whose end writes its batch), it is
   * written at once, so that a restart never numbers another event with its id.
   */
  publishIdle(event: ConversationEvent): void {
    this.#host.journal.publish(event)
    if (!this.#host.loop.running) this.#host.journal.flush()
  }
}

/** The message of an error answer of the pipeline (its JSON's `error.message`). */
async function refusalMessage(response: Response): Promise<string> {
  const body: unknown = await response.json().catch(() => undefined)
  const error = isRecord(body) ? body['error'] : undefined
  const message = isRecord(error) ? error['message'] : undefined
  return typeof message === 'string' ? message : `refused with status ${response.status}`
}
