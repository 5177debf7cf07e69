import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, Conversation, Usage } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import {
  failedEnd,
  reserveAnswer,
  settleAnswer,
  type AnswerEnd,
  type AnswerReservation,
} from './answer-budget.ts'
import type { ErrorResponder } from './dialects.ts'
import { limitRefusal } from './limit-refusal.ts'
import type { RateLimiter } from './rate-limit.ts'
import { errorResponse } from './responses.ts'
import type { CallOutcome, CallTrace } from './tracing.ts'

// The steps every answer goes through, on `/v1/chat`, `/v1/chat/completions` and a durable
// conversation alike (a refused request is counted first, see `countRequest`): an admitted one reserves what it may cost, the
// model is called the same way, its `done` turn is sent in one shape, and its end is settled and
// traced in one place. Each route adds only what is its own (its body, its encoding, its storage).

/**
 * Admits an answer against its client's limits ({@link reserveAnswer}): its reservation (undefined
 * without a limiter), or the refusal to send, in the route's shape: the 429 that names the limit,
 * or a 503 when the limiter cannot be reached.
 */
export async function admitAnswer(
  limiter: RateLimiter | undefined,
  clientId: string,
  call: { sentBytes: number; adapter: Adapter; options: CallOptions },
  error: ErrorResponder = errorResponse,
): Promise<{ reservation: AnswerReservation | undefined } | Response> {
  if (limiter === undefined) return { reservation: undefined }
  const admitted = await reserveAnswer(limiter, clientId, call)
  if (admitted.ok) return { reservation: admitted.reservation }
  if (admitted.refusal !== 'unavailable') return limitRefusal(admitted.refusal, error)
  return error(503, 'overloaded', 'the rate limiter is unavailable', { retryable: true })
}

/**
 * The model call: the adapter's events, stopped by `signal`, and failed when the upstream is
 * silent for `idleTimeoutMs` (0: never).
 */
export function callModel(
  adapter: Adapter,
  conversation: Conversation,
  options: CallOptions,
  signal: AbortSignal,
  idleTimeoutMs: number,
): AsyncIterable<Event> {
  return adapter.stream(conversation, {
    ...options,
    signal,
    idleTimeoutMs: idleTimeoutMs > 0 ? idleTimeoutMs : undefined,
  })
}

/**
 * The `done` turn as the relay sends it: usage as whole non-negative counts (an adapter's
 * negative or fractional count would refund a rate window and make the turn one the relay's own
 * validator refuses), and an input on every tool call.
 */
export function wireTurn(turn: AssistantTurn): AssistantTurn {
  const usage: Usage = {
    inputTokens: tokenCount(turn.usage.inputTokens),
    outputTokens: tokenCount(turn.usage.outputTokens),
  }
  for (const key of OPTIONAL_COUNTS) {
    const value = turn.usage[key]
    if (value !== undefined) usage[key] = tokenCount(value)
  }
  const cost = turn.usage.cost
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) usage.cost = cost
  const out: AssistantTurn = { ...turn, usage }
  if (turn.toolCalls?.some((call) => call.input === undefined) === true)
    out.toolCalls = turn.toolCalls.map((call) =>
      call.input === undefined ? { ...call, input: {} } : call,
    )
  return out
}

const OPTIONAL_COUNTS = ['reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0
}

/**
 * How an answer ended, on any route. The ends before `done` say how many characters of thinking,
 * text and tool calls went out before.
 */
export type AnswerOutcome =
  | { type: 'done'; turn: AssistantTurn }
  | { type: 'error'; error: ThinkwireError; streamedChars: number }
  /** It never reached the model (its client left first, its conversation changed meanwhile). */
  | { type: 'released' }
  /** Its client left (`/v1/chat`), or its conversation was deleted. */
  | { type: 'cancel'; streamedChars: number }
  /**
   * Stopped on request (a conversation's `/stop`), with the provider's usage when it said it
   * before the stop took effect.
   */
  | { type: 'stopped'; streamedChars: number; usage?: Usage | undefined }

/** What an answer's end settles and closes. */
export type AnswerTally = {
  reservation: AnswerReservation | undefined
  trace: CallTrace | undefined
  /** Keeps the settlement running after the response (a Worker's `ctx.waitUntil`). */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
}

/**
 * Ends an answer on every route: its span says how it ended, and its reservation is settled with
 * the provider's usage, released when the provider refused it, or else at what was reserved (see
 * `settleAnswer`).
 */
export function endAnswer(tally: AnswerTally, outcome: AnswerOutcome): void {
  tally.trace?.end(spanOutcome(outcome))
  if (tally.reservation === undefined) return
  const settled = settleAnswer(tally.reservation, budgetEnd(outcome))
  tally.waitUntil?.(settled)
}

function spanOutcome(outcome: AnswerOutcome): CallOutcome {
  switch (outcome.type) {
    case 'done':
      return { turn: outcome.turn }
    case 'error':
      return { error: { kind: outcome.error.kind } }
    case 'released':
    case 'cancel':
      return { error: { kind: 'aborted' } }
    case 'stopped':
      return { finishReason: 'aborted' }
  }
}

function budgetEnd(outcome: AnswerOutcome): AnswerEnd {
  switch (outcome.type) {
    case 'done':
      return { usage: outcome.turn.usage }
    case 'error':
      return failedEnd(outcome.error, outcome.streamedChars)
    case 'stopped':
      return outcome.usage === undefined
        ? { streamedChars: outcome.streamedChars }
        : { usage: outcome.usage }
    case 'cancel':
      return { streamedChars: outcome.streamedChars }
    case 'released':
      return { released: true }
  }
}
