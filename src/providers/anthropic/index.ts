import Anthropic from '@anthropic-ai/sdk'
import type { Adapter } from '../../core/adapter.ts'
import type { AdapterFactory } from '../../core/registry.ts'
import { defineAdapter } from '../../kit/define-adapter.ts'
import { buildClient } from '../../kit/sdk-error.ts'
import { mapAnthropicError } from './map-error.ts'
import { anthropicCapabilities, anthropicModel, anthropicModels } from './models.ts'
import { streamMessage, type MessageSetup } from './stream-message.ts'

export { anthropicCapabilities, anthropicModels }

/** Settings of {@link createAnthropic}: one SDK client, shared by every model. */
export type AnthropicSettings = {
  /** Anthropic API key. */
  apiKey: string
  /** @defaultValue `https://api.anthropic.com` */
  baseURL?: string | undefined
  /** The `fetch` the SDK uses (tests pass one that replays recorded streams). @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
  /** Headers added to every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string> | undefined
  /** Allow use from a browser page, where the key is visible to the page's users. @defaultValue false */
  dangerouslyAllowBrowser?: boolean | undefined
  /**
   * How many times one `stream()` continues a turn the API paused (`pause_turn`), each a request
   * of its own; a turn paused once more ends paused. 0: every paused turn ends the stream.
   * @defaultValue 4
   */
  pauseContinuations?: number | undefined
}

/** Options of {@link anthropic}. */
export type AnthropicOptions = AnthropicSettings & {
  /** Model id, e.g. `'claude-sonnet-5'`. */
  model: string
}

const PROVIDER = 'anthropic'

/**
 * An adapter for Anthropic's Messages API (`@anthropic-ai/sdk`). Thinking is set per model from
 * the table in `models.ts`; each turn's final content blocks come back as `items` and are replayed
 * verbatim to the same model and thinking mode. SDK retries are off: use `withRetry`.
 *
 * A turn the API paused (`pause_turn`: a server tool such as web search ran long) is continued in
 * the same stream, up to `pauseContinuations` times: the turn so far is sent back as the last
 * assistant message, with its `container`, and the deltas of the next message follow; the `done`
 * turn holds every message's blocks and their usage added up. One still paused after that ends
 * with `stopReason: 'other'` and `stopDetails.category: 'pause_turn'`, its items keeping every
 * block (`server_tool_use` included) and the container; `stream()` with the same conversation,
 * the paused turn last, continues it as a turn of its own (keep both, in order). A paused turn
 * that is not continued (a user message follows it) is sent without the server tool call it
 * ended with, which has no result and would be refused (with a warning on the new turn).
 *
 * A tool call that the output limit or a refusal cut off is never streamed, and is left out of
 * `toolCalls` and `items` (named in `warnings`), so the turn replays without it. So is what the API
 * refuses back: an empty text block, a cut turn's thinking block without its signature, and the
 * thinking a turn ends with; a turn left with nothing has no `items` and is not sent again.
 * A refused turn (`stopReason: 'refusal'`) stays in the conversation but is never sent again. A
 * compaction block is kept whole: a signed one (the answer to `providerOptions.anthropic.compaction`)
 * is sent first on later requests, in place of the turns before it. `options.cache`
 * marks cache breakpoints (system, last tool, last message); `options.stop` becomes
 * `stop_sequences`; an explicit `maxTokens` is never raised for thinking.
 *
 * @example
 * ```ts
 * const adapter = anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: 'claude-sonnet-5' })
 * for await (const event of adapter.stream(conversation, { thinking: 'medium' })) {
 *   if (event.type === 'text') process(event.text)
 * }
 * ```
 */
export function anthropic(options: AnthropicOptions): Adapter {
  return createAnthropic(options)(options.model)
}

/**
 * A factory of Anthropic adapters that share one SDK client, built here once. Its `models` are
 * Anthropic's current models; any other model id works too.
 *
 * @example
 * ```ts
 * const registry = createRegistry({ anthropic: createAnthropic({ apiKey: env.ANTHROPIC_API_KEY }) })
 * ```
 */
export function createAnthropic(settings: AnthropicSettings): AdapterFactory {
  const client = createClient(settings)
  const continuations = settings.pauseContinuations ?? 4
  if (!Number.isInteger(continuations) || continuations < 0) {
    throw new TypeError('anthropic: pauseContinuations must be a whole number, 0 or more')
  }
  return defineAdapter({
    provider: PROVIDER,
    models: anthropicModels,
    mapError: mapAnthropicError,
    model(model) {
      const setup: MessageSetup = { client, model: anthropicModel(model), continuations }
      return {
        capabilities: anthropicCapabilities(model),
        stream: (conversation, options) => streamMessage(setup, conversation, options),
      }
    },
  })
}

function createClient({
  apiKey,
  baseURL,
  fetch,
  headers,
  dangerouslyAllowBrowser,
}: AnthropicSettings): Anthropic {
  return buildClient(
    PROVIDER,
    () =>
      new Anthropic({
        apiKey,
        baseURL,
        fetch,
        defaultHeaders: headers,
        dangerouslyAllowBrowser,
        // Retries belong to `withRetry`, which knows whether an event was already yielded.
        maxRetries: 0,
      }),
  )
}
