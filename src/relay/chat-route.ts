import type { Adapter } from '../core/adapter.ts'
import type { Conversation } from '../core/conversation.ts'
import { isThinkwireError, toThinkwireError } from '../core/errors.ts'
import { statusFromKind } from './status.ts'
import type { Event } from '../core/events.ts'
import type { Registry } from '../core/registry.ts'
import { toEventStream } from './event-stream.ts'
import type { RelayContext, RelayLogEntry, ResolvedLimits } from './options.ts'
import type { RateLimiter } from './rate-limit.ts'
import { readJsonBody } from './read-body.ts'
import { errorResponse, SSE_HEADERS } from './responses.ts'
import type { Sealer } from './seal.ts'
import { validateChatRequest } from './validate-request.ts'

/** What the chat route needs from the relay. */
export type ChatSetup = {
  registry: Registry
  allows(model: string): boolean
  limits: ResolvedLimits
  sealer: Sealer | undefined
  rateLimiter: RateLimiter | undefined
  heartbeatMs: number
  idleTimeoutMs: number
}

/** One request's log entry, and how to write it once the answer (or its stream) has ended. */
export type Trace = { entry: RelayLogEntry; streaming: boolean; write(): void }

/**
 * `POST /v1/chat`: reads and checks the body, resolves the model, verifies seals, takes the
 * rate limit, then waits for the first event so that a call that fails at once (auth, rate limit,
 * bad request upstream) gets a JSON error with a matching status. After the first event, or after
 * `heartbeatMs` of silence, the answer is an SSE stream that ends in `done` or `error`.
 */
export async function chatRoute(
  request: Request,
  clientId: string,
  setup: ChatSetup,
  trace: Trace,
  context: RelayContext,
): Promise<Response> {
  const { limits, sealer, rateLimiter } = setup
  const body = await readJsonBody(request, limits.bodyBytes)
  if (!body.ok) return errorResponse(body.status, 'invalid-request', body.message)
  const checked = validateChatRequest(body.value, limits)
  if (!checked.ok) {
    return errorResponse(400, 'invalid-request', checked.error.message, {
      field: checked.error.field,
    })
  }
  const { model, conversation, options } = checked.value
  trace.entry.model = model

  if (!setup.allows(model)) {
    return errorResponse(404, 'invalid-request', `model '${model}' is not served by this relay`, {
      field: 'model',
    })
  }
  let adapter: Adapter
  try {
    adapter = setup.registry.resolve(model)
  } catch (error) {
    if (!isThinkwireError(error)) throw error
    // The registry says 404 for an unknown model; anything else a factory threw maps by kind.
    const status = error.status === 404 ? 404 : statusFromKind(error.kind)
    return errorResponse(status, error.kind, error.message, { field: 'model' })
  }
  if (sealer !== undefined) {
    const refusal = await checkSeals(conversation, sealer)
    if (refusal !== undefined) return refusal
  }

  // Admitted on an estimate of the input (about 4 bytes a token), settled with the real usage.
  const estimatedTokens = Math.ceil(body.bytes / 4)
  const settle = (tokens: number) => {
    if (!Number.isFinite(tokens)) return
    const report = rateLimiter?.report?.(clientId, { tokens, estimatedTokens })
    if (report instanceof Promise) {
      const settled = report.catch(() => {})
      context.waitUntil?.(settled)
    }
  }
  if (rateLimiter !== undefined) {
    let decision
    try {
      decision = await rateLimiter.check(clientId, { tokens: estimatedTokens })
    } catch {
      return errorResponse(503, 'overloaded', 'the rate limiter is unavailable', {
        retryable: true,
      })
    }
    if (!decision.ok) {
      return errorResponse(429, 'rate-limit', 'rate limit reached for this client', {
        retryable: true,
        retryAfterMs: decision.retryAfterMs,
      })
    }
  }

  // The client leaving (request.signal) or the response stream being cancelled stops the upstream.
  const upstream = new AbortController()
  const onAbort = () => upstream.abort(request.signal.reason)
  request.signal.addEventListener('abort', onAbort, { once: true })
  const release = () => request.signal.removeEventListener('abort', onAbort)

  let iterator: AsyncIterator<Event>
  let first: Promise<IteratorResult<Event>>
  try {
    const events = adapter.stream(conversation, {
      ...options,
      signal: upstream.signal,
      idleTimeoutMs: setup.idleTimeoutMs > 0 ? setup.idleTimeoutMs : undefined,
    })
    iterator = events[Symbol.asyncIterator]()
    first = iterator.next()
  } catch (error) {
    first = Promise.reject(error)
    iterator = { next: () => first }
  }
  first.catch(() => {})

  const early = await settleWithin(first, setup.heartbeatMs)
  if (early.type === 'error') {
    const failure = toThinkwireError(early.error, adapter.provider, upstream.signal)
    release()
    upstream.abort()
    settle(0)
    trace.entry.error = { kind: failure.kind, message: failure.message }
    return errorResponse(statusFromKind(failure.kind), failure.kind, failure.message, {
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
    })
  }

  trace.streaming = true
  const stream = toEventStream({
    iterator,
    first,
    upstream,
    provider: adapter.provider,
    heartbeatMs: setup.heartbeatMs,
    finish:
      sealer === undefined
        ? undefined
        : async (turn) => {
            if (turn.items === undefined) return turn
            return { ...turn, items: { ...turn.items, seal: await sealer.seal(turn.items) } }
          },
    onEnd(end) {
      release()
      trace.entry.outcome = end.type
      if (end.type === 'done') {
        const { inputTokens, outputTokens } = end.turn.usage
        trace.entry.usage = { inputTokens, outputTokens }
        settle(inputTokens + outputTokens)
      } else if (end.type === 'error') {
        trace.entry.error = { kind: end.error.kind, message: end.error.message }
      }
      trace.write()
    },
  })
  return new Response(stream, { status: 200, headers: SSE_HEADERS })
}

/** Refuses a conversation whose assistant items lack a valid seal, naming the turn. */
async function checkSeals(
  conversation: Conversation,
  sealer: Sealer,
): Promise<Response | undefined> {
  for (let i = 0; i < conversation.turns.length; i++) {
    const turn = conversation.turns[i]!
    if (turn.role !== 'assistant' || turn.items === undefined) continue
    const field = `conversation.turns[${i}].items.seal`
    if (turn.items.seal === undefined) {
      return errorResponse(
        400,
        'invalid-request',
        `${field} is missing: items must carry this relay's seal`,
        {
          field,
        },
      )
    }
    if (!(await sealer.verify(turn.items))) {
      return errorResponse(400, 'invalid-request', `${field} does not match the items it seals`, {
        field,
      })
    }
  }
  return undefined
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
