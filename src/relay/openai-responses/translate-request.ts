import type { ToolSpec } from '../../core/adapter.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import { responseFormatOf, thinkingOf, toolChoiceOf } from '../completions/openai-options.ts'
import type { Translation } from '../dialects.ts'
import * as v from '../validate-json.ts'
import type { ResponseEcho } from './encode.ts'
import { flag, given, number, toolSpecOf } from '../request-parts.ts'
import { CodedInvalid, fieldUses, requestTranslator, type Refusal } from '../request-translator.ts'
import { translateInput, type TurnSource } from './translate-input.ts'

/**
 * Every field of OpenAI's `ResponseCreateParams` (openai 6.49), for `checkFields`. The relay is
 * stateless: what needs a stored response, conversation, prompt or a background run is refused
 * when set. (The tests check this list against the SDK's type.)
 */
export const RESPONSES_FIELDS = fieldUses({
  mapped: [
    'model',
    'input',
    'instructions',
    'tools',
    'tool_choice',
    'max_output_tokens',
    'temperature',
    'reasoning',
    'text',
    'stream',
    // Answered false, whatever is asked.
    'store',
    // `reasoning.encrypted_content` is what the relay sends anyway; the rest name hosted tools.
    'include',
  ],
  refused: ['background', 'conversation', 'previous_response_id', 'prompt'],
  ignored: [
    'context_management',
    'metadata',
    'moderation',
    'parallel_tool_calls',
    'prompt_cache_key',
    'prompt_cache_options',
    'prompt_cache_retention',
    'safety_identifier',
    'service_tier',
    'stream_options',
    'top_logprobs',
    'top_p',
    'truncation',
    'user',
  ],
})

/** A Responses request, translated into a `/v1/chat` body. */
export type TranslatedResponsesRequest = Translation & {
  /** What the Response repeats of the request. */
  echo: ResponseEcho
  /** `sources[k]`: where turn `k` came from (see `rewriteResponsesField`). */
  sources: TurnSource[]
}

/**
 * Translates a Responses request (`POST /v1/responses`) as every dialect does (see `Translation`):
 * `input` becomes turns as {@link translateInput} says; system and developer messages join
 * `instructions` as the system prompt.
 */
export const translateResponsesRequest: (body: unknown) => TranslatedResponsesRequest | Refusal =
  requestTranslator(
    { name: 'the Responses API', fields: RESPONSES_FIELDS, refuse: refuseStateful },
    translate,
  )

/** Refuses a field of the Responses API that needs state the relay does not keep, when set. */
function refuseStateful(key: string, value: unknown): void {
  // `background: false` asks for nothing the relay lacks.
  if (key === 'background' ? value !== true : value === undefined) return
  throw new CodedInvalid(
    key,
    'is not supported: the relay is stateless (store is always false); send the whole conversation in input',
    'unsupported_parameter',
  )
}

function translate(body: v.JsonRecord): TranslatedResponsesRequest {
  const model = v.string(v.own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const instructions = given(body, 'instructions')
  const system: string[] = []
  if (instructions !== undefined) system.push(v.string(instructions, 'instructions'))
  const { turns, sources } = translateInput(v.own(body, 'input'), system, notes)
  const prompt = system.filter((text) => text !== '').join('\n\n')
  const request: WireChatRequest = {
    model,
    conversation: prompt === '' ? { turns } : { system: prompt, turns },
    ...callOptions(body),
  }
  const stream = flag(given(body, 'stream'), 'stream')
  if (flag(given(body, 'store'), 'store') === true)
    notes.push('store answered false: the relay keeps no responses')
  const include = given(body, 'include')
  if (include !== undefined)
    v.array(include, 'include').forEach((item, i) => v.string(item, `include[${i}]`))
  return { ok: true, request, stream: stream === true, echo: echoOf(body), sources, notes }
}

function callOptions(body: v.JsonRecord): WireCallOptions {
  const options: WireCallOptions = {}
  const tools = given(body, 'tools')
  if (tools !== undefined) options.tools = v.array(tools, 'tools').map(toolSpec)
  const choice = given(body, 'tool_choice')
  if (choice !== undefined) options.toolChoice = toolChoiceOf(choice)
  const maxTokens = given(body, 'max_output_tokens')
  if (maxTokens !== undefined) options.maxTokens = number(maxTokens, 'max_output_tokens')
  const temperature = given(body, 'temperature')
  if (temperature !== undefined) options.temperature = number(temperature, 'temperature')
  const text = given(body, 'text')
  const format = text === undefined ? undefined : given(v.record(text, 'text'), 'format')
  if (format !== undefined) {
    const responseFormat = responseFormatOf(format, 'text.format')
    if (responseFormat !== undefined) options.responseFormat = responseFormat
  }
  const reasoning = given(body, 'reasoning')
  if (reasoning !== undefined) {
    const effort = given(v.record(reasoning, 'reasoning'), 'effort')
    if (effort !== undefined) options.thinking = thinkingOf(effort, 'reasoning.effort')
  }
  return options
}

function toolSpec(value: unknown, i: number): ToolSpec {
  const field = `tools[${i}]`
  const tool = v.record(value, field)
  const type = v.own(tool, 'type')
  if (type !== 'function') {
    v.fail(
      `${field}.type`,
      `must be 'function': the relay runs no hosted tools, got ${v.describe(type)}`,
    )
  }
  return toolSpecOf(tool, field, { key: 'parameters', optional: true })
}

/** The request's settings as its Response repeats them, or OpenAI's defaults. */
function echoOf(body: v.JsonRecord): ResponseEcho {
  const settings = (key: string): v.JsonRecord => {
    const value = given(body, key)
    return v.isRecord(value) ? value : {}
  }
  const nullable = <T extends string | number>(value: unknown, type: 'string' | 'number') =>
    typeof value === type ? (value as T) : null
  const reasoning = settings('reasoning')
  const tools = given(body, 'tools')
  return {
    instructions: nullable<string>(given(body, 'instructions'), 'string'),
    max_output_tokens: nullable<number>(given(body, 'max_output_tokens'), 'number'),
    temperature: nullable<number>(given(body, 'temperature'), 'number'),
    tool_choice: given(body, 'tool_choice') ?? 'auto',
    tools: Array.isArray(tools) ? tools : [],
    reasoning: {
      effort: nullable<string>(given(reasoning, 'effort'), 'string'),
      summary: nullable<string>(given(reasoning, 'summary'), 'string'),
    },
    text: { format: given(settings('text'), 'format') ?? { type: 'text' } },
    metadata: settings('metadata'),
  }
}
