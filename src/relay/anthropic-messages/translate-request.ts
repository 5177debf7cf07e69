import type { ResponseFormat, Thinking, ToolChoice, ToolSpec } from '../../core/adapter.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import type { Translation } from '../dialects.ts'
import * as v from '../validate-json.ts'
import {
  cacheMark,
  systemText,
  translateMessages,
  type CacheMarks,
  type TurnSource,
} from './translate-messages.ts'
import { effortLevel, flag, given, number, toolSpecOf, type Efforts } from '../request-parts.ts'
import { fieldUses, requestTranslator, type Refusal } from '../request-translator.ts'

/**
 * Every field of `@anthropic-ai/sdk`'s `MessageCreateParamsBase` (1.14), for `checkFields`: the
 * ones the relay maps, the ones real clients send that it accepts and ignores, and `container`,
 * refused (a provider's code-execution container is not the client's to pick). Then
 * `temperature`, `top_k` and `top_p`, which the API still takes and clients on older SDKs send
 * (LangChain's): the first is mapped, the others ignored. (The tests check this list against the
 * SDK's type.)
 */
export const MESSAGES_FIELDS = fieldUses({
  mapped: [
    'model',
    'messages',
    'max_tokens',
    'system',
    'stop_sequences',
    'stream',
    'thinking',
    'tool_choice',
    'tools',
    'output_config',
    'cache_control',
    'temperature',
  ],
  ignored: [
    'metadata',
    'service_tier',
    'speed',
    'inference_geo',
    'diagnostics',
    'user_profile_id',
    'workspace_id',
    'top_k',
    'top_p',
  ],
  refused: ['container'],
})

/** `output_config.effort` as the relay's thinking level (`xhigh` is its most, as `max`). */
const EFFORTS: Efforts = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
  max: 'max',
}

/** A Messages API request, translated into a `/v1/chat` body. */
export type TranslatedMessagesRequest = Translation & {
  /** `sources[k]`: where turn `k` came from (see `rewriteField`). */
  sources: TurnSource[]
}

/**
 * Translates a Messages API request (`POST /v1/messages`) as every dialect does (see
 * `Translation`). `thinking` maps to the relay's option: `enabled` to its `budget_tokens`,
 * `adaptive` to `output_config.effort` (Anthropic's default, `high`, without one), `disabled` to
 * `'off'`; an effort without `thinking` is a thinking level too. `max_tokens` is required, as
 * Anthropic requires it. A `cache_control` on the request or on any block turns prompt caching on.
 */
export const translateMessagesRequest: (body: unknown) => TranslatedMessagesRequest | Refusal =
  requestTranslator(
    {
      name: 'the Messages API',
      fields: MESSAGES_FIELDS,
      refuse(key, value) {
        if (value !== undefined)
          v.fail(key, 'is not served: the relay keeps no provider container for a client')
      },
    },
    translate,
  )

function translate(body: v.JsonRecord): TranslatedMessagesRequest {
  const model = v.string(v.own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const marks: CacheMarks = {}
  cacheMark(v.own(body, 'cache_control'), 'cache_control', marks)
  const system = given(body, 'system')
  const prompt = system === undefined ? [] : [systemText(system, 'system', marks)]
  const {
    system: inline,
    turns,
    sources,
  } = translateMessages(v.own(body, 'messages'), notes, marks)
  const text = [...prompt, ...inline].filter((part) => part !== '').join('\n\n')
  const options = callOptions(body, marks)
  const request: WireChatRequest = {
    model,
    conversation: text === '' ? { turns } : { system: text, turns },
    ...options,
  }
  const stream = flag(given(body, 'stream'), 'stream') === true
  return { ok: true, request, stream, sources, notes }
}

function callOptions(body: v.JsonRecord, marks: CacheMarks): WireCallOptions {
  const options: WireCallOptions = {}
  const maxTokens = given(body, 'max_tokens')
  if (maxTokens === undefined) v.fail('max_tokens', 'is required (the Messages API requires it)')
  options.maxTokens = number(maxTokens, 'max_tokens')
  const tools = given(body, 'tools')
  if (tools !== undefined)
    options.tools = v.array(tools, 'tools').map((tool, i) => toolSpec(tool, i, marks))
  const choice = given(body, 'tool_choice')
  if (choice !== undefined) options.toolChoice = toolChoice(choice)
  const temperature = given(body, 'temperature')
  if (temperature !== undefined) options.temperature = number(temperature, 'temperature')
  const stop = given(body, 'stop_sequences')
  if (stop !== undefined) {
    options.stop = v
      .array(stop, 'stop_sequences')
      .map((s, i) => v.string(s, `stop_sequences[${i}]`))
  }
  const config = given(body, 'output_config')
  const output = config === undefined ? {} : outputConfig(config)
  if (output.responseFormat !== undefined) options.responseFormat = output.responseFormat
  const thinking = thinkingOf(given(body, 'thinking'), output.effort)
  if (thinking !== undefined) options.thinking = thinking
  if (marks.cache !== undefined) options.cache = marks.cache
  return options
}

/**
 * The relay's thinking option for Anthropic's `thinking` and the effort of `output_config`: a
 * budget, a level, `'off'`, or undefined (the model's default) when neither is given.
 */
function thinkingOf(value: unknown, effort: Thinking | undefined): Thinking | undefined {
  if (value === undefined) return effort
  const config = v.record(value, 'thinking')
  const type = v.oneOf(v.own(config, 'type'), 'thinking.type', ['enabled', 'adaptive', 'disabled'])
  if (type === 'disabled') return 'off'
  if (type === 'adaptive') return effort ?? 'high'
  return { budgetTokens: number(v.own(config, 'budget_tokens'), 'thinking.budget_tokens') }
}

function outputConfig(value: unknown): { effort?: Thinking; responseFormat?: ResponseFormat } {
  const config = v.record(value, 'output_config')
  const out: { effort?: Thinking; responseFormat?: ResponseFormat } = {}
  const effort = given(config, 'effort')
  if (effort !== undefined) out.effort = effortLevel(effort, 'output_config.effort', EFFORTS)
  const format = given(config, 'format')
  if (format !== undefined) {
    const spec = v.record(format, 'output_config.format')
    v.oneOf(v.own(spec, 'type'), 'output_config.format.type', ['json_schema'])
    out.responseFormat = {
      type: 'json',
      schema: v.record(v.own(spec, 'schema'), 'output_config.format.schema'),
    }
  }
  return out
}

function toolSpec(value: unknown, i: number, marks: CacheMarks): ToolSpec {
  const field = `tools[${i}]`
  const tool = v.record(value, field)
  const type = given(tool, 'type')
  if (type !== undefined && type !== 'custom') {
    v.fail(
      `${field}.type`,
      `must be 'custom' or absent, got ${v.describe(type)} (the relay serves no server tools)`,
    )
  }
  cacheMark(v.own(tool, 'cache_control'), `${field}.cache_control`, marks)
  return toolSpecOf(tool, field, { key: 'input_schema', optional: false })
}

function toolChoice(value: unknown): ToolChoice {
  const choice = v.record(value, 'tool_choice')
  const type = v.oneOf(v.own(choice, 'type'), 'tool_choice.type', ['auto', 'any', 'tool', 'none'])
  switch (type) {
    case 'auto':
    case 'none':
      return type
    case 'any':
      return 'required'
    case 'tool':
      return { name: v.string(v.own(choice, 'name'), 'tool_choice.name') }
  }
}
