import type { Adapter } from '../../../core/adapter.ts'
import type { AdapterFactory } from '../../../core/registry.ts'
import { defineAdapter } from '../../../kit/define-adapter.ts'
import { geminiModels } from '../models.ts'
import type { GeminiSettings } from '../settings.ts'
import { mapInteractionsError } from './map-error.ts'
import { geminiInteractionsCapabilities } from './models.ts'
import { streamInteraction, type InteractionSetup } from './stream-interaction.ts'

/** How to reach the Interactions API: the same settings as `gemini()`'s ({@link GeminiSettings}). */
export type GeminiInteractionsSettings = GeminiSettings

/** Options of {@link geminiInteractions}. */
export type GeminiInteractionsOptions = GeminiInteractionsSettings & {
  /** Model id, e.g. `'gemini-3-flash-preview'`. Its row in Gemini's model table sets thinking. */
  model: string
}

/**
 * The adapters' `provider`, which tags their turns' items: apart from `gemini()`'s, since the two
 * APIs' records differ (steps here, generateContent's parts there) and neither can replay the
 * other's. It also keys their `providerOptions`.
 */
const PROVIDER = 'gemini-interactions'

/**
 * A factory of adapters on Gemini's Interactions API: `createGeminiInteractions(settings)(model)`.
 * Its `models` are Gemini's current models (the same list as `createGemini`'s); any other model id
 * works too, with the conservative row of a model the table does not know.
 *
 * @example
 * ```ts
 * const registry = createRegistry({
 *   gemini: createGeminiInteractions({ apiKey: env.GEMINI_API_KEY }),
 * })
 * const adapter = registry.resolve('gemini/gemini-3-flash-preview')
 * ```
 */
export function createGeminiInteractions(settings: GeminiInteractionsSettings): AdapterFactory {
  const transport: GeminiSettings = {
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    headers: settings.headers,
    fetch: settings.fetch,
  }
  return defineAdapter({
    provider: PROVIDER,
    models: geminiModels,
    mapError: (error) => mapInteractionsError(error, PROVIDER),
    model(model) {
      const capabilities = geminiInteractionsCapabilities(model)
      const setup: InteractionSetup = { provider: PROVIDER, model, capabilities, transport }
      return {
        capabilities,
        stream: (conversation, options) => (context) =>
          streamInteraction(setup, conversation, options, context),
      }
    },
  })
}

/**
 * An adapter for Gemini's Interactions API (`POST /v1beta/interactions`, through
 * `@google/genai`'s `interactions.create({ stream: true })`), the API Google puts new models, tools
 * and agent features on. Stateless: every request sends the whole conversation with
 * `store: false`, so nothing is kept on Google's side.
 *
 * Thought summaries stream as `thinking`, the answer as `text`, and function calls as complete
 * `tool-call`s with the id the API gave them. The turn's items are its steps as they came (each
 * thought step with its signature, model output, function calls), replayed verbatim to the same
 * model and thinking mode, so every signature goes back on the step it came with; a turn of any
 * other adapter, `gemini()` included, is re-encoded from its text and tool calls. `thinking` sets
 * `generation_config.thinking_level` (a level on every model, Gemini 2.5 too). Text annotations
 * (Google Search, URL context, Maps, file search) become the turn's `sources`; usage counts
 * thoughts as output, as `reasoningTokens`. The status sets the stop reason: `incomplete` and
 * `requires_continuation` are `length` (the latter's `continuation_token` is kept in the items and
 * resumes the answer through `providerOptions['gemini-interactions']`), a `failed` interaction and
 * an `error` event fail with a `ThinkwireError` (a 429's retry delay as `retryAfterMs`). The SDK
 * does not retry: wrap the adapter in `withRetry` for that.
 *
 * Server-side state is there for a caller who wants it: `providerOptions: { 'gemini-interactions':
 * { store: true, previous_interaction_id } }` is sent as given (with the conversation it is given,
 * so pass only the turns after that interaction); a stored interaction's id is kept in the turn's
 * items as `{ interaction_id }`.
 *
 * @example
 * ```ts
 * const adapter = geminiInteractions({ apiKey, model: 'gemini-3-flash-preview' })
 * for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] })) {
 *   if (event.type === 'text') console.log(event.text)
 * }
 * ```
 */
export function geminiInteractions(options: GeminiInteractionsOptions): Adapter {
  return createGeminiInteractions(options)(options.model)
}
