import OpenAI from 'openai'
import type { Adapter } from '../../core/adapter.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { AdapterFactory } from '../../core/registry.ts'
import { defineAdapter } from '../../kit/define-adapter.ts'
import { buildClient } from '../../kit/sdk-error.ts'
import { mapCompatibleError } from './map-error.ts'
import { capabilitiesOf, compatibleModel, type CompatibleModels } from './models.ts'
import type { CompatibleReasoning } from './reasoning.ts'
import { streamCompletion } from './stream-completion.ts'

/**
 * Settings of {@link createOpenAICompatible}: one server, one SDK client for all its models.
 * Spread a preset in for a known server: it fills in the first five, what the server is and does.
 */
export type OpenAICompatibleSettings = {
  /** The adapter's `provider` name, e.g. `'groq'`; also the key of its `providerOptions`. */
  provider: string
  /** The server's OpenAI-compatible base URL, e.g. `https://api.groq.com/openai/v1`. */
  baseURL: string
  /** How the server streams reasoning and takes a thinking setting. @defaultValue inline tags only */
  reasoning?: CompatibleReasoning | undefined
  /** Models that differ from the server's defaults, by id or `'prefix*'` family. */
  models?: CompatibleModels | undefined
  /** The models the factory lists (for `/v1/models`); any other id works too. @defaultValue none */
  modelIds?: readonly string[] | undefined
  /** Sent as a bearer token. Local servers need none. */
  apiKey?: string | undefined
  /** A `fetch` to send requests with (tests pass one that replays recorded streams). */
  fetch?: typeof globalThis.fetch | undefined
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined
  /**
   * The most characters one SSE event may hold; a longer one fails the stream.
   * @defaultValue 33554432 (32 Mi characters)
   */
  maxEventChars?: number | undefined
  /**
   * The clock, in epoch milliseconds, that says when a request was sent: a model billed less
   * off-peak (`offPeak`, DeepSeek's) is priced at that hour. Tests pin it.
   * @defaultValue `Date.now`
   */
  now?: (() => number) | undefined
}

/** Options of {@link openaiCompatible}: the settings and the model. */
export type OpenAICompatibleOptions = OpenAICompatibleSettings & { model: string }

/**
 * An adapter for any server that speaks OpenAI Chat Completions (`chat.completions.create` with
 * `stream: true`), on the `openai` SDK with retries off. Reasoning streams as `thinking` from
 * whichever field the server uses or from inline `<think>` tags; the turn's items are the
 * assistant message with the reasoning fields the server needs back.
 *
 * @example
 * ```ts
 * const adapter = openaiCompatible({ ...presets.deepseek, model: 'deepseek-v4-flash', apiKey })
 * ```
 */
export function openaiCompatible(options: OpenAICompatibleOptions): Adapter {
  return createOpenAICompatible(options)(options.model)
}

/**
 * A factory of adapters for the models of one OpenAI-compatible server, sharing one SDK client
 * built here once. Its `models` are the settings' `modelIds` (a preset's current models).
 *
 * @example
 * ```ts
 * const registry = createRegistry({
 *   deepseek: createOpenAICompatible({ ...presets.deepseek, apiKey: env.DEEPSEEK_API_KEY }),
 * })
 * ```
 */
export function createOpenAICompatible(settings: OpenAICompatibleSettings): AdapterFactory {
  const { provider } = settings
  checkSettings(settings)
  const client = createClient(settings)
  return defineAdapter({
    provider,
    models: settings.modelIds ?? [],
    mapError: (error) => mapCompatibleError(error, provider),
    model(model) {
      const info = compatibleModel(model, settings.reasoning, settings.models)
      const { maxEventChars, now } = settings
      const setup = { client, provider, info, maxEventChars, now }
      return {
        capabilities: capabilitiesOf(info),
        stream: (conversation, options) => streamCompletion(setup, conversation, options),
      }
    },
  })
}

/** Refuses settings that would make every request fail, naming the field at fault. */
function checkSettings(settings: OpenAICompatibleSettings): void {
  const fault = (field: string, got: unknown) => {
    const what = got === '' ? 'an empty string' : typeof got
    const message = `openaiCompatible: settings.${field} must be a non-empty string, got ${what}`
    return new ThinkwireError({ kind: 'invalid-request', message })
  }
  const { provider, baseURL, now } = settings as {
    provider: unknown
    baseURL: unknown
    now: unknown
  }
  if (typeof provider !== 'string' || provider === '') throw fault('provider', provider)
  if (typeof baseURL !== 'string' || baseURL === '') throw fault('baseURL', baseURL)
  if (now !== undefined && typeof now !== 'function') {
    const message = `openaiCompatible: settings.now must be a function that returns epoch milliseconds, got ${typeof now}`
    throw new ThinkwireError({ kind: 'invalid-request', message })
  }
}

function createClient(settings: OpenAICompatibleSettings): OpenAI {
  return buildClient(
    settings.provider,
    () =>
      new OpenAI({
        // The SDK insists on a key; without one, its header is removed below.
        apiKey: settings.apiKey ?? 'none',
        baseURL: settings.baseURL,
        // Never pick up OPENAI_* settings from the environment for another server.
        organization: null,
        project: null,
        adminAPIKey: null,
        webhookSecret: null,
        // Retries belong to `withRetry`, which knows whether an event was already yielded.
        maxRetries: 0,
        dangerouslyAllowBrowser: true,
        defaultHeaders: {
          ...settings.headers,
          ...(settings.apiKey === undefined ? { authorization: null } : {}),
        },
        ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
      }),
  )
}
