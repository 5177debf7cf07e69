import OpenAI from 'openai'
import type { Adapter } from '../../core/adapter.ts'
import type { AdapterFactory } from '../../core/registry.ts'
import { defineAdapter } from '../../kit/define-adapter.ts'
import { buildClient } from '../../kit/sdk-error.ts'
import { mapOpenaiError } from './map-error.ts'
import { boundedModelSet } from './model-set.ts'
import { openaiCapabilities, openaiModel, openaiModels } from './models.ts'
import { streamResponse, type StreamSetup } from './stream-response.ts'

export { openaiCapabilities, openaiModels }

/** Settings of {@link createOpenAI}: everything of {@link OpenAIOptions} but the model. */
export type OpenAISettings = {
  /** OpenAI API key. */
  apiKey: string
  /** @defaultValue `https://api.openai.com/v1` */
  baseURL?: string | undefined
  /** The `fetch` the SDK uses (tests pass one that replays recorded streams). @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
  /** Sent as `OpenAI-Organization`. */
  organization?: string | undefined
  /** Sent as `OpenAI-Project`. */
  project?: string | undefined
  /** Allow use from a browser page, where the key is visible to the page's users. @defaultValue false */
  dangerouslyAllowBrowser?: boolean | undefined
  /**
   * The most characters one stream event may hold; a longer one fails the stream with a `server`
   * error instead of growing memory without end.
   * @defaultValue 33554432 (32 Mi characters: a generated image fits)
   */
  maxEventChars?: number | undefined
}

/** Options of {@link openai}. */
export type OpenAIOptions = OpenAISettings & {
  /** Model id, e.g. `'gpt-5.4'`. */
  model: string
}

const PROVIDER = 'openai'

/** How many models a factory remembers as refusing encrypted reasoning. */
const REMEMBERED_MODELS = 256

/**
 * An adapter for OpenAI's Responses API (`openai`, streamed `responses.create()`), stateless: `store: false`
 * with the whole conversation inline and encrypted reasoning included. Each turn's `output` items
 * come back as `items` and are replayed verbatim to the same model and thinking mode. SDK
 * retries are off: use `withRetry`. To serve several models, use {@link createOpenAI}, which
 * shares one SDK client between them. Calls of the API's client-run tools (computer use, shell,
 * apply_patch, enabled through `providerOptions`) are kept in `items` only: nothing answers them,
 * so later requests leave them out (with a warning) rather than be refused.
 *
 * @example
 * ```ts
 * const adapter = openai({ apiKey: env.OPENAI_API_KEY, model: 'gpt-5.4' })
 * for await (const event of adapter.stream(conversation, { thinking: 'medium' })) {
 *   if (event.type === 'thinking') showThinking(event.text)
 * }
 * ```
 */
export function openai(options: OpenAIOptions): Adapter {
  return createOpenAI(options)(options.model)
}

/**
 * A factory of {@link openai} adapters that builds the SDK client once and shares it with every
 * adapter it makes; its `models` are OpenAI's current models, which a registry advertises.
 *
 * @example
 * ```ts
 * const registry = createRegistry({ openai: createOpenAI({ apiKey: env.OPENAI_API_KEY }) })
 * const adapter = registry.resolve('openai/gpt-5.4')
 * ```
 */
export function createOpenAI(settings: OpenAISettings): AdapterFactory {
  const client = createClient(settings)
  const { maxEventChars } = settings
  // Learnt from the API's refusals, shared by the factory's adapters; ids may come from clients.
  const refusesEncryptedReasoning = boundedModelSet(REMEMBERED_MODELS)
  return defineAdapter({
    provider: PROVIDER,
    models: openaiModels,
    mapError: mapOpenaiError,
    model(model) {
      const row = openaiModel(model)
      const setup: StreamSetup = { client, row, maxEventChars, refusesEncryptedReasoning }
      return {
        capabilities: openaiCapabilities(model),
        stream: (conversation, options) => streamResponse(setup, conversation, options),
      }
    },
  })
}

function createClient(settings: OpenAISettings): OpenAI {
  return buildClient(
    PROVIDER,
    () =>
      new OpenAI({
        apiKey: settings.apiKey,
        baseURL: settings.baseURL,
        fetch: settings.fetch,
        // null keeps the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID behind the caller's back.
        organization: settings.organization ?? null,
        project: settings.project ?? null,
        dangerouslyAllowBrowser: settings.dangerouslyAllowBrowser,
        // Retries belong to `withRetry`, which knows whether an event was already yielded.
        maxRetries: 0,
      }),
  )
}
