import type { Pricing } from '../../core/pricing.ts'
import type { CompatibleModelRow, CompatibleModels, OffPeak } from './models.ts'
import type { CompatibleReasoning, ThinkingControl } from './reasoning.ts'

/** What thinkwire knows about an OpenAI-compatible server, as data. */
export type CompatiblePreset = {
  /** The adapter's `provider` name. */
  provider: string
  /** The server's OpenAI-compatible base URL. */
  baseURL: string
  /** How it streams reasoning, what it needs back, how it takes a thinking setting. */
  reasoning: CompatibleReasoning
  /**
   * Models that differ from the server's defaults, by id or `'prefix*'` family; `'*'` says what
   * every model of the server shares.
   */
  models?: CompatibleModels | undefined
  /**
   * The server's current models, which `/v1/models` lists when only a key is set (any other id
   * still works). A local server lists none: it serves whatever was loaded into it.
   */
  modelIds?: readonly string[] | undefined
}

/** `reasoning_effort` with our levels as they are (`max` becomes `high`). */
const effort: ThinkingControl = {
  type: 'reasoning-effort',
  levels: { low: 'low', medium: 'medium', high: 'high', max: 'high' },
}

/** Takes no thinking setting; may stream reasoning inline, in `<think>` tags, as well as in a field. */
const inlineTags = { thinkTags: 'tags', control: { type: 'none' } } as const

/** Takes no thinking setting, and writes no `<think>` tags inline to look for. */
const noInlineTags = { thinkTags: 'off', control: { type: 'none' } } as const

/** OpenAI's open-weight gpt-oss models, which several servers host: effort levels. */
const gptOss = { reasoning: { control: effort } } as const

// DeepSeek's prices in US dollars per million tokens (cache-hit input, cache-miss input, output;
// reasoning is output), from https://api-docs.deepseek.com/quick_start/pricing (model versions
// DeepSeek-V4.1-Flash-1017 and DeepSeek-V4-Pro-0813), read 2026-12-06. These are the peak rates;
// off-peak is half, and peak is 01:00-04:00 and 06:00-10:00 UTC, Monday to Friday. The Chinese
// page also makes China's public holidays off-peak, which is not modelled: on those days a turn
// is priced at the peak rate, an over-estimate, never an under-estimate. `deepseek-v4-flash` is
// now served by V4.1 Flash and billed as `deepseek-flash`.
const DEEPSEEK_FLASH: Pricing = { input: 0.3, cachedInput: 0.006, output: 1.2 }
const DEEPSEEK_PRO: Pricing = { input: 1.32, cachedInput: 0.044, output: 3.96 }
const DEEPSEEK_OFF_PEAK: OffPeak = {
  factor: 0.5,
  peakHoursUtc: [
    [1, 4],
    [6, 10],
  ],
}

/** A DeepSeek V4 model's row: a 1M-token context, and its prices by time of day. */
function deepseekV4(pricing: Pricing): CompatibleModelRow {
  return { contextTokens: 1_000_000, pricing, offPeak: DEEPSEEK_OFF_PEAK }
}

/** An OpenAI reasoning model on Chat Completions: effort levels, no `stop`, no `temperature`. */
const openaiReasoning = {
  reasoning: { control: effort },
  stopSequences: 0,
  temperature: false,
} as const

/**
 * Known servers. Where a server's models disagree on a setting, the default is what none of them
 * rejects and the models that take more are listed.
 */
export const presets = {
  /**
   * OpenAI's own Chat Completions (the `openai()` adapter speaks its Responses API): a cache key
   * as `prompt_cache_key`, the cap as `max_completion_tokens`, and effort levels on its reasoning
   * models, which take no `stop` or `temperature`. Its name is `openai-chat`, not `openai`, so its
   * turns are never replayed to the Responses adapter as that adapter's own.
   */
  'openai-chat': {
    provider: 'openai-chat',
    baseURL: 'https://api.openai.com/v1',
    reasoning: noInlineTags,
    models: {
      '*': { cacheKey: true, maxTokensField: 'max_completion_tokens' },
      'gpt-5*': openaiReasoning,
      'o1*': openaiReasoning,
      'o3*': openaiReasoning,
      'o4*': openaiReasoning,
    },
    modelIds: ['gpt-5.4', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4o-mini'],
  },
  /** Groq: reasoning in `reasoning` (or inline tags with `reasoning_format: 'raw'`). */
  groq: {
    provider: 'groq',
    baseURL: 'https://api.groq.com/openai/v1',
    reasoning: inlineTags,
    models: {
      // Qwen3 thinks or not: any level turns it on.
      'qwen/qwen3*': {
        reasoning: {
          control: {
            type: 'reasoning-effort',
            levels: { low: 'default', medium: 'default', high: 'default', max: 'default' },
            off: { reasoning_effort: 'none' },
          },
        },
      },
      'openai/gpt-oss*': gptOss,
    },
    modelIds: [
      'openai/gpt-oss-120b',
      'openai/gpt-oss-20b',
      'qwen/qwen3-32b',
      'moonshotai/kimi-k2-instruct-0905',
      'llama-3.3-70b-versatile',
      'llama-3.1-8b-instant',
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
    modelIds: [
      'anthropic/claude-sonnet-4.5',
      'openai/gpt-5',
      'google/gemini-2.5-pro',
      'google/gemini-2.5-flash',
      'deepseek/deepseek-chat-v3.1',
      'x-ai/grok-4',
    ],
  },
  /**
   * DeepSeek: reasoning in `reasoning_content`, which a turn with tool calls made in thinking mode
   * needs back on every later request (one without it is refused: "Missing `reasoning_content`
   * field"); turns from elsewhere get it empty. `deepseek-chat` and `deepseek-reasoner` stopped
   * being model names on 2026-07-24; they are the aliases they were, of `deepseek-v4-flash`
   * without thinking and with it (V4's default). JSON output is `json_object` only; up to 16 stop
   * sequences. Half price off-peak.
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
    models: {
      '*': { json: false, contextTokens: 128_000, stopSequences: 16 },
      'deepseek-v4*': deepseekV4(DEEPSEEK_FLASH),
      'deepseek-v4-pro': deepseekV4(DEEPSEEK_PRO),
      'deepseek-flash': deepseekV4(DEEPSEEK_FLASH),
      'deepseek-chat': { aliasOf: { model: 'deepseek-v4-flash', thinking: 'off' } },
      'deepseek-reasoner': { aliasOf: { model: 'deepseek-v4-flash' } },
    },
    modelIds: [
      'deepseek-v4-flash',
      'deepseek-v4-pro',
      'deepseek-flash',
      'deepseek-chat',
      'deepseek-reasoner',
    ],
  },
  /** Together AI: reasoning in `reasoning`, or inline tags (DeepSeek-R1). */
  together: {
    provider: 'together',
    baseURL: 'https://api.together.xyz/v1',
    reasoning: inlineTags,
    models: { 'openai/gpt-oss*': gptOss },
    modelIds: [
      'openai/gpt-oss-120b',
      'openai/gpt-oss-20b',
      'deepseek-ai/DeepSeek-R1',
      'deepseek-ai/DeepSeek-V3',
      'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    ],
  },
  /** Fireworks AI: reasoning in `reasoning_content`, or inline tags. */
  fireworks: {
    provider: 'fireworks',
    baseURL: 'https://api.fireworks.ai/inference/v1',
    reasoning: inlineTags,
    models: { 'accounts/fireworks/models/gpt-oss*': gptOss },
    modelIds: [
      'accounts/fireworks/models/gpt-oss-120b',
      'accounts/fireworks/models/gpt-oss-20b',
      'accounts/fireworks/models/deepseek-v3p1',
      'accounts/fireworks/models/llama-v3p3-70b-instruct',
    ],
  },
  /** Mistral: Magistral streams reasoning as `thinking` blocks inside `content`. */
  mistral: {
    provider: 'mistral',
    baseURL: 'https://api.mistral.ai/v1',
    reasoning: noInlineTags,
    modelIds: [
      'mistral-large-latest',
      'mistral-medium-latest',
      'mistral-small-latest',
      'magistral-medium-latest',
      'magistral-small-latest',
      'codestral-latest',
    ],
  },
  /**
   * xAI: reasoning in `reasoning_content`; only grok-3-mini takes `reasoning_effort`. Its
   * reasoning models refuse `stop`.
   */
  xai: {
    provider: 'xai',
    baseURL: 'https://api.x.ai/v1',
    reasoning: noInlineTags,
    models: {
      'grok-3-mini*': {
        stopSequences: 0,
        reasoning: {
          control: {
            type: 'reasoning-effort',
            levels: { low: 'low', medium: 'high', high: 'high', max: 'high' },
          },
        },
      },
      'grok-4*': { stopSequences: 0 },
      'grok-code*': { stopSequences: 0 },
      'grok-4-fast-non-reasoning': { stopSequences: 4 },
    },
    modelIds: [
      'grok-4',
      'grok-4-fast-reasoning',
      'grok-4-fast-non-reasoning',
      'grok-code-fast-1',
      'grok-3-mini',
    ],
  },
  /** vLLM: `reasoning` (older: `reasoning_content`) with a reasoning parser, else inline tags. */
  vllm: {
    provider: 'vllm',
    baseURL: 'http://localhost:8000/v1',
    reasoning: inlineTags,
  },
  /** Ollama: `reasoning` on thinking models, or inline tags. */
  ollama: {
    provider: 'ollama',
    baseURL: 'http://localhost:11434/v1',
    reasoning: inlineTags,
  },
  /** LM Studio: `reasoning_content` when it separates reasoning, else inline tags. */
  lmstudio: {
    provider: 'lmstudio',
    baseURL: 'http://localhost:1234/v1',
    reasoning: inlineTags,
  },
} as const satisfies Record<string, CompatiblePreset>

/** The name of a known server. */
export type PresetName = keyof typeof presets
