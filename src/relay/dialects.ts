import type { CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, Conversation, StopReason } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import type { WireChatRequest, WireError, WireEvents } from '../core/wire.ts'
import {
  completionErrorResponse,
  completionResponse,
  createCompletionEncoder,
  rewriteField,
  translateCompletionRequest,
} from './completions/index.ts'
import { renamedRefusal } from './field-names.ts'
import type { Refusal } from './request-translator.ts'
import { errorResponse, jsonResponse, type ErrorResponder } from './responses.ts'
import { createSseEncoder } from './sse.ts'
import { validateChatRequest, type RequestLimits } from './validate-request.ts'

/** An event a stream encoder writes: anything but `done`, which ends the stream. */
export type StreamDelta = Exclude<Event, { type: 'done' }>

/**
 * A dialect's name for each stop reason, as a table: a stop reason added to the contract does not
 * compile until every dialect names it.
 */
export type StopReasonNames<Name> = { readonly [Reason in StopReason]: Name }

/**
 * Writes one streamed answer in a dialect: each event, the end, or a failure in its place (of the
 * `Failure` it reads: the relay passes its `ThinkwireError`).
 */
export type StreamEncoder<Failure = ThinkwireError> = {
  delta(event: StreamDelta): string
  done(turn: AssistantTurn): string
  error(failure: Failure): string
}

/**
 * What an encoder that writes a failure as its dialect's error reads of it: its kind, which gives
 * the status the error names (the relay's for that kind, never the provider's), and its message.
 */
export type StreamFailure = Pick<ThinkwireError, 'kind' | 'message'>

/** A checked call, whatever dialect it came in. */
export type DialectCall = {
  model: string
  conversation: Conversation
  options: CallOptions
  /** The answer streams (SSE), or comes once as JSON. */
  stream: boolean
  /** What the dialect changed or dropped, for the log: field paths and reasons, no client text. */
  notes: readonly string[]
  /** The encoder of this call's streamed answer. */
  encoder(): StreamEncoder
  /** The JSON answer of a call that does not stream. */
  respond(turn: AssistantTurn): Response
}

export type { ErrorResponder }

/**
 * How one chat endpoint speaks: its request body, its errors, its answer. Everything between
 * (auth, limits, seals, budgets, the upstream call and its stream) is the relay's, the same for
 * every dialect.
 */
export type Dialect = {
  parse(body: unknown, limits: RequestLimits): { ok: true; call: DialectCall } | Refusal
  error: ErrorResponder
  /**
   * What a sealed turn that was changed gets: a 400 naming it (`/v1/chat`), or its items dropped,
   * for clients that cannot repair a 400 (a plain OpenAI client resends what it was given).
   */
  onChangedSeal: 'refuse' | 'drop'
  /**
   * Headers a streamed answer carries besides the relay's SSE ones: what a dialect's clients look
   * for (the AI SDK's `x-vercel-ai-ui-message-stream`). None by default.
   */
  streamHeaders?: Readonly<Record<string, string>> | undefined
  /**
   * What a turn whose items this call's model does not replay (another provider, model or
   * thinking mode made them) gets: sent as it is, for the adapter to re-encode (the default), or
   * sent without them, with a warning in the log and the answer's warnings, for clients that see
   * no other sign of why the reasoning did not carry over.
   */
  onForeignItems?: 'keep' | 'drop' | undefined
  /**
   * A header a client of the dialect sends the relay token in, besides `authorization: Bearer`
   * (Anthropic's clients send their API key as `x-api-key`): the auth check reads it as a bearer
   * token when the request has no `authorization`.
   */
  tokenHeader?: string | undefined
}

/** `POST /v1/chat`: thinkwire's own request body and SSE events (DESIGN §5). */
export const chatDialect: Dialect = {
  parse(body, limits) {
    const checked = validateChatRequest(body, limits)
    if (!checked.ok)
      return { ok: false, field: checked.error.field, message: checked.error.message }
    const { model, conversation, options } = checked.value
    const call: DialectCall = {
      model,
      conversation,
      options,
      stream: true,
      notes: [],
      encoder: relayEncoder,
      respond: () => {
        throw new TypeError('a /v1/chat answer always streams')
      },
    }
    return { ok: true, call }
  },
  error: errorResponse,
  onChangedSeal: 'refuse',
}

/** The encoder of `/v1/chat` streams: one numbered SSE event per contract event. */
export function relayEncoder(): StreamEncoder {
  const sse = createSseEncoder()
  return {
    delta: (event) => sse.event(event.type, relayData.delta(event)),
    done: (turn) => sse.event('done', relayData.done(turn)),
    error: (failure) => sse.event('error', relayData.error(failure)),
  }
}

/**
 * The `data` of each event of `/v1/chat` (DESIGN §5) as JSON text: what the relay's streams and a
 * conversation's event log both write.
 */
export const relayData = {
  delta(event: StreamDelta): string {
    switch (event.type) {
      // `{"text":…}` written around the one string: the same JSON as stringifying the object,
      // without building it (the relay's most frequent event).
      case 'text':
      case 'thinking':
        return `{"text":${JSON.stringify(event.text)}}`
      case 'tool-call':
        return JSON.stringify({ call: event.call } satisfies WireEvents['tool-call'])
    }
  },
  done: (turn: AssistantTurn): string => JSON.stringify({ turn } satisfies WireEvents['done']),
  error(failure: WireError): string {
    const data: WireError = {
      kind: failure.kind,
      message: failure.message,
      retryable: failure.retryable,
    }
    if (failure.retryAfterMs !== undefined) data.retryAfterMs = failure.retryAfterMs
    return JSON.stringify(data)
  },
}

/**
 * What a dialect's translation of a request gives every dialect's call. A translator checks only
 * the dialect's shape and never throws on a parsed JSON body (see `translateBody`); limits, names
 * and depth are left to `validateChatRequest`, whose field paths the dialect renames as its own
 * (see `parseDialect`).
 */
export type Translation = {
  ok: true
  /** The `/v1/chat` body, still to be checked by `validateChatRequest`. */
  request: WireChatRequest
  /** The answer streams (SSE), or comes once as JSON. */
  stream: boolean
  /** What was changed or dropped, by field path and reason (never the client's text). */
  notes: readonly string[]
}

/** How a dialect reads a request and writes its answer: the parts of its `parse`. */
export type DialectParts<T extends Translation, Meta> = {
  /** Reads the body into a `/v1/chat` request, or refuses it in the dialect's terms. */
  translate(body: unknown): T | Refusal
  /** A field the relay's own checks found at fault, as the dialect names it. */
  rename(field: string, translated: T): string
  /** What the answer's encoder and its JSON say of it (its id, ...), for the checked model. */
  meta(translated: T, model: string): Meta
  /** The encoder of an answer that streams. */
  encoder(meta: Meta): StreamEncoder
  /** The answer of a call that does not stream, as JSON: none where every answer streams. */
  body?: ((turn: AssistantTurn, meta: Meta) => unknown) | undefined
}

/**
 * A dialect's `parse` of its parts: the body translated, then checked by the relay's own checks
 * (a field at fault renamed as the dialect names it), then the call that answers in the dialect.
 */
export function parseDialect<T extends Translation, Meta>(
  parts: DialectParts<T, Meta>,
): Dialect['parse'] {
  return (body, limits) => {
    const translated = parts.translate(body)
    if (!translated.ok) return translated
    const checked = validateChatRequest(translated.request, limits)
    if (!checked.ok) {
      const rename = (field: string) => parts.rename(field, translated)
      return { ok: false, ...renamedRefusal(checked.error, rename) }
    }
    const { model, conversation, options } = checked.value
    const meta = parts.meta(translated, model)
    const call: DialectCall = {
      model,
      conversation,
      options,
      stream: translated.stream,
      notes: translated.notes,
      encoder: () => parts.encoder(meta),
      respond(turn) {
        if (parts.body === undefined) throw new TypeError("this dialect's answers only stream")
        return jsonResponse(200, parts.body(turn, meta))
      },
    }
    return { ok: true, call }
  }
}

/** `POST /v1/chat/completions`: OpenAI's Chat Completions, for any OpenAI client (DESIGN §10). */
export const completionsDialect: Dialect = {
  parse: parseDialect({
    translate: translateCompletionRequest,
    rename: (field, { messageOfTurn }) => rewriteField(field, messageOfTurn),
    meta: ({ includeUsage }, model) => ({
      id: randomId('chatcmpl-'),
      model,
      created: Math.floor(Date.now() / 1000),
      includeUsage,
    }),
    encoder: createCompletionEncoder,
    body: completionResponse,
  }),
  error: completionErrorResponse,
  onChangedSeal: 'drop',
}

/** `prefix` and 24 random hex digits, as OpenAI's and Anthropic's ids look (`chatcmpl-…`, `msg_…`). */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12))
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return `${prefix}${hex}`
}
