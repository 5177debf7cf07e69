import type { CompatibleModel, CompatibleReasoning } from './reasoning.ts'

/** What thinkwire knows about an OpenAI-compatible server, as data. */
export type CompatiblePreset = {
  /** The adapter's `provider` name. */
  provider: string
  /** The server's OpenAI-compatible base URL. */
  baseURL: string
  /** How it streams reasoning, what it needs back, how it takes a thinking setting. */
  reasoning: CompatibleReasoning
  /** Models that differ from the server's defaults. */
  models?: readonly CompatibleModel[] | undefined
}

const levels = { low: 'low', medium: 'medium', high: 'high', max: 'high' }

/**
 * Known servers. Where a server's models disagree on a setting, the default is what none of them
 * rejects and the models that take more are listed.
 */
export const presets = {
  /** Groq: reasoning in `reasoning` (or inline tags with `reasoning_format: 'raw'`). */
  groq: {
    provider: 'groq',
    baseURL: 'https://api.groq.com/openai/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
    models: [
      {
        id: 'qwen/qwen3*',
        reasoning: {
          control: {
            type: 'reasoning-effort',
            levels: { low: 'default', medium: 'default', high: 'default', max: 'default' },
            off: { reasoning_effort: 'none' },
          },
        },
      },
      { id: 'openai/gpt-oss*', reasoning: { control: { type: 'reasoning-effort', levels } } },
    ],
  },
  /**
   * OpenRouter: reasoning in `reasoning` and structured `reasoning_details`, which must go back
   * unmodified (signed or encrypted reasoning of the model behind it).
   */
  openrouter: {
    provider: 'openrouter',
    baseURL: 'https://openrouter.ai/api/v1',
    reasoning: {
      thinkTags: 'off',
      sendBack: ['reasoning_details'],
      control: { type: 'openrouter-reasoning' },
    },
  },
  /**
   * DeepSeek: reasoning in `reasoning_content`, which must go back on every assistant turn with
   * tool calls (the server rejects such a turn without it).
   */
  deepseek: {
    provider: 'deepseek',
    baseURL: 'https://api.deepseek.com',
    reasoning: {
      thinkTags: 'off',
      sendBack: ['reasoning_content'],
      sendBackOn: 'tool-calls',
      required: true,
      control: {
        type: 'reasoning-effort',
        levels: { low: 'low', medium: 'high', high: 'high', max: 'max' },
        on: { thinking: { type: 'enabled' } },
        off: { thinking: { type: 'disabled' } },
      },
    },
  },
  /** Together AI: reasoning in `reasoning`, or inline tags (DeepSeek-R1). */
  together: {
    provider: 'together',
    baseURL: 'https://api.together.xyz/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
    models: [
      { id: 'openai/gpt-oss*', reasoning: { control: { type: 'reasoning-effort', levels } } },
    ],
  },
  /** Fireworks AI: reasoning in `reasoning_content`, or inline tags. */
  fireworks: {
    provider: 'fireworks',
    baseURL: 'https://api.fireworks.ai/inference/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
    models: [
      {
        id: 'accounts/fireworks/models/gpt-oss*',
        reasoning: { control: { type: 'reasoning-effort', levels } },
      },
    ],
  },
  /** Mistral: Magistral streams reasoning as `thinking` blocks inside `content`. */
  mistral: {
    provider: 'mistral',
    baseURL: 'https://api.mistral.ai/v1',
    reasoning: { thinkTags: 'off', control: { type: 'none' } },
  },
  /** xAI: reasoning in `reasoning_content`; only grok-3-mini takes `reasoning_effort`. */
  xai: {
    provider: 'xai',
    baseURL: 'https://api.x.ai/v1',
    reasoning: { thinkTags: 'off', control: { type: 'none' } },
    models: [
      {
        id: 'grok-3-mini*',
        reasoning: {
          control: {
            type: 'reasoning-effort',
            levels: { low: 'low', medium: 'high', high: 'high', max: 'high' },
          },
        },
      },
    ],
  },
  /** vLLM: `reasoning` (older: `reasoning_content`) with a reasoning parser, else inline tags. */
  vllm: {
    provider: 'vllm',
    baseURL: 'http://localhost:8000/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
  },
  /** Ollama: `reasoning` on thinking models, or inline tags. */
  ollama: {
    provider: 'ollama',
    baseURL: 'http://localhost:11434/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
  },
  /** LM Studio: `reasoning_content` when it separates reasoning, else inline tags. */
  lmstudio: {
    provider: 'lmstudio',
    baseURL: 'http://localhost:1234/v1',
    reasoning: { thinkTags: 'tags', control: { type: 'none' } },
  },
} as const satisfies Record<string, CompatiblePreset>

/** The name of a known server. */
export type PresetName = keyof typeof presets
