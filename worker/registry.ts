import type { Adapter } from '../src/core/adapter.ts'
import { createRegistry, type ProviderEntry, type Registry } from '../src/core/registry.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { gemini } from '../src/providers/gemini/index.ts'
import { mock, mockModelIds } from '../src/providers/mock/index.ts'
import { openai } from '../src/providers/openai/index.ts'
import {
  openaiCompatible,
  presets,
  type CompatiblePreset,
} from '../src/providers/openai-compatible/index.ts'
import { count, list, setting } from './settings.ts'

/** A provider served when its key is set. */
type KeyedProvider = {
  name: string
  /** The secret holding its API key. */
  key: keyof Env
  /** The setting listing its served models. */
  models: keyof Env
  /** The setting that moves its API elsewhere (a gateway or proxy); the SDK's default when unset. */
  baseURL: string
  create(apiKey: string, model: string, baseURL: string | undefined): Adapter
}

/**
 * The providers this Worker can serve. Adding a provider is one entry here; it is then served
 * whenever its key is set.
 */
const PROVIDERS: readonly KeyedProvider[] = [
  {
    name: 'anthropic',
    key: 'ANTHROPIC_API_KEY',
    models: 'ANTHROPIC_MODELS',
    baseURL: 'ANTHROPIC_BASE_URL',
    create: (apiKey, model, baseURL) => anthropic({ apiKey, model, baseURL }),
  },
  {
    name: 'openai',
    key: 'OPENAI_API_KEY',
    models: 'OPENAI_MODELS',
    baseURL: 'OPENAI_BASE_URL',
    create: (apiKey, model, baseURL) => openai({ apiKey, model, baseURL }),
  },
  {
    name: 'gemini',
    key: 'GEMINI_API_KEY',
    models: 'GEMINI_MODELS',
    baseURL: 'GEMINI_BASE_URL',
    create: (apiKey, model, baseURL) => gemini({ apiKey, model, baseURL }),
  },
]

/**
 * Builds the registry from the Worker's settings: each provider whose key is set, each
 * OpenAI-compatible endpoint, and the offline mock (`MOCK_MODELS`: `auto` serves it only when no
 * provider is configured, `on` always, `off` never).
 */
export function registryFromEnv(
  env: Env,
  extra: { readonly [provider: string]: ProviderEntry } = {},
): Registry {
  const entries: Record<string, ProviderEntry> = {}
  for (const provider of PROVIDERS) {
    const apiKey = setting(env, provider.key)
    if (apiKey === undefined || apiKey === '') continue
    const baseURL = setting(env, provider.baseURL) || undefined
    if (baseURL !== undefined && !/^https?:\/\/\S+$/.test(baseURL)) {
      throw new TypeError(`${provider.baseURL} must be an http(s) URL`)
    }
    entries[provider.name] = served(
      (model) => provider.create(apiKey, model, baseURL),
      setting(env, provider.models),
    )
  }
  Object.assign(entries, compatibleEndpoints(env), extra)

  const mockSetting = setting(env, 'MOCK_MODELS') ?? 'auto'
  if (!['auto', 'on', 'off'].includes(mockSetting)) {
    throw new TypeError("MOCK_MODELS must be 'auto', 'on' or 'off'")
  }
  const configured = Object.keys(entries).length > 0
  if (mockSetting === 'on' || (mockSetting === 'auto' && !configured)) {
    const delayMs = count(env, 'MOCK_DELAY_MS', 0)
    entries['mock'] ??= { create: (model) => mock({ model, delayMs }), models: mockModelIds }
  }
  return createRegistry(entries)
}

/**
 * `OPENAI_COMPATIBLE="groq deepseek ollama=http://10.0.0.5:11434/v1 mine=https://llm.example/v1"`:
 * a known server by name (its preset), or any server as `name=baseURL`. Each endpoint's key comes
 * from `<NAME>_API_KEY` and its served models from `<NAME>_MODELS`.
 */
function compatibleEndpoints(env: Env): Record<string, ProviderEntry> {
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
    entries[name] = served(
      (model) => openaiCompatible({ ...preset, provider: name, baseURL, model, apiKey }),
      setting(env, `${prefix}_MODELS`),
    )
  }
  return entries
}

function served(create: (model: string) => Adapter, models: string | undefined): ProviderEntry {
  const ids = list(models)
  return ids.length === 0 ? create : { create, models: ids }
}
