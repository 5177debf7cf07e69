import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../core/conversation.ts'
import {
  abortedError,
  providerError,
  ThinkwireError,
  throwIfAborted,
  toThinkwireError,
} from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import { applyEvent, initialTurnState, turnOf } from '../core/reducer.ts'
import type { WireChatRequest } from '../core/wire.ts'
import type { Delta } from '../kit/guard-stream.ts'
import { kindFromStatus } from '../kit/http-error.ts'
import { END, readEventStream } from '../kit/read-event-stream.ts'
import { parseEvent, recordOf, relayError } from './parse-event.ts'

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
  // The provider is up to the first slash; the model, all after it, may hold more.
  const [, provider = '', model = ''] = /^([^/]+)\/([^]+)$/.exec(id) ?? []
  if (!model) {
    throw new ThinkwireError({
      kind: 'invalid-request',
      message: `relay(): model '${id}' must be 'provider/model'`,
    })
  }
  const endpoint = `${options.url.replace(/\/+$/, '')}/v1/chat`

  /**
   * One call: it POSTs the conversation and yields the relay's events, under the contract every
   * adapter keeps (see `guardStream`), written out for this one producer, which ships to browsers:
   * the request is aborted when the caller aborts or stops early, a silent relay fails with
   * `timeout` after `idleTimeoutMs`, and the `done` turn's text, thinking and tool calls are folded
   * from the events (the rest of it, items and seal included, is the relay's). Its failure
   * mapping and `done` turn mirror guard-stream.ts's `failureOf` and `doneTurn`, which carry prices,
   * `mapError` and item tagging this client never needs: calling them costs 140 B gzipped, more
   * than the browser budget leaves. A change to either rule is made in both.
   */
  async function* stream(
    conversation: Conversation,
    callOptions: CallOptions = {},
  ): AsyncGenerator<Event, void, undefined> {
    // The signal, the idle timeout and provider options stay here: the relay owns its upstream.
    const {
      signal: outer,
      idleTimeoutMs: idleMs = 0,
      providerOptions: _provider,
      ...wire
    } = callOptions
    throwIfAborted(outer, provider)
    const controller = new AbortController()
    const signal = controller.signal
    const onAbort = () => controller.abort(outer?.reason)
    // A signal aborts once, and `finally` removes the listener: it needs no `once`.
    outer?.addEventListener('abort', onAbort)
    let timer: ReturnType<typeof setTimeout> | undefined
    let timedOut = false
    // Runs while the client waits for the relay, not while the consumer holds an event.
    const touch = () => {
      clearTimeout(timer)
      if (idleMs > 0) {
        timer = setTimeout(() => {
          timedOut = true
          controller.abort()
        }, idleMs)
      }
    }
    let state = initialTurnState
    let turn: AssistantTurn | undefined
    try {
      touch()
      const response = await (options.fetch ?? fetch)(endpoint, {
        method: 'POST',
        headers: await relayHeaders(options.headers, true),
        body: JSON.stringify({ model: id, conversation, ...wire } satisfies WireChatRequest),
        signal,
      })
      if (!response.ok || !response.headers.get('content-type')?.includes('event-stream')) {
        throw await responseError(response, provider)
      }
      const batches = readEventStream<Delta>(response.body, {
        provider,
        // After `done` the body is left to end by itself (the relay ends it right after `done`)
        // rather than cancelled: a fetch cancelled in its last bytes shows as a failed request
        // (net::ERR_ABORTED) in browsers. Before `done` (a stop, a failure) it is cancelled.
        drainMs: DRAIN_MS,
        // A fetch made in-process (or by a polyfill) may not end its body on abort.
        signal,
        // Heartbeats carry no event, but prove the relay is alive.
        onComment: touch,
        decode(message) {
          const event = parseEvent(message, provider)
          if (event?.type !== 'done') return event
          turn = event.turn
          return END
        },
      })
      for await (const batch of batches) {
        clearTimeout(timer)
        for (const delta of batch) {
          state = applyEvent(state, delta)
          yield delta
          // The caller may abort while it holds an event: the rest of a batch is not delivered.
          if (signal.aborted) throw signal.reason
        }
        touch()
      }
      // A body that ends without `done` or `error` is a dropped connection.
      if (!turn) {
        throw providerError('network', provider, 'the stream ended before the turn was complete')
      }
      const { role: _role, text: _text, thinking: _thinking, toolCalls: _calls, ...rest } = turn
      yield { type: 'done', turn: turnOf(state, rest) }
    } catch (error) {
      throw timedOut
        ? providerError('timeout', provider, `no data for ${idleMs} ms`, error)
        : signal.aborted
          ? abortedError(provider, error)
          : toThinkwireError(error, provider)
    } finally {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
      if (!turn) controller.abort()
    }
  }

  // A failed fetch or a body cut mid-way is a TypeError, which maps to `network`. The relay's
  // `done` turn carries its cost: the client prices nothing.
  return { provider, model, stream }
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
 * answer that is not an event stream. The relay puts `retryAfterMs` in the body; a `retry-after`
 * header in whole seconds (the relay's, or a proxy's in front of it) stands in for it. The HTTP
 * dates and `retry-after-ms` that `retryAfterMsFromHeaders` also reads are providers' ways, which
 * the browser never meets.
 */
export async function responseError(response: Response, provider: string): Promise<ThinkwireError> {
  const { ok, status } = response
  const data: unknown = await response.json().catch(() => undefined)
  const seconds = Number(response.headers.get('retry-after') || NaN)
  return relayError(
    recordOf(recordOf(data)['error']),
    provider,
    ok ? 'server' : kindFromStatus(status),
    `HTTP ${status}${ok ? ', not an event stream' : ''}`,
    status,
    seconds >= 0 ? seconds * 1000 : undefined,
  )
}
