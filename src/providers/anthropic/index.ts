import Anthropic from '@anthropic-ai/sdk'
import type { Adapter } from '../../core/adapter.ts'
import { ThinkwireError } from '../../core/errors.ts'
import { guardStream } from '../../core/guard-stream.ts'
import { anthropicModelInfo, isKnownAnthropicModel } from './capabilities.ts'
import { anthropicEvents } from './event-source.ts'
import { mapAnthropicError } from './map-error.ts'

/** Options of {@link anthropic}. */
export type AnthropicOptions = {
  /** Anthropic API key. */
  apiKey: string
  /** Model id, e.g. `'claude-sonnet-5'`. */
  model: string
  /** @defaultValue `https://api.anthropic.com` */
  baseURL?: string | undefined
  /** The `fetch` the SDK uses (tests pass one that replays recorded streams). @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
  /** Headers added to every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string> | undefined
  /** Allow use from a browser page, where the key is visible to the page's users. @defaultValue false */
  dangerouslyAllowBrowser?: boolean | undefined
}

const PROVIDER = 'anthropic'

/**
 * An adapter for Anthropic's Messages API (`@anthropic-ai/sdk`, `messages.stream()`). Thinking is
 * set per model from `src/models.ts`; each turn's final content blocks come back as `items` and
 * are replayed verbatim to the same model and thinking mode. SDK retries are off: use
 * `withRetry`.
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
  const client = createClient(options)
  const model = options.model
  const info = anthropicModelInfo(model)
  const known = isKnownAnthropicModel(model)
  return {
    provider: PROVIDER,
    model,
    stream(conversation, callOptions = {}) {
      return guardStream(
        { provider: PROVIDER, options: callOptions, mapError: mapAnthropicError },
        (context) => anthropicEvents(client, info, known, conversation, callOptions, context),
      )
    },
  }
}

function createClient(options: AnthropicOptions): Anthropic {
  try {
    return new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      fetch: options.fetch,
      defaultHeaders: options.headers,
      dangerouslyAllowBrowser: options.dangerouslyAllowBrowser,
      // Retries belong to `withRetry`, which knows whether an event was already yielded.
      maxRetries: 0,
    })
  } catch (error) {
    throw new ThinkwireError({
      kind: 'invalid-request',
      message: `anthropic: ${error instanceof Error ? error.message : String(error)}`,
      provider: PROVIDER,
      cause: error,
    })
  }
}
