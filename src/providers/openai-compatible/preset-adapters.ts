import type { Adapter } from '../../core/adapter.ts'
import type { AdapterFactory } from '../../core/registry.ts'
import { createOpenAICompatible } from './adapter.ts'
import { presets, type CompatiblePreset } from './presets.ts'

/** Settings of a known server's factory: the preset fills in the rest. */
export type PresetSettings = {
  apiKey?: string | undefined
  /** @defaultValue the preset's base URL */
  baseURL?: string | undefined
  fetch?: typeof globalThis.fetch | undefined
  headers?: Record<string, string> | undefined
  /** The clock that prices off-peak turns (see `OpenAICompatibleSettings.now`). @defaultValue `Date.now` */
  now?: (() => number) | undefined
}

/** Options of a known server's adapter: its settings and the model. */
export type PresetAdapterOptions = PresetSettings & { model: string }

/**
 * A known server's adapter helper: call it for one model's adapter, or call its `create` for a
 * factory of all the server's models that share one SDK client (its `models` are the preset's).
 */
export type PresetHelper = ((options: PresetAdapterOptions) => Adapter) & {
  create(settings: PresetSettings): AdapterFactory
}

function fromPreset(preset: CompatiblePreset): PresetHelper {
  const create = (settings: PresetSettings) =>
    createOpenAICompatible({ ...preset, ...settings, baseURL: settings.baseURL ?? preset.baseURL })
  return Object.assign(({ model, ...settings }: PresetAdapterOptions) => create(settings)(model), {
    create,
  })
}

/**
 * OpenAI's Chat Completions API (provider `openai-chat`); `openai()` from `thinkwire/openai` speaks
 * its Responses API.
 * @example `openaiChat({ apiKey, model: 'gpt-4.1' })`
 */
export const openaiChat = fromPreset(presets['openai-chat'])
/**
 * Groq.
 * @example `groq({ apiKey, model: 'qwen/qwen3-32b' })`, or `groq.create({ apiKey })` for a registry
 */
export const groq = fromPreset(presets.groq)
/** OpenRouter. @example `openrouter({ apiKey, model: 'anthropic/claude-sonnet-4.5' })` */
export const openrouter = fromPreset(presets.openrouter)
/** DeepSeek. @example `deepseek({ apiKey, model: 'deepseek-v4-flash' })` */
export const deepseek = fromPreset(presets.deepseek)
/** Together AI. */
export const together = fromPreset(presets.together)
/** Fireworks AI. */
export const fireworks = fromPreset(presets.fireworks)
/** Mistral. */
export const mistral = fromPreset(presets.mistral)
/** xAI. */
export const xai = fromPreset(presets.xai)
/** vLLM (local by default: `http://localhost:8000/v1`). */
export const vllm = fromPreset(presets.vllm)
/** Ollama (local by default: `http://localhost:11434/v1`). */
export const ollama = fromPreset(presets.ollama)
/** LM Studio (local by default: `http://localhost:1234/v1`). */
export const lmstudio = fromPreset(presets.lmstudio)
