import {
  createRegistry,
  type AdapterFactory,
  type Capabilities,
  type ProviderEntry,
  type Registry,
} from 'thinkwire'
// The providers' SDK-free entries: their models and capabilities, with no SDK loaded (each
// provider's own entry, with its SDK, is imported when it first streams, below). wrangler.toml's
// [alias] maps every public name to its source file, so the Worker runs without `npm run build`.
import { anthropicCapabilities, anthropicModels } from 'thinkwire/anthropic/models'
import {
  geminiCapabilities,
  geminiInteractionsCapabilities,
  geminiModels,
} from 'thinkwire/gemini/models'
import { createMock, mockModelIds } from 'thinkwire/mock'
import {
  compatibleCapabilities,
  presets,
  type CompatiblePreset,
} from 'thinkwire/openai-compatible/models'
import { openaiCapabilities, openaiModels } from 'thinkwire/openai/models'
import { lazyFactory } from './lazy-factory.ts'
import { count, list, setting } from './settings.ts'

/** What a provider's factory is built from: the key, and a base URL when one is set. */
type Settings = { apiKey: string; baseURL?: string | undefined }

/** A provider as the Worker knows it before its SDK is loaded (see {@link lazyFactory}). */
type Provider = {
  /** Its adapters' `provider`, when it is not the name the registry serves it under. */
  adapterProvider?: string | undefined
  models: readonly string[]
  capabilities(model: string): Capabilities
  /** The provider's entry, imported when it first streams: the SDK comes with it. */
  load(settings: Settings): Promise<AdapterFactory>
}

/**
 * Gemini as `GEMINI_API` says: on generateContent (`gemini()`, the default) or on the Interactions
 * API (`geminiInteractions()`), under the same `gemini/...` ids either way.
 *
 * generateContent stays the default although Google calls it legacy: each adapter replays only its
 * own turns' items, so moving a deployed relay's `gemini/*` to Interactions would turn every stored
 * conversation's Gemini turns (in durable conversations, and in sealed items clients hold) into
 * text and tool calls without their thought signatures, in the middle of tool loops too. A new
 * deployment, or one that accepts that once, sets `GEMINI_API=interactions`, and serves the models
 * Google publishes only there.
 */
function geminiOn(api: string | undefined): Provider {
  // One entry, one SDK, whichever API: imported once, at the first stream.
  const entry = () => import('thinkwire/gemini')
  if (api === undefined || api === '' || api === 'generate-content') {
    return {
      models: geminiModels,
      capabilities: geminiCapabilities,
      load: async (settings) => (await entry()).createGemini(settings),
    }
  }
  if (api !== 'interactions')
    throw new TypeError("GEMINI_API must be 'generate-content' or 'interactions'")
  return {
    adapterProvider: 'gemini-interactions',
    models: geminiModels,
    capabilities: geminiInteractionsCapabilities,
    load: async (settings) => (await entry()).createGeminiInteractions(settings),
  }
}

/**
 * The providers this Worker serves, each when its key is set: `<NAME>_API_KEY`, with the models of
 * `<NAME>_MODELS` (else the provider's current models are listed and any model id is served) and
 * the API at `<NAME>_BASE_URL` (a gateway or a proxy; else the provider's own); Gemini on the API
 * `GEMINI_API` names (see {@link geminiOn}). Each SDK is
 * imported when its provider first streams, so the Worker starts without evaluating any (see
 * docs/performance.md); the models and their capabilities come from the SDK-free tables. Adding a
 * provider is one entry here.
 */
const PROVIDERS: { readonly [name: string]: (env: object) => Provider } = {
  anthropic: () => ({
    models: anthropicModels,
    capabilities: anthropicCapabilities,
    load: async (settings) => (await import('thinkwire/anthropic')).createAnthropic(settings),
  }),
  openai: () => ({
    models: openaiModels,
    capabilities: openaiCapabilities,
    load: async (settings) => (await import('thinkwire/openai')).createOpenAI(settings),
  }),
  gemini: (env) => geminiOn(setting(env, 'GEMINI_API')),
}

/**
 * Builds the registry from the Worker's settings, once per isolate (so each provider's SDK client
 * is made once, not per request): each provider whose key is set, each OpenAI-compatible
 * endpoint, and the offline mock (`MOCK_MODELS`: `auto` serves it only when no provider is
 * configured, `on` always, `off` never).
 */
export function registryFromEnv(
  env: object,
  extra: { readonly [provider: string]: ProviderEntry } = {},
): Registry {
  const entries: Record<string, ProviderEntry> = {}
  for (const [name, providerOf] of Object.entries(PROVIDERS)) {
    const prefix = name.toUpperCase()
    // Read first: a setting that is wrong is reported whether the key is set or not.
    const provider = providerOf(env)
    const apiKey = setting(env, `${prefix}_API_KEY`)
    if (apiKey === undefined || apiKey === '') continue
    const settings = { apiKey, baseURL: urlSetting(env, `${prefix}_BASE_URL`) }
    const factory = lazyFactory({
      models: provider.models,
      capabilities: provider.capabilities,
      provider: provider.adapterProvider ?? name,
      load: () => provider.load(settings),
    })
    entries[name] = served(factory, setting(env, `${prefix}_MODELS`))
  }
  Object.assign(entries, compatibleEndpoints(env), extra)

  const mockSetting = setting(env, 'MOCK_MODELS') ?? 'auto'
  if (!['auto', 'on', 'off'].includes(mockSetting)) {
    throw new TypeError("MOCK_MODELS must be 'auto', 'on' or 'off'")
  }
  const configured = Object.keys(entries).length > 0
  if (mockSetting === 'on' || (mockSetting === 'auto' && !configured)) {
    // Only its own models: the offline mock answers any question, not any model id.
    entries['mock'] ??= {
      create: createMock({ delayMs: count(env, 'MOCK_DELAY_MS', 0) }),
      models: mockModelIds,
    }
  }
  return createRegistry(entries)
}

/**
 * `OPENAI_COMPATIBLE="groq deepseek ollama=http://10.0.0.5:11434/v1 mine=https://llm.example/v1"`:
 * a known server by name (its preset), or any server as `name=baseURL`. Each endpoint's key comes
 * from `<NAME>_API_KEY` and its served models from `<NAME>_MODELS`.
 */
function compatibleEndpoints(env: object): Record<string, ProviderEntry> {
  const entries: Record<string, ProviderEntry> = {}
  for (const entry of list(setting(env, 'OPENAI_COMPATIBLE'))) {
    const match = /^([a-z0-9][a-z0-9-]*)(?:=(https?:\/\/\S+))?$/.exec(entry)
    if (match === null) {
      throw new TypeError(
        'OPENAI_COMPATIBLE entries must be a known server name or name=http(s)://base-url',
      )
    }
    const name = match[1]!
    const preset: CompatiblePreset | undefined = Object.hasOwn(presets, name)
      ? (presets as Record<string, CompatiblePreset>)[name]
      : undefined
    const baseURL = match[2] ?? preset?.baseURL
    if (baseURL === undefined) {
      throw new TypeError(
        `OPENAI_COMPATIBLE entry '${name}' is not a known server: give it as ${name}=base-url`,
      )
    }
    const prefix = name.toUpperCase().replace(/-/g, '_')
    const apiKey = setting(env, `${prefix}_API_KEY`) || undefined
    const settings = { ...preset, provider: name, baseURL, apiKey }
    const factory = lazyFactory({
      provider: name,
      models: settings.modelIds ?? [],
      capabilities: (model) => compatibleCapabilities(model, settings),
      load: async () =>
        (await import('thinkwire/openai-compatible')).createOpenAICompatible(settings),
    })
    entries[name] = served(factory, setting(env, `${prefix}_MODELS`))
  }
  return entries
}

/** A factory as it is (its current models listed, any model served), or only the listed models. */
function served(factory: AdapterFactory, models: string | undefined): ProviderEntry {
  const ids = list(models)
  return ids.length === 0 ? factory : { create: factory, models: ids }
}

/** An http(s) URL setting, or undefined when it is empty. */
function urlSetting(env: object, name: string): string | undefined {
  const value = setting(env, name)
  if (value === undefined || value === '') return undefined
  if (!/^https?:\/\/\S+$/.test(value)) throw new TypeError(`${name} must be an http(s) URL`)
  return value
}
