import type { Thinking } from '../../core/adapter.ts'
import { assertNever } from '../../core/assert-never.ts'
import type { Capabilities, ThinkingSupport } from '../../core/capabilities.ts'
import type { Pricing } from '../../core/pricing.ts'
import { modelTable } from '../../kit/model-table.ts'
import type { CompatibleReasoning, EffortLevels, ThinkingControl } from './reasoning.ts'

/** How one model of a server differs from the server's defaults. */
export type CompatibleModelRow = {
  /** Merged over the server's `reasoning`, field by field. */
  reasoning?: CompatibleReasoning | undefined
  /** It takes tools. @defaultValue true */
  tools?: boolean | undefined
  /**
   * It takes a JSON schema for its output (`json_schema`); without, a schema is dropped with a
   * warning and a JSON object is asked for. @defaultValue true
   */
  json?: boolean | undefined
  /** Context window in tokens, when known. */
  contextTokens?: number | undefined
  /** Largest `max_tokens` it takes, when known: a larger `maxTokens` is lowered to it, with a warning. */
  maxOutputTokens?: number | undefined
  /**
   * The most stop sequences (`stop`) it takes; 0 when it takes none. The caller's extra ones are
   * dropped with a warning. @defaultValue 4, as OpenAI's API
   */
  stopSequences?: number | undefined
  /** It takes `prompt_cache_key` (OpenAI), which a `cache.key` becomes. @defaultValue false */
  cacheKey?: boolean | undefined
  /** It takes `temperature` (OpenAI's reasoning models do not). @defaultValue true */
  temperature?: boolean | undefined
  /**
   * The field `maxTokens` is sent as: OpenAI's reasoning models refuse `max_tokens` and take
   * `max_completion_tokens`. @defaultValue `'max_tokens'`
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens' | undefined
  /**
   * Its prices in US dollars per million tokens, with their source and date in a comment beside
   * the row. Without, its turns carry no `usage.cost` (unless the server states it).
   */
  pricing?: Pricing | undefined
  /**
   * The server bills less outside its peak hours: `pricing` holds at peak, and `pricing` times
   * `factor` at every other hour. Each turn is priced at the hour its request was sent.
   */
  offPeak?: OffPeak | undefined
  /**
   * The id is a name the server once had for another model with a thinking setting (DeepSeek's
   * retired `deepseek-chat` and `deepseek-reasoner`): requests go to `model`, with `thinking`
   * unless the call sets its own, and the turn is tagged as that call's, so it replays to `model`
   * and back. The row's other fields are ignored: the model's row holds.
   */
  aliasOf?: { model: string; thinking?: Thinking | undefined } | undefined
}

/**
 * When a server bills its lower rates: outside `peakHoursUtc` (`[from, to)` hours of the UTC day,
 * Monday to Friday; weekends are off-peak all day), at `factor` times `pricing`.
 */
export type OffPeak = {
  factor: number
  peakHoursUtc: readonly (readonly [from: number, to: number])[]
}

/** A model row in list form: the model id, or a family as a prefix ending in `*`. */
export type CompatibleModel = CompatibleModelRow & { id: string }

/**
 * The models of a server that differ from its defaults: a table keyed by model id or `'prefix*'`
 * family (the exact id wins, then the longest prefix), or the same rows as a list with `id`.
 */
export type CompatibleModels =
  | { readonly [idOrFamily: string]: CompatibleModelRow }
  | readonly CompatibleModel[]

/** What the adapter of one model works from: the server's defaults with the model's row over them. */
export type CompatibleModelInfo = {
  reasoning: CompatibleReasoning
  tools: boolean
  json: boolean
  contextTokens?: number | undefined
  maxOutputTokens?: number | undefined
  stopSequences: number
  cacheKey: boolean
  temperature: boolean
  maxTokensField: 'max_tokens' | 'max_completion_tokens'
  pricing?: Pricing | undefined
  offPeak?: OffPeak | undefined
  /** Set when the id is an alias: the model it stands for, whose row this is, and its thinking. */
  aliasOf?: { model: string; thinking?: Thinking | undefined } | undefined
}

/** What a model of a server takes when no row says otherwise. */
const SERVER_DEFAULTS = {
  tools: true,
  json: true,
  stopSequences: 4,
  cacheKey: false,
  temperature: true,
  maxTokensField: 'max_tokens',
} as const satisfies Omit<CompatibleModelInfo, 'reasoning'>

/**
 * The row of `model` on a server whose defaults are `reasoning` and whose differing models are
 * `models`. A row keyed `'*'` says what every model of the server shares; the other rows are
 * merged over it. A model the rows do not name gets the server's row (by default: its reasoning,
 * tools, JSON schemas, four stop sequences, temperature, `max_tokens`, and no cache key). An alias
 * gets the row of the model it stands for, with `aliasOf` set (one step: an alias of an alias is
 * not followed further).
 */
export function compatibleModel(
  model: string,
  reasoning: CompatibleReasoning | undefined,
  models: CompatibleModels | undefined,
): CompatibleModelInfo {
  let server: CompatibleModelInfo = { reasoning: { ...reasoning }, ...SERVER_DEFAULTS }
  if (models === undefined) return server
  const rows = entries(models)
  for (const [key, row] of rows) if (key === '*') server = { ...server, ...rowInfo(row, server) }
  const overrides: { [idOrFamily: string]: Partial<CompatibleModelInfo> } = {}
  for (const [key, row] of rows) if (key !== '*') overrides[key] = rowInfo(row, server)
  const table = modelTable(server, overrides)
  const info = table.find(model) ?? server
  const { aliasOf } = info
  if (aliasOf === undefined) return info
  const { aliasOf: _, ...target } = table.find(aliasOf.model) ?? server
  return { ...target, aliasOf }
}

/** The reasoning settings for `model`: the server's, with the best-matching model row over them. */
export function reasoningFor(
  model: string,
  reasoning: CompatibleReasoning | undefined,
  models: CompatibleModels | undefined,
): CompatibleReasoning {
  return compatibleModel(model, reasoning, models).reasoning
}

/**
 * What `model` supports on a server with these settings (`reasoning` and `models`, as a preset
 * gives them), as its adapter's `capabilities` say: read from the settings alone, so a host can
 * list a model before it loads the SDK.
 */
export function compatibleCapabilities(
  model: string,
  settings: {
    reasoning?: CompatibleReasoning | undefined
    models?: CompatibleModels | undefined
  },
): Capabilities {
  return capabilitiesOf(compatibleModel(model, settings.reasoning, settings.models))
}

/** What the model supports, as `Adapter.capabilities` says it. */
export function capabilitiesOf(info: CompatibleModelInfo): Capabilities {
  const capabilities: Capabilities = {
    thinking: thinkingOf(info.reasoning.control),
    tools: info.tools,
    json: info.json,
  }
  if (info.contextTokens !== undefined) capabilities.contextTokens = info.contextTokens
  if (info.maxOutputTokens !== undefined) capabilities.maxOutputTokens = info.maxOutputTokens
  if (info.pricing !== undefined) capabilities.pricing = info.pricing
  return capabilities
}

const LEVELS: readonly (keyof EffortLevels)[] = ['low', 'medium', 'high', 'max']

/** The thinking a server's control takes: the levels it maps (`max` falls back on `high`). */
function thinkingOf(control: ThinkingControl | undefined): ThinkingSupport {
  if (control === undefined) return { mode: 'none' }
  switch (control.type) {
    case 'none':
      return { mode: 'none' }
    case 'openrouter-reasoning':
      return { mode: 'effort', levels: LEVELS, canDisable: true }
    case 'reasoning-effort': {
      const { levels } = control
      const taken = LEVELS.filter(
        (level) => levels[level] !== undefined || (level === 'max' && levels.high !== undefined),
      )
      return { mode: 'effort', levels: taken, canDisable: control.off !== undefined }
    }
    default:
      return assertNever(control)
  }
}

function entries(models: CompatibleModels): [string, CompatibleModelRow][] {
  if (isList(models)) return models.map((row) => [row.id, row])
  return Object.entries(models)
}

function isList(models: CompatibleModels): models is readonly CompatibleModel[] {
  return Array.isArray(models)
}

/** The fields a row gives (a field it leaves undefined keeps the server's). */
function rowInfo(
  row: CompatibleModelRow,
  server: CompatibleModelInfo,
): Partial<CompatibleModelInfo> {
  // The table merges one level deep: the reasoning fields are merged here, field by field.
  const info: Partial<CompatibleModelInfo> = {
    reasoning: { ...server.reasoning, ...row.reasoning },
  }
  if (row.tools !== undefined) info.tools = row.tools
  if (row.json !== undefined) info.json = row.json
  if (row.contextTokens !== undefined) info.contextTokens = row.contextTokens
  if (row.maxOutputTokens !== undefined) info.maxOutputTokens = row.maxOutputTokens
  if (row.stopSequences !== undefined) info.stopSequences = row.stopSequences
  if (row.cacheKey !== undefined) info.cacheKey = row.cacheKey
  if (row.temperature !== undefined) info.temperature = row.temperature
  if (row.maxTokensField !== undefined) info.maxTokensField = row.maxTokensField
  if (row.pricing !== undefined) info.pricing = row.pricing
  if (row.offPeak !== undefined) info.offPeak = row.offPeak
  if (row.aliasOf !== undefined) info.aliasOf = row.aliasOf
  return info
}
