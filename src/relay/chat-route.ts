import type { AssistantTurn, Conversation, Turn, Usage } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import { statusFromKind } from './status.ts'
import { relayFailure, resolveAdapter } from './failure.ts'
import type { Event } from '../core/events.ts'
import type { Registry } from '../core/registry.ts'
import { toEventStream } from './event-stream.ts'
import type { RelayContext, RelayLogEntry, ResolvedLimits } from './options.ts'
import type { RateLimiter } from './rate-limit.ts'
import { countRequest } from './limit-refusal.ts'
import {
  admitAnswer,
  callModel,
  endAnswer,
  wireTurn,
  type AnswerOutcome,
  type AnswerTally,
} from './answer-pipeline.ts'
import { traceCall, type TracingOptions } from './tracing.ts'
import { readJsonBody } from './read-body.ts'
import { foreignItems } from './foreign-items.ts'
import { thinkingModeOf } from '../kit/replay.ts'
import type { Dialect } from './dialects.ts'
import { SSE_HEADERS } from './responses.ts'
import type { Sealer } from './seal.ts'

/** What the chat route needs from the relay. */
export type ChatSetup = {
  registry: Registry
  allows(model: string): boolean
  limits: ResolvedLimits
  sealer: Sealer | undefined
  rateLimiter: RateLimiter | undefined
  heartbeatMs: number
  idleTimeoutMs: number
  tracing: TracingOptions | undefined
}

/** One request's log entry, and how to write it once the answer (or its stream) has ended. */
export type Trace = { entry: RelayLogEntry; streaming: boolean; write(): void }

/**
 * `POST /v1/chat`: reads and checks the body, resolves the model, checks seals, takes the rate
 * limit, then waits for the first event so that a call that fails at once (auth, rate limit, bad
 * request upstream) gets a JSON error with a matching status. After the first event, or after
 * `heartbeatMs` of silence, the answer is an SSE stream that ends in `done` or `error`.
 *
 * The budget is honest on every path: a refused body still counts as a request; admission counts
 * the input estimate plus the output the call may produce (`reserveAnswer`); and the call is
 * settled with its real usage on `done`, with nothing when the model refused it, and with what was
 * reserved when it ends early and its usage is not known (`settleAnswer`).
 */
export async function chatRoute(
  request: Request,
  clientId: string,
  setup: ChatSetup,
  trace: Trace,
  context: RelayContext,
  dialect: Dialect,
): Promise<Response> {
  const { limits, sealer, rateLimiter } = setup
  const errorResponse = dialect.error
  const arrived = performance.now()
  const arrivedAt = Date.now()
  const body = await readJsonBody(request, limits.bodyBytes, limits.bodyTimeoutMs)
  if (!body.ok) {
    return (
      (await countRequest(rateLimiter, clientId, errorResponse)) ??
      errorResponse(body.status, 'invalid-request', body.message)
    )
  }
  const parsed = dialect.parse(body.value, limits)
  if (!parsed.ok) {
    return (
      (await countRequest(rateLimiter, clientId, errorResponse)) ??
      errorResponse(400, 'invalid-request', parsed.message, {
        field: parsed.field,
        code: parsed.code,
      })
    )
  }
  const { call } = parsed
  const { model, options } = call
  let conversation = call.conversation
  if (call.notes.length > 0) trace.entry.notes = [...call.notes]

  const adapter = resolveAdapter(setup.registry, model, setup.allows, errorResponse)
  if (adapter instanceof Response) return adapter
  trace.entry.model = model
  let sealWarnings: string[] = []
  if (sealer !== undefined) {
    const checkedSeals = await checkSeals(conversation, sealer, dialect)
    if (!checkedSeals.ok) return checkedSeals.refusal
    conversation = checkedSeals.conversation
    sealWarnings = checkedSeals.warnings
    if (sealWarnings.length > 0) trace.entry.notes = [...(trace.entry.notes ?? []), ...sealWarnings]
  }
  const foreign = foreignItems(
    conversation,
    {
      provider: adapter.provider,
      model: adapter.model,
      thinkingMode: thinkingModeOf(options.thinking),
    },
    dialect.onForeignItems === 'drop',
  )
  conversation = foreign.conversation
  if (foreign.notes.length > 0) {
    trace.entry.notes = [...(trace.entry.notes ?? []), ...foreign.notes]
    // A dialect that drops them says so where the seal checks say theirs: the answer's warnings.
    if (dialect.onForeignItems === 'drop') sealWarnings = [...sealWarnings, ...foreign.notes]
  }

  // Admission counts what is sent and the output the call may produce; the answer is settled with
  // its real usage once it ends (see `endAnswer`), in the background.
  const admitted = await admitAnswer(
    rateLimiter,
    clientId,
    { sentBytes: body.bytes, adapter, options },
    errorResponse,
  )
  if (admitted instanceof Response) return admitted
  const tally: AnswerTally = {
    reservation: admitted.reservation,
    trace: undefined,
    waitUntil: context.waitUntil,
  }

  // The client leaving (request.signal) or the response stream being cancelled stops the upstream.
  // It may have left already, while the body, the seals or the rate limiter were awaited.
  if (request.signal.aborted) {
    endAnswer(tally, { type: 'released' })
    trace.entry.outcome = 'cancel'
    return errorResponse(499, 'aborted', 'the client left before the call started')
  }
  const upstream = new AbortController()
  const onAbort = () => upstream.abort(request.signal.reason)
  request.signal.addEventListener('abort', onAbort, { once: true })
  const release = () => request.signal.removeEventListener('abort', onAbort)

  let iterator: AsyncIterator<Event>
  let first: Promise<IteratorResult<Event>>
  const called = performance.now()
  // Where the time went, for the browser's devtools: the relay's own checks, then the upstream.
  const timing = (upstreamWhat: string) =>
    serverTiming(called - arrived, upstreamWhat, performance.now() - called)
  try {
    const events = callModel(adapter, conversation, options, upstream.signal, setup.idleTimeoutMs)
    iterator = events[Symbol.asyncIterator]()
    first = iterator.next()
  } catch (error) {
    first = Promise.reject(error)
    iterator = { next: () => first }
  }
  first.catch(() => {})

  // One span per model call (GenAI semantic conventions), continuing the caller's `traceparent`
  // whatever its sampled flag; exported once the answer has ended.
  tally.trace = traceCall(
    setup.tracing,
    request.headers.get('traceparent'),
    {
      provider: adapter.provider,
      model: adapter.model,
      options,
      conversation,
      streamed: call.stream,
    },
    { epochMs: arrivedAt, perfMs: arrived },
    (promise) => context.waitUntil?.(promise),
  )
  if (tally.trace !== undefined) first.then(tally.trace.firstChunk, () => {})
  /** The answer ended: settled and traced (see `endAnswer`), and its log entry told. */
  const ended = (outcome: AnswerOutcome): void => {
    endAnswer(tally, outcome)
    if (outcome.type === 'done') trace.entry.usage = logUsage(outcome.turn.usage)
    if (outcome.type === 'error') trace.entry.error = logError(outcome.error)
  }

  const finish = async (turn: AssistantTurn): Promise<AssistantTurn> => {
    let out = wireTurn(turn)
    if (sealWarnings.length > 0)
      out = { ...out, warnings: [...(out.warnings ?? []), ...sealWarnings] }
    if (sealer === undefined || out.items === undefined) return out
    return { ...out, items: { ...out.items, seal: await sealer.seal(out) } }
  }
  if (!call.stream) {
    const answered = await answerOnce(iterator, first, adapter.provider, upstream)
    release()
    const timedOnce = timing('answer')
    if (answered.ok) {
      const turn = await finish(answered.turn)
      trace.entry.outcome = 'done'
      ended({ type: 'done', turn })
      return withTiming(call.respond(turn), timedOnce)
    }
    const failure = answered.error
    ended({ type: 'error', error: failure, streamedChars: answered.streamedChars })
    trace.entry.outcome = request.signal.aborted ? 'cancel' : 'error'
    const refusedOnce = errorResponse(statusFromKind(failure.kind), failure.kind, failure.message, {
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
    })
    return withTiming(refusedOnce, timedOnce)
  }

  const early = await settleWithin(first, setup.heartbeatMs)
  // The time to the first event, or to the failure; a quiet upstream has not answered yet.
  const timed = early.type === 'quiet' ? timing('') : timing('first event')
  if (early.type === 'error') {
    const failure = relayFailure(early.error, adapter.provider, upstream.signal)
    release()
    upstream.abort()
    ended({ type: 'error', error: failure, streamedChars: 0 })
    const refused = errorResponse(statusFromKind(failure.kind), failure.kind, failure.message, {
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
    })
    return withTiming(refused, timed)
  }

  trace.streaming = true
  const stream = toEventStream({
    iterator,
    first,
    upstream,
    provider: adapter.provider,
    encoder: call.encoder(),
    heartbeatMs: setup.heartbeatMs,
    finish,
    onEnd(end) {
      release()
      trace.entry.outcome = end.type
      ended(end)
      trace.write()
    },
  })
  return new Response(stream, {
    status: 200,
    headers: { ...SSE_HEADERS, ...dialect.streamHeaders, 'server-timing': timed },
  })
}

/**
 * A `server-timing` header: `relay` for the relay's own work before the upstream call (body,
 * checks, seals, rate limit), and `upstream` for the call's time to `what` (left out when the
 * upstream has not answered yet). Devtools show both beside the request.
 */
function serverTiming(relayMs: number, what: string, upstreamMs: number): string {
  const relay = `relay;dur=${relayMs.toFixed(1)};desc="checks"`
  return what === '' ? relay : `${relay}, upstream;dur=${upstreamMs.toFixed(1)};desc="${what}"`
}

function withTiming(response: Response, timing: string): Response {
  response.headers.set('server-timing', timing)
  return response
}

/** What the log keeps of a turn's usage: its counts and, when known, its cost. */
function logUsage(usage: Usage): RelayLogEntry['usage'] {
  const out: RelayLogEntry['usage'] = {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
  }
  if (usage.cost !== undefined) out.cost = usage.cost
  return out
}

/** What the log keeps of a failure: its kind and upstream status, never its message (it may echo a prompt). */
function logError(error: ThinkwireError): RelayLogEntry['error'] {
  return error.status === undefined
    ? { kind: error.kind }
    : { kind: error.kind, status: error.status }
}

type SealedConversation =
  | { ok: true; conversation: Conversation; warnings: string[] }
  | { ok: false; refusal: Response }

/**
 * Checks the seal of every assistant turn that carries items. A changed turn is refused, naming
 * it. Items without a seal this relay can check (a conversation stored before sealing was turned
 * on, or sealed with a retired key) are dropped: the turn goes upstream re-encoded from its text
 * and tool calls, and the answer's warnings say so.
 */
async function checkSeals(
  conversation: Conversation,
  sealer: Sealer,
  dialect: Dialect,
): Promise<SealedConversation> {
  const warnings: string[] = []
  let turns: Turn[] | undefined
  for (let i = 0; i < conversation.turns.length; i++) {
    const turn = conversation.turns[i]!
    if (turn.role !== 'assistant' || turn.items === undefined) continue
    const check = await sealer.check(turn)
    if (check === 'valid') continue
    const field = `conversation.turns[${i}]`
    if (check === 'tampered' && dialect.onChangedSeal === 'refuse') {
      const refusal = dialect.error(
        400,
        'invalid-request',
        `${field} was changed after this relay sealed it`,
        { field: `${field}.items.seal` },
      )
      return { ok: false, refusal }
    }
    turns ??= [...conversation.turns]
    const { items: _dropped, ...plain } = turn
    turns[i] = plain
    warnings.push(
      check === 'tampered'
        ? `${field}.items dropped: the turn was changed after this relay sealed it, so it was sent from its text and tool calls`
        : `${field}.items dropped: they carry no seal of this relay's current keys, so the turn was sent from its text and tool calls`,
    )
  }
  return {
    ok: true,
    conversation: turns === undefined ? conversation : { ...conversation, turns },
    warnings,
  }
}

/**
 * The whole answer of a call that does not stream: its `done` turn, or its failure with how much
 * had been made by then. The client leaving (the request's signal) aborts the upstream as for a
 * stream.
 */
async function answerOnce(
  iterator: AsyncIterator<Event>,
  first: Promise<IteratorResult<Event>>,
  provider: string,
  upstream: AbortController,
): Promise<
  { ok: true; turn: AssistantTurn } | { ok: false; error: ThinkwireError; streamedChars: number }
> {
  let streamedChars = 0
  try {
    for (let step = await first; step.done !== true; step = await iterator.next()) {
      const event = step.value
      if (event.type === 'done') {
        void iterator.return?.()?.catch(() => {})
        return { ok: true, turn: event.turn }
      }
      streamedChars +=
        event.type === 'tool-call' ? JSON.stringify(event.call).length : event.text.length
    }
    throw new Error(`${provider}: the stream ended without a done event`)
  } catch (error) {
    upstream.abort()
    return { ok: false, error: relayFailure(error, provider, upstream.signal), streamedChars }
  }
}

type Early = { type: 'error'; error: unknown } | { type: 'event' } | { type: 'quiet' }

/** Whether `first` failed, settled, or stayed quiet for `ms`. */
async function settleWithin(first: Promise<IteratorResult<Event>>, ms: number): Promise<Early> {
  const outcome = first.then(
    (): Early => ({ type: 'event' }),
    (error: unknown): Early => ({ type: 'error', error }),
  )
  if (!(ms > 0)) return outcome
  let timer: ReturnType<typeof setTimeout> | undefined
  const quiet = new Promise<Early>((resolve) => {
    timer = setTimeout(() => resolve({ type: 'quiet' }), ms)
  })
  try {
    return await Promise.race([outcome, quiet])
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}
