import type { Adapter } from '../../core/adapter.ts'
import { openaiCompatible } from './adapter.ts'
import { presets, type CompatiblePreset } from './presets.ts'

/** Options of a known server's adapter: the preset fills in the rest. */
export type PresetAdapterOptions = {
  model: string
  apiKey?: string | undefined
  /** @defaultValue the preset's base URL */
  baseURL?: string | undefined
  fetch?: typeof globalThis.fetch | undefined
  headers?: Record<string, string> | undefined
}

function fromPreset(preset: CompatiblePreset): (options: PresetAdapterOptions) => Adapter {
  return (options) =>
    openaiCompatible({ ...preset, ...options, baseURL: options.baseURL ?? preset.baseURL })
}

/** Groq. @example `groq({ apiKey, model: 'qwen/qwen3-32b' })` */
export const groq = fromPreset(presets.groq)
/** OpenRouter. @example `openrouter({ apiKey, model: 'anthropic/claude-sonnet-4.5' })` */
export const openrouter = fromPreset(presets.openrouter)
/** DeepSeek. @example `deepseek({ apiKey, model: 'deepseek-reasoner' })` */
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
