import type { Capabilities, ThinkingSupport } from '../../core/capabilities.ts'
import { withPricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'
import { openaiPricing } from './prices.ts'

/** What the adapter knows about one OpenAI model: its capabilities and its request quirks. */
export type OpenAIModel = {
  /**
   * `effort`: the `reasoning.effort` levels it takes, lowest first and without `'none'`;
   * `canDisable` means it takes `'none'`. `none`: it takes no reasoning settings.
   */
  thinking: ThinkingSupport
  tools: boolean
  /** It takes a JSON schema as `text.format` (else JSON is asked for by instruction). */
  json: boolean
  contextTokens: number
  maxOutputTokens: number
  /** Request options it refuses (dropped with a warning): reasoning models refuse sampling. */
  rejects: readonly string[]
  /**
   * It may not reason at all (a model the table does not know): reasoning settings go out only
   * when the call asks for thinking.
   */
  mayNotReason: boolean
}

const effort = (levels: readonly string[], canDisable = false): ThinkingSupport => ({
  mode: 'effort',
  levels,
  canDisable,
})

/** The `*-chat-latest` models and the GPT-4 line take no reasoning settings. */
const chat: Partial<OpenAIModel> = {
  thinking: { mode: 'none' },
  contextTokens: 128_000,
  maxOutputTokens: 16_384,
}
const oSeries: Partial<OpenAIModel> = { contextTokens: 200_000, maxOutputTokens: 100_000 }

/** A reasoning model of the GPT-5 line: what every row shares unless it says otherwise. */
const defaults: OpenAIModel = {
  thinking: effort(['low', 'medium', 'high']),
  tools: true,
  json: true,
  contextTokens: 400_000,
  maxOutputTokens: 128_000,
  rejects: ['temperature'],
  mayNotReason: false,
}

const table = modelTable(defaults, {
  'gpt-5.6*': { thinking: effort(['minimal', 'low', 'medium', 'high', 'xhigh', 'max'], true) },
  'gpt-5.4*': { thinking: effort(['low', 'medium', 'high', 'xhigh'], true) },
  'gpt-5.3*': { thinking: effort(['low', 'medium', 'high', 'xhigh']) },
  'gpt-5.2*': { thinking: effort(['low', 'medium', 'high', 'xhigh'], true) },
  'gpt-5.2-pro*': { thinking: effort(['high']) },
  'gpt-5.1*': { thinking: effort(['low', 'medium', 'high'], true) },
  'gpt-5.1-codex*': { thinking: effort(['low', 'medium', 'high']) },
  'gpt-5.1-codex-max*': { thinking: effort(['low', 'medium', 'high', 'xhigh']) },
  'gpt-5*': { thinking: effort(['minimal', 'low', 'medium', 'high']) },
  'gpt-5-pro*': { thinking: effort(['high']), maxOutputTokens: 272_000 },
  'gpt-5-chat-latest': chat,
  'gpt-5.1-chat-latest': chat,
  'gpt-5.2-chat-latest': chat,
  'gpt-5.3-chat-latest': chat,
  'o4-mini*': oSeries,
  'o3*': oSeries,
  'o1*': oSeries,
  'codex-mini-latest': oSeries,
  'gpt-4.1*': { ...chat, contextTokens: 1_047_576, maxOutputTokens: 32_768, rejects: [] },
  'gpt-4o*': { ...chat, rejects: [] },
})

/** OpenAI's current models, as `/v1/models` lists them when only a key is set. */
export const openaiModels: readonly string[] = [
  'gpt-5.6-sol',
  'gpt-5.6-terra',
  'gpt-5.4',
  'gpt-5.4-mini',
  'gpt-5.4-nano',
  'gpt-5.3-codex',
  'gpt-5.2',
  'gpt-5.1',
  'gpt-5.1-codex-max',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'o3',
  'o4-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
]

/**
 * What a model the table does not know gets: no reasoning settings unless the call asks for
 * thinking (then the three efforts every reasoning model takes), no sampling parameters (reasoning
 * models refuse them), and JSON by instruction.
 */
export const unknownOpenAIModel: OpenAIModel = {
  ...defaults,
  json: false,
  contextTokens: 128_000,
  maxOutputTokens: 16_384,
  mayNotReason: true,
}

/** The row of `model`: its exact id, else its family, else {@link unknownOpenAIModel}. */
export function openaiModel(model: string): OpenAIModel {
  return table.find(model) ?? unknownOpenAIModel
}

/** The capabilities a row advertises (its request quirks stay in the row). */
export function capabilitiesOf(row: OpenAIModel): Capabilities {
  const { thinking, tools, json, contextTokens, maxOutputTokens } = row
  return { thinking, tools, json, contextTokens, maxOutputTokens }
}

/**
 * What `model`'s adapter says it supports, with its price: read from the tables alone, so a host
 * can list a model before it loads the SDK.
 */
export function openaiCapabilities(model: string): Capabilities {
  return withPricing(capabilitiesOf(openaiModel(model)), openaiPricing(model))
}
