import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../core/conversation.ts'
import { ThinkwireError } from '../core/errors.ts'
import type { WireChatRequest } from '../core/wire.ts'
import {
  guardBatches,
  type BatchContext,
  type Delta,
  type TaggedFinish,
} from '../kit/guard-stream.ts'
import { kindFromStatus, retryAfterMsFromHeaders } from '../kit/http-error.ts'
import { isRecord } from '../kit/json.ts'
import { END, readEventStream } from '../kit/read-event-stream.ts'
import { parseEvent, relayError } from './parse-event.ts'

/** Request headers, or a function that makes them for each call (e.g. a fresh token). */
export type RelayHeaders = HeadersInit | (() => HeadersInit | Promise<HeadersInit>)

/** Options of {@link relay}. */
export type RelayOptions = {
  /** Where the relay is served: `'https://chat.example.com'`, or `''` for the page's own origin. */
  url: string
  /** The model as the relay names it: `'provider/model'`, e.g. `'anthropic/claude-haiku-4-5'`. */
  model: string
  /** Sent with every call (e.g. `{ authorization: 'Bearer …' }`). */
  headers?: RelayHeaders | undefined
  /** @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
}

/**
 * An adapter that streams from a thinkwire relay: it POSTs the conversation to `/v1/chat` and
 * reads the events back from Server-Sent Events. Its `provider` and `model` are those of the model
 * behind the relay, so the turns it returns (whose items the relay tags with that provider and
 * model, and may seal) pass through untouched and are replayed when sent back.
 *
 * @example
 * ```ts
 * const adapter = relay({ url: 'https://chat.example.com', model: 'mock/echo' })
 * const turn = await complete(adapter, { turns: [{ role: 'user', content: 'Hi' }] })
 * ```
 */
export function relay(options: RelayOptions): Adapter {
  const id = options.model
  const slash = id.indexOf('/')
  if (slash <= 0 || slash === id.length - 1) {
    throw new ThinkwireError({
      kind: 'invalid-request',
      message: `relay(): model '${id}' must be 'provider/model'`,
    })
  }
  const provider = id.slice(0, slash)
  const model = id.slice(slash + 1)
  const endpoint = `${options.url.replace(/\/+$/, '')}/v1/chat`

  async function* produce(
    conversation: Conversation,
    callOptions: CallOptions,
    context: BatchContext,
  ): AsyncGenerator<readonly Delta[], TaggedFinish | undefined> {
    // The signal, the idle timeout and provider options stay here: the relay owns its upstream.
    const {
      signal: _signal,
      idleTimeoutMs: _idle,
      providerOptions: _provider,
      ...wire
    } = callOptions
    const response = await (options.fetch ?? globalThis.fetch)(endpoint, {
      method: 'POST',
      headers: await relayHeaders(options.headers, true),
      body: JSON.stringify({ model: id, conversation, ...wire } satisfies WireChatRequest),
      signal: context.signal,
    })
    if (!response.ok || !response.headers.get('content-type')?.includes('event-stream')) {
      throw await responseError(response, provider)
    }
    let turn: AssistantTurn | undefined
    const reader = response.body?.getReader()
    // Released after `done`, the body is read to its end (the relay ends it right after `done`)
    // rather than cancelled: a fetch cancelled in its last bytes shows as a failed request
    // (net::ERR_ABORTED) in browsers. A body still open DRAIN_MS later is cancelled after all.
    // Released before `done` (a stop, a failure), it is cancelled, which cancels the request.
    const body = reader
      ? new ReadableStream<Uint8Array>(
          {
            async pull(controller) {
              const chunk = await reader.read()
              if (chunk.done) controller.close()
              else controller.enqueue(chunk.value)
            },
            async cancel(reason) {
              if (!turn) return reader.cancel(reason)
              // A timeout signal does not keep Node's event loop alive; `drain` holds on to it.
              const limit = AbortSignal.timeout(DRAIN_MS)
              limit.addEventListener('abort', () => void reader.cancel().catch(() => {}))
              const drain = (): Promise<unknown> =>
                reader.read().then((c) => c.done || limit.aborted || drain())
              drain().catch(() => {})
            },
          },
          { highWaterMark: 0 },
        )
      : null
    const batches = readEventStream<Delta>(body, {
      provider,
      // A fetch made in-process (or by a polyfill) may not end its body on abort.
      signal: context.signal,
      // Heartbeats carry no event, but prove the relay is alive.
      onComment: context.touch,
      decode(message) {
        const event = parseEvent(message, provider)
        if (event?.type !== 'done') return event
        turn = event.turn
        return END
      },
    })
    yield* batches
    // A body that ends without `done` or `error` is a dropped connection: the guard fails it.
    return turn === undefined ? undefined : finishOf(turn)
  }

  return {
    provider,
    model,
    stream(conversation, callOptions = {}) {
      // A failed fetch or a body cut mid-way is a TypeError, which the guard maps to `network`.
      // The relay's `done` turn carries its cost: the client prices nothing.
      return guardBatches({ provider, model, options: callOptions }, (context) =>
        produce(conversation, callOptions, context),
      )
    },
  }
}

/** The headers of a request to the relay: the caller's, made now, and the type of a JSON body. */
export async function relayHeaders(
  given: RelayHeaders | undefined,
  json: boolean,
): Promise<Headers> {
  const headers = new Headers(typeof given === 'function' ? await given() : given)
  if (json) headers.set('content-type', 'application/json')
  return headers
}

/** How long a body may stay open after its `done` event before it is cancelled after all. */
const DRAIN_MS = 2000

/**
 * The `ThinkwireError` of a relay's JSON error answer `{ error: { kind, message } }`, or of an
 * answer that is not an event stream.
 */
export async function responseError(response: Response, provider: string): Promise<ThinkwireError> {
  const { ok, status } = response
  const data: unknown = await response.json().catch(() => undefined)
  const error = isRecord(data) && isRecord(data['error']) ? data['error'] : {}
  return relayError(
    error,
    provider,
    ok ? 'server' : kindFromStatus(status),
    `HTTP ${status}${ok ? ', not an event stream' : ''}`,
    status,
    retryAfterMsFromHeaders(response.headers),
  )
}

/**
 * What the relay's `done` turn says beyond its deltas: everything but the text, thinking and tool
 * calls, which the guard folds from the events. Its items go on whole, tag and seal included.
 */
function finishOf(turn: AssistantTurn): TaggedFinish {
  const { role: _role, text: _text, thinking: _thinking, toolCalls: _calls, ...finish } = turn
  return finish
}
