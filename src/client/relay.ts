import { createParser } from 'eventsource-parser'
import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { Conversation } from '../core/conversation.ts'
import {
  isThinkwireError,
  kindFromStatus,
  retryAfterMsFromHeaders,
  ThinkwireError,
} from '../core/errors.ts'
import type { Event } from '../core/events.ts'
import { guardStream, type StreamContext } from '../core/guard-stream.ts'
import { isDict, parseEvent, relayError } from './parse-event.ts'

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
    context: StreamContext,
  ): AsyncGenerator<Event> {
    // The signal, the idle timeout and provider options stay here: the relay owns its upstream.
    const {
      signal: _signal,
      idleTimeoutMs: _idle,
      providerOptions: _provider,
      ...rest
    } = callOptions
    const given = options.headers
    const headers = new Headers(typeof given === 'function' ? await given() : given)
    headers.set('content-type', 'application/json')
    const response = await (options.fetch ?? globalThis.fetch)(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: id, conversation, ...rest }),
      signal: context.signal,
    })
    const body = response.body
    if (
      !response.ok ||
      body === null ||
      !response.headers.get('content-type')?.includes('event-stream')
    ) {
      throw await responseError(response, provider)
    }

    const reader = body.getReader()
    // A fetch made in-process (or by a polyfill) may not end its body on abort: cancel it here.
    const cancel = () => void reader.cancel().catch(() => {})
    context.signal.addEventListener('abort', cancel, { once: true })
    const queue: (Event | ThinkwireError)[] = []
    const parser = createParser({
      onEvent: (message) => {
        const parsed = parseEvent(message, provider)
        if (parsed !== undefined) queue.push(parsed)
      },
      // Heartbeats carry no event, but prove the relay is alive.
      onComment: () => context.touch(),
    })
    const decoder = new TextDecoder()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        // A body that ends without `done` or `error` is a dropped connection: guardStream fails it.
        if (done) return
        parser.feed(decoder.decode(value, { stream: true }))
        for (const item of queue.splice(0)) {
          if (isThinkwireError(item)) throw item
          yield item
          if (item.type === 'done') return
        }
      }
    } finally {
      context.signal.removeEventListener('abort', cancel)
      cancel()
    }
  }

  return {
    provider,
    model,
    stream(conversation, callOptions = {}) {
      // A failed fetch or a body cut mid-way is a TypeError, which guardStream maps to `network`.
      return guardStream({ provider, options: callOptions }, (context) =>
        produce(conversation, callOptions, context),
      )
    },
  }
}

/**
 * The `ThinkwireError` of a relay's JSON error answer `{ error: { kind, message } }`, or of an
 * answer that is not an event stream.
 */
async function responseError(response: Response, provider: string): Promise<ThinkwireError> {
  const { ok, status } = response
  let data: unknown
  try {
    data = await response.json()
  } catch {
    data = undefined
  }
  const error = isDict(data) && isDict(data['error']) ? data['error'] : {}
  return relayError(
    error,
    provider,
    {
      kind: ok ? 'server' : kindFromStatus(status),
      message: `relay: HTTP ${status}${ok ? ', not an event stream' : ''}`,
      status,
    },
    retryAfterMsFromHeaders(response.headers),
  )
}
