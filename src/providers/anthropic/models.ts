import type { Capabilities, ThinkingSupport } from '../../core/capabilities.ts'
import { withPricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'
import { anthropicPricing } from './prices.ts'

/** What thinkwire knows about one Anthropic model. */
export type AnthropicModel = Capabilities & {
  contextTokens: number
  maxOutputTokens: number
  /**
   * Request options the model refuses, dropped with a warning: sampling parameters (API version
   * 2026-10-21 removed them), and `forced-tool-choice` (`tool_choice` `any`/`tool`).
   */
  rejects: readonly string[]
}

const LEVELS = ['low', 'medium', 'high', 'xhigh', 'max']
const SAMPLING = ['temperature', 'top_p', 'top_k']

/** `enabled` + `budget_tokens` (the 4.5 models). */
const BUDGET: ThinkingSupport = { mode: 'budget', min: 1024, max: 63_999, canDisable: true }
/** Adaptive with an effort, before `xhigh` existed (the 4.6 models). */
const EFFORT_4_6: ThinkingSupport = {
  mode: 'effort',
  levels: ['low', 'medium', 'high', 'max'],
  canDisable: true,
}
/** Off unless asked for, and shown only when asked to (Opus 4.7, 4.8). */
const OFF_BY_DEFAULT: ThinkingSupport = {
  mode: 'effort',
  levels: LEVELS,
  canDisable: true,
  hiddenByDefault: true,
}
/** Thinks unless told not to, shown only when asked to (Sonnet 5, Opus 5, Haiku 5.5). */
const ON_BY_DEFAULT: ThinkingSupport = { ...OFF_BY_DEFAULT, defaultOn: true }
/** Always thinks: `disabled` is refused (Fable, Mythos, Opus 5.5, Sonnet 5.5). */
const ALWAYS_ON: ThinkingSupport = { ...ON_BY_DEFAULT, canDisable: false }

/**
 * Anthropic models by family: what most current models share, then one line per family with only
 * what differs. Budget families take `enabled` + `budget_tokens`; effort families take `adaptive`
 * plus `output_config.effort` (levels lowest first). `hiddenByDefault`: the model omits its
 * thinking text unless asked for `display: 'summarized'`.
 */
const table = modelTable<AnthropicModel>(
  {
    thinking: ALWAYS_ON,
    tools: true,
    json: true,
    contextTokens: 200_000,
    maxOutputTokens: 128_000,
    rejects: SAMPLING,
  },
  {
    'claude-haiku-4-5*': { thinking: BUDGET, maxOutputTokens: 64_000 },
    'claude-sonnet-4-5*': { thinking: BUDGET, maxOutputTokens: 64_000 },
    'claude-opus-4-5*': { thinking: BUDGET, maxOutputTokens: 64_000 },
    'claude-opus-4-6*': { thinking: EFFORT_4_6 },
    'claude-sonnet-4-6*': { thinking: EFFORT_4_6, maxOutputTokens: 64_000 },
    'claude-opus-4-7*': { thinking: OFF_BY_DEFAULT },
    'claude-opus-4-8*': { thinking: OFF_BY_DEFAULT },
    'claude-mythos-preview*': {},
    'claude-sonnet-5*': { thinking: ON_BY_DEFAULT },
    'claude-opus-5*': { thinking: ON_BY_DEFAULT },
    'claude-fable-5*': {},
    'claude-mythos-5*': {},
    'claude-fable-5-1*': { rejects: [...SAMPLING, 'forced-tool-choice'] },
    'claude-mythos-5-1*': { rejects: [...SAMPLING, 'forced-tool-choice'] },
    'claude-opus-5-5*': { rejects: [...SAMPLING, 'forced-tool-choice'] },
    'claude-sonnet-5-5*': { rejects: [...SAMPLING, 'forced-tool-choice'] },
    'claude-haiku-5-5*': { thinking: ON_BY_DEFAULT, maxOutputTokens: 64_000 },
    'claude-fable-5-2*': {},
    'claude-mythos-5-2*': {},
  },
)

/**
 * Anthropic's current, generally available models: what `/v1/models` lists when only a key is
 * set. Deprecated models and the gated Mythos line are left out; any other id still resolves.
 */
export const anthropicModels: readonly string[] = [
  'claude-fable-5-2',
  'claude-sonnet-5-5',
  'claude-opus-5-5',
  'claude-haiku-5-5',
  'claude-fable-5-1',
  'claude-fable-5',
  'claude-sonnet-5',
  'claude-opus-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
]

/**
 * What an unlisted model gets: the modern request shape (adaptive thinking with an effort level
 * every current model takes), never `disabled` (some models always think), thinking asked to be
 * shown, no sampling parameters, and JSON by instruction rather than structured output.
 */
export const unknownAnthropicModel: AnthropicModel = {
  thinking: {
    mode: 'effort',
    levels: ['low', 'medium', 'high'],
    canDisable: false,
    hiddenByDefault: true,
  },
  tools: true,
  json: false,
  contextTokens: 200_000,
  maxOutputTokens: 32_000,
  rejects: SAMPLING,
}

/** A model id with its row. */
export type ModelEntry = {
  id: string
  row: AnthropicModel
  /** False for an unlisted model, which then gets the most conservative requests. */
  known: boolean
}

/** The row of `model`: its exact id, else its family, else the unknown-model row. */
export function anthropicModel(model: string): ModelEntry {
  const row = table.find(model)
  return { id: model, row: row ?? unknownAnthropicModel, known: row !== undefined }
}

/** What `model` supports, as `Adapter.capabilities` says it. */
export function capabilitiesOf(row: AnthropicModel): Capabilities {
  const { thinking, tools, json, contextTokens, maxOutputTokens } = row
  return { thinking, tools, json, contextTokens, maxOutputTokens }
}

/**
 * What `model`'s adapter says it supports, with its price: read from the tables alone, so a host
 * can list a model before it loads the SDK.
 */
export function anthropicCapabilities(model: string): Capabilities {
  return withPricing(capabilitiesOf(anthropicModel(model).row), anthropicPricing(model))
}
