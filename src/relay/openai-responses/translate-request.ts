import type { ResponseFormat, ToolChoice, ToolSpec } from '../../core/adapter.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import { thinkingOf } from '../completions/translate-request.ts'
import type { Translation } from '../dialects.ts'
import {
  array,
  describe,
  fail,
  isRecord,
  oneOf,
  own,
  record,
  string,
  type JsonRecord,
} from '../validate-json.ts'
import type { ResponseEcho } from './encode.ts'
import {
  CodedInvalid,
  fieldUse,
  flag,
  given,
  number,
  translateBody,
  type Refusal,
} from '../request-parts.ts'
import { translateInput, type TurnSource } from './translate-input.ts'

/** A Responses request, translated into a `/v1/chat` body. */
export type TranslatedResponsesRequest = Translation & {
  /** What the Response repeats of the request. */
  echo: ResponseEcho
  /** `sources[k]`: where turn `k` came from (see `rewriteResponsesField`). */
  sources: TurnSource[]
}

/**
 * What the relay does with each top-level field of a Responses request: maps it, accepts and
 * ignores it, or refuses it when set (state the relay does not keep).
 */
type FieldUse = 'mapped' | 'ignored' | 'refused'

/**
 * Every field of OpenAI's `ResponseCreateParams` (openai 6.49). Any other field is refused, so that
 * a client cannot reach a key, a base URL or a provider option, and a misspelt field does not pass
 * silently. The relay is stateless: what needs a stored response, conversation, prompt or a
 * background run is refused when set. (The tests check this list against the SDK's type.)
 */
export const RESPONSES_FIELDS: Readonly<Record<string, FieldUse>> = {
  model: 'mapped',
  input: 'mapped',
  instructions: 'mapped',
  tools: 'mapped',
  tool_choice: 'mapped',
  max_output_tokens: 'mapped',
  temperature: 'mapped',
  reasoning: 'mapped',
  text: 'mapped',
  stream: 'mapped',
  /** Answered false, whatever is asked. */
  store: 'mapped',
  /** `reasoning.encrypted_content` is what the relay sends anyway; the rest name hosted tools. */
  include: 'mapped',
  background: 'refused',
  conversation: 'refused',
  previous_response_id: 'refused',
  prompt: 'refused',
  context_management: 'ignored',
  metadata: 'ignored',
  moderation: 'ignored',
  parallel_tool_calls: 'ignored',
  prompt_cache_key: 'ignored',
  prompt_cache_options: 'ignored',
  prompt_cache_retention: 'ignored',
  safety_identifier: 'ignored',
  service_tier: 'ignored',
  stream_options: 'ignored',
  top_logprobs: 'ignored',
  top_p: 'ignored',
  truncation: 'ignored',
  user: 'ignored',
}

const CHOICES = ['auto', 'none', 'required'] as const

/**
 * Translates a Responses request (`POST /v1/responses`) into a `/v1/chat` body. Checks only the
 * Responses shape; limits, names and depth are left to `validateChatRequest`, whose field paths
 * {@link rewriteResponsesField} turns back into Responses ones. Never throws on a parsed JSON body.
 *
 * `input` becomes turns as {@link translateInput} says; system and developer messages join
 * `instructions` as the system prompt.
 */
export function translateResponsesRequest(body: unknown): TranslatedResponsesRequest | Refusal {
  return translateBody(body, translate)
}

function translate(body: JsonRecord): TranslatedResponsesRequest {
  for (const key of Object.keys(body)) {
    const value = given(body, key)
    const set = key === 'background' ? value === true : value !== undefined
    if (fieldUse(key, RESPONSES_FIELDS, 'the Responses API') === 'refused' && set) {
      // A field of the Responses API that needs state the relay does not keep.
      throw new CodedInvalid(
        key,
        'is not supported: the relay is stateless (store is always false); send the whole conversation in input',
        'unsupported_parameter',
      )
    }
  }
  const model = string(own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const instructions = given(body, 'instructions')
  const system: string[] = []
  if (instructions !== undefined) system.push(string(instructions, 'instructions'))
  const { turns, sources } = translateInput(own(body, 'input'), system, notes)
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
  if (include !== undefined) array(include, 'include').forEach((v, i) => string(v, `include[${i}]`))
  return { ok: true, request, stream: stream === true, echo: echoOf(body), sources, notes }
}

function callOptions(body: JsonRecord): WireCallOptions {
  const options: WireCallOptions = {}
  const tools = given(body, 'tools')
  if (tools !== undefined) options.tools = array(tools, 'tools').map(toolSpec)
  const choice = given(body, 'tool_choice')
  if (choice !== undefined) options.toolChoice = toolChoice(choice)
  const maxTokens = given(body, 'max_output_tokens')
  if (maxTokens !== undefined) options.maxTokens = number(maxTokens, 'max_output_tokens')
  const temperature = given(body, 'temperature')
  if (temperature !== undefined) options.temperature = number(temperature, 'temperature')
  const text = given(body, 'text')
  if (text !== undefined) {
    const format = responseFormatOf(record(text, 'text'))
    if (format !== undefined) options.responseFormat = format
  }
  const reasoning = given(body, 'reasoning')
  if (reasoning !== undefined) {
    const effort = given(record(reasoning, 'reasoning'), 'effort')
    if (effort !== undefined) options.thinking = thinkingOf(effort, 'reasoning.effort')
  }
  return options
}

function toolSpec(value: unknown, i: number): ToolSpec {
  const field = `tools[${i}]`
  const tool = record(value, field)
  const type = own(tool, 'type')
  if (type !== 'function') {
    fail(
      `${field}.type`,
      `must be 'function': the relay runs no hosted tools, got ${describe(type)}`,
    )
  }
  const parameters = given(tool, 'parameters')
  const spec: ToolSpec = {
    name: string(own(tool, 'name'), `${field}.name`),
    parameters:
      parameters === undefined
        ? { type: 'object', properties: {} }
        : record(parameters, `${field}.parameters`),
  }
  const description = given(tool, 'description')
  if (description !== undefined) spec.description = string(description, `${field}.description`)
  return spec
}

function toolChoice(value: unknown): ToolChoice {
  if (typeof value === 'string') return oneOf(value, 'tool_choice', CHOICES)
  const choice = record(value, 'tool_choice')
  oneOf(own(choice, 'type'), 'tool_choice.type', ['function'])
  return { name: string(own(choice, 'name'), 'tool_choice.name') }
}

function responseFormatOf(text: JsonRecord): ResponseFormat | undefined {
  const value = given(text, 'format')
  if (value === undefined) return undefined
  const format = record(value, 'text.format')
  const type = oneOf(own(format, 'type'), 'text.format.type', [
    'text',
    'json_object',
    'json_schema',
  ])
  if (type === 'text') return undefined
  if (type === 'json_object') return { type: 'json' }
  const out: ResponseFormat = {
    type: 'json',
    name: string(own(format, 'name'), 'text.format.name'),
  }
  const schema = given(format, 'schema')
  if (schema !== undefined) out.schema = record(schema, 'text.format.schema')
  return out
}

/** The request's settings as its Response repeats them, or OpenAI's defaults. */
function echoOf(body: JsonRecord): ResponseEcho {
  const settings = (key: string): JsonRecord => {
    const value = given(body, key)
    return isRecord(value) ? value : {}
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
