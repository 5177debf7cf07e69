import { GoogleGenAI } from '@google/genai'
import type { Adapter } from '../../core/adapter.ts'
import type { AdapterFactory } from '../../core/registry.ts'
import { defineAdapter } from '../../kit/define-adapter.ts'
import { buildClient } from '../../kit/sdk-error.ts'
import { mapGeminiError } from './map-error.ts'
import { geminiCapabilities, geminiModel, geminiModels } from './models.ts'
import type { GeminiSettings } from './settings.ts'
import { streamTurn, type TurnSetup } from './stream-turn.ts'

export { geminiCapabilities, geminiModels }
export type { GeminiModel } from './models.ts'
export type { GeminiSettings } from './settings.ts'
export {
  createGeminiInteractions,
  geminiInteractions,
  type GeminiInteractionsOptions,
  type GeminiInteractionsSettings,
} from './interactions/adapter.ts'
export { geminiInteractionsCapabilities } from './interactions/models.ts'

/** Options of {@link gemini}. */
export type GeminiOptions = GeminiSettings & {
  /** Model id, e.g. `'gemini-3-flash-preview'`. Its row in the model table sets thinking. */
  model: string
}

const PROVIDER = 'gemini'

/**
 * A factory of Gemini adapters that share one SDK client: `createGemini(settings)(model)`. Its
 * `models` are Gemini's current models (what a registry advertises); any other model id works
 * too, with the conservative row of a model the table does not know.
 *
 * @example
 * ```ts
 * const registry = createRegistry({ gemini: createGemini({ apiKey: env.GEMINI_API_KEY }) })
 * const adapter = registry.resolve('gemini/gemini-3-flash-preview')
 * ```
 */
export function createGemini(settings: GeminiSettings): AdapterFactory {
  const client = buildClient(
    PROVIDER,
    () =>
      new GoogleGenAI({
        apiKey: settings.apiKey,
        httpOptions: {
          ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
          ...(settings.baseURL === undefined ? {} : { baseUrl: settings.baseURL }),
          ...(settings.headers === undefined ? {} : { headers: settings.headers }),
        },
      }),
  )
  return defineAdapter({
    provider: PROVIDER,
    models: geminiModels,
    mapError: (error) => mapGeminiError(error, PROVIDER),
    model(model) {
      const setup: TurnSetup = {
        provider: PROVIDER,
        client,
        model,
        row: geminiModel(model),
        fetch: settings.fetch,
      }
      return {
        capabilities: geminiCapabilities(model),
        stream: (conversation, options) => (context) =>
          streamTurn(setup, conversation, options, context),
      }
    },
  })
}

/**
 * An adapter for Google's Gemini API on `@google/genai` (`models.generateContentStream`). Thoughts
 * (`thought: true` parts) stream as `thinking`; the turn's items are the candidate's parts with
 * their `thoughtSignature`s, replayed verbatim to the same model and thinking mode. Grounding and
 * citations become the turn's `sources`; a safety stop or a blocked prompt is a `refusal` turn
 * (the reason in `stopDetails`); a function call Gemini could not make fails with
 * `invalid-output`. The SDK does not retry: wrap the adapter in `withRetry` for that. To serve
 * several models from one SDK client, use {@link createGemini}.
 *
 * In Node, the built-in fetch gives up on a response after 300 s without its headers, or between
 * two parts of its body, which a long think can reach (Workers and browsers have no such limit).
 * The adapter reaches into no runtime internals to lift it: pass a `fetch` that waits longer,
 * such as one with a dispatcher of the `undici` package (second example), or set that dispatcher
 * for the whole process with undici's `setGlobalDispatcher`.
 *
 * @example
 * ```ts
 * const adapter = gemini({ apiKey, model: 'gemini-3-flash-preview' })
 * for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] })) {
 *   if (event.type === 'text') console.log(event.text)
 * }
 * ```
 *
 * @example
 * ```ts
 * import { Agent } from 'undici'
 * const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 })
 * const adapter = gemini({
 *   apiKey,
 *   model: 'gemini-3.1-pro-preview',
 *   fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit),
 * })
 * ```
 */
export function gemini(options: GeminiOptions): Adapter {
  return createGemini(options)(options.model)
}
