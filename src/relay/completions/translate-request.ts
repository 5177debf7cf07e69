import type { ResponseFormat, Thinking, ToolChoice, ToolSpec } from '../../core/adapter.ts'
import type {
  AssistantTurn,
  ToolResult,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import type { Translation } from '../dialects.ts'
import {
  array,
  describe,
  fail,
  listOf,
  oneOf,
  own,
  record,
  string,
  type JsonRecord,
} from '../validate-json.ts'
import { sealedMismatch, turnOfRecord } from '../sealed-turn.ts'
import { decodeReasoningDetails, findReasoningEntry } from './reasoning-details.ts'
import {
  argumentsOf,
  fieldUse,
  flag,
  given,
  imageOfUrl,
  number,
  optionField,
  translateBody,
  TURN_FIELD,
  userContent,
  type Refusal,
} from '../request-parts.ts'

/** A Chat Completions request, translated into a `/v1/chat` body. */
export type TranslatedRequest = Translation & {
  /** `stream_options.include_usage`. */
  includeUsage: boolean
  /** `messageOfTurn[k]`: the index in `messages` of the message turn `k` came from (see {@link rewriteField}). */
  messageOfTurn: number[]
}

/** What the relay does with each top-level field of OpenAI's `ChatCompletionCreateParams`. */
type FieldUse = 'mapped' | 'ignored'

/**
 * Every field of OpenAI's `ChatCompletionCreateParams` (openai 6.49): the ones the relay maps, and
 * the ones real clients send that it accepts and ignores. Any other field is refused, so that a
 * client cannot reach a key, a base URL or a provider option, and a misspelt field does not pass
 * silently. (The tests check this list against the SDK's type.)
 */
export const COMPLETION_FIELDS: Readonly<Record<string, FieldUse>> = {
  messages: 'mapped',
  model: 'mapped',
  tools: 'mapped',
  tool_choice: 'mapped',
  max_tokens: 'mapped',
  max_completion_tokens: 'mapped',
  temperature: 'mapped',
  stop: 'mapped',
  response_format: 'mapped',
  reasoning_effort: 'mapped',
  stream: 'mapped',
  stream_options: 'mapped',
  n: 'mapped',
  audio: 'ignored',
  frequency_penalty: 'ignored',
  function_call: 'ignored',
  functions: 'ignored',
  logit_bias: 'ignored',
  logprobs: 'ignored',
  metadata: 'ignored',
  modalities: 'ignored',
  moderation: 'ignored',
  parallel_tool_calls: 'ignored',
  prediction: 'ignored',
  presence_penalty: 'ignored',
  prompt_cache_key: 'ignored',
  prompt_cache_options: 'ignored',
  prompt_cache_retention: 'ignored',
  safety_identifier: 'ignored',
  seed: 'ignored',
  service_tier: 'ignored',
  store: 'ignored',
  top_logprobs: 'ignored',
  top_p: 'ignored',
  user: 'ignored',
  verbosity: 'ignored',
  web_search_options: 'ignored',
}

/** OpenAI's `ReasoningEffort` (every value but null) as the relay's `thinking` level. */
const EFFORTS: Readonly<Record<string, Exclude<Thinking, object>>> = {
  none: 'off',
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
  // In openai 6.49's `ReasoningEffort`, though not in every model's documentation.
  max: 'max',
}
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const
const CHOICES = ['auto', 'none', 'required'] as const

/**
 * Translates a Chat Completions request (`POST /v1/chat/completions`) into a `/v1/chat` body.
 * Checks only the OpenAI shape; limits, names and depth are left to `validateChatRequest`, whose
 * field paths {@link rewriteField} turns back into OpenAI ones. Never throws on a parsed JSON body.
 *
 * An assistant message whose `reasoning_details` holds the record the relay sent (see
 * `encodeReasoningDetails`) becomes that turn, items and seal included, when the record's text and
 * tool calls are the message's; otherwise the turn is built from the message and a note says why
 * its reasoning state was dropped.
 */
export function translateCompletionRequest(body: unknown): TranslatedRequest | Refusal {
  return translateBody(body, translate)
}

function translate(body: JsonRecord): TranslatedRequest {
  for (const key of Object.keys(body)) fieldUse(key, COMPLETION_FIELDS, 'the Chat Completions API')
  const n = given(body, 'n')
  if (n !== undefined && n !== 1) fail('n', 'must be 1: the relay makes one answer per request')

  const model = string(own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const { system, turns, messageOfTurn } = translateMessages(own(body, 'messages'), notes)
  const request: WireChatRequest = {
    model,
    conversation: system === '' ? { turns } : { system, turns },
    ...callOptions(body),
  }
  return {
    ok: true,
    request,
    stream: flag(given(body, 'stream'), 'stream') === true,
    includeUsage: includeUsage(given(body, 'stream_options')),
    messageOfTurn,
    notes,
  }
}

function includeUsage(value: unknown): boolean {
  if (value === undefined) return false
  const options = record(value, 'stream_options')
  return flag(given(options, 'include_usage'), 'stream_options.include_usage') === true
}

function callOptions(body: JsonRecord): WireCallOptions {
  const options: WireCallOptions = {}
  const tools = given(body, 'tools')
  if (tools !== undefined) options.tools = array(tools, 'tools').map(toolSpec)
  const choice = given(body, 'tool_choice')
  if (choice !== undefined) options.toolChoice = toolChoice(choice)
  // max_completion_tokens replaced max_tokens; a client sending both means the newer one.
  const maxTokens = given(body, 'max_completion_tokens') ?? given(body, 'max_tokens')
  if (maxTokens !== undefined) {
    const field =
      given(body, 'max_completion_tokens') === undefined ? 'max_tokens' : 'max_completion_tokens'
    options.maxTokens = number(maxTokens, field)
  }
  const temperature = given(body, 'temperature')
  if (temperature !== undefined) options.temperature = number(temperature, 'temperature')
  const stop = given(body, 'stop')
  if (stop !== undefined) {
    options.stop =
      typeof stop === 'string' ? [stop] : array(stop, 'stop').map((s, i) => string(s, `stop[${i}]`))
  }
  const format = given(body, 'response_format')
  if (format !== undefined) {
    const responseFormat = responseFormatOf(format)
    if (responseFormat !== undefined) options.responseFormat = responseFormat
  }
  const effort = given(body, 'reasoning_effort')
  if (effort !== undefined) options.thinking = thinkingOf(effort, 'reasoning_effort')
  return options
}

/** The relay's thinking level for OpenAI's `ReasoningEffort` at `field`. */
export function thinkingOf(effort: unknown, field: string): Exclude<Thinking, object> {
  const thinking =
    typeof effort === 'string' && Object.hasOwn(EFFORTS, effort) ? EFFORTS[effort] : undefined
  if (thinking === undefined)
    fail(field, `must be ${listOf(Object.keys(EFFORTS))}, got ${describe(effort)}`)
  return thinking
}

function toolSpec(value: unknown, i: number): ToolSpec {
  const field = `tools[${i}]`
  const tool = record(value, field)
  oneOf(own(tool, 'type'), `${field}.type`, ['function'])
  const fn = record(own(tool, 'function'), `${field}.function`)
  const spec: ToolSpec = {
    name: string(own(fn, 'name'), `${field}.function.name`),
    parameters:
      given(fn, 'parameters') === undefined
        ? { type: 'object', properties: {} }
        : record(own(fn, 'parameters'), `${field}.function.parameters`),
  }
  const description = given(fn, 'description')
  if (description !== undefined)
    spec.description = string(description, `${field}.function.description`)
  return spec
}

function toolChoice(value: unknown): ToolChoice {
  if (typeof value === 'string') return oneOf(value, 'tool_choice', CHOICES)
  const choice = record(value, 'tool_choice')
  oneOf(own(choice, 'type'), 'tool_choice.type', ['function'])
  const fn = record(own(choice, 'function'), 'tool_choice.function')
  return { name: string(own(fn, 'name'), 'tool_choice.function.name') }
}

function responseFormatOf(value: unknown): ResponseFormat | undefined {
  const format = record(value, 'response_format')
  const type = oneOf(own(format, 'type'), 'response_format.type', [
    'text',
    'json_object',
    'json_schema',
  ])
  if (type === 'text') return undefined
  if (type === 'json_object') return { type: 'json' }
  const spec = record(own(format, 'json_schema'), 'response_format.json_schema')
  const out: ResponseFormat = {
    type: 'json',
    name: string(own(spec, 'name'), 'response_format.json_schema.name'),
  }
  const schema = given(spec, 'schema')
  if (schema !== undefined) out.schema = record(schema, 'response_format.json_schema.schema')
  return out
}

/** What `messages` becomes. */
type Translated = { system: string; turns: Turn[]; messageOfTurn: number[] }

function translateMessages(value: unknown, notes: string[]): Translated {
  const messages = array(value, 'messages')
  const system: string[] = []
  const turns: Turn[] = []
  const messageOfTurn: number[] = []
  // Every earlier call, by id: a tool message names its call only by id, a tool result also by name.
  const calls = new Map<string, string>()
  let toolTurn: ToolTurn | undefined
  for (let i = 0; i < messages.length; i++) {
    const field = `messages[${i}]`
    const message = record(messages[i], field)
    const role = oneOf(own(message, 'role'), `${field}.role`, ROLES)
    if (role !== 'tool') toolTurn = undefined
    switch (role) {
      case 'system':
      case 'developer': {
        const text = textContent(own(message, 'content'), `${field}.content`)
        if (text !== '') system.push(text)
        break
      }
      case 'user':
        turns.push(userTurn(message, field))
        messageOfTurn.push(i)
        break
      case 'assistant': {
        const turn = assistantTurn(message, field, notes)
        for (const call of turn.toolCalls ?? []) calls.set(call.id, call.name)
        turns.push(turn)
        messageOfTurn.push(i)
        break
      }
      case 'tool': {
        const result = toolResult(message, field, calls)
        // Consecutive tool messages answer the calls of one assistant message: one tool turn.
        if (toolTurn === undefined) {
          toolTurn = { role: 'tool', results: [] }
          turns.push(toolTurn)
          messageOfTurn.push(i)
        }
        toolTurn.results.push(result)
        break
      }
    }
  }
  // Several system messages are one prompt: the conversation holds only one.
  return { system: system.join('\n\n'), turns, messageOfTurn }
}

/** A string, or an array of text parts joined; `null` and absence are no text. */
function textContent(value: unknown, field: string, also: readonly string[] = []): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (!Array.isArray(value))
    fail(field, `must be a string or an array of text parts, got ${describe(value)}`)
  let text = ''
  for (let j = 0; j < value.length; j++) {
    const part = record(value[j], `${field}[${j}]`)
    const type = oneOf(own(part, 'type'), `${field}[${j}].type`, ['text', ...also])
    if (type === 'text') text += string(own(part, 'text'), `${field}[${j}].text`)
  }
  return text
}

function userTurn(message: JsonRecord, field: string): UserTurn {
  return userContent(own(message, 'content'), `${field}.content`, userPart)
}

function userPart(value: unknown, field: string): UserPart {
  const part = record(value, field)
  const type = oneOf(own(part, 'type'), `${field}.type`, ['text', 'image_url'])
  if (type === 'text') return { type, text: string(own(part, 'text'), `${field}.text`) }
  const image = record(own(part, 'image_url'), `${field}.image_url`)
  return imageOfUrl(string(own(image, 'url'), `${field}.image_url.url`), `${field}.image_url.url`)
}

function assistantTurn(message: JsonRecord, field: string, notes: string[]): AssistantTurn {
  const text = textContent(own(message, 'content'), `${field}.content`, ['refusal'])
  const callsIn = given(message, 'tool_calls')
  const toolCalls =
    callsIn === undefined
      ? []
      : array(callsIn, `${field}.tool_calls`).map((call, j) =>
          toolCall(call, `${field}.tool_calls[${j}]`),
        )
  const plain: AssistantTurn = {
    role: 'assistant',
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
  }
  if (toolCalls.length > 0) plain.toolCalls = toolCalls

  const details = given(message, 'reasoning_details')
  if (details === undefined) return plain
  const dropped = (reason: string) => {
    notes.push(`${field}.reasoning_details dropped: ${reason}`)
    return plain
  }
  if (findReasoningEntry(details) === undefined) return dropped('it holds no thinkwire-v1 entry')
  const sealed = decodeReasoningDetails(details)
  if (sealed === undefined) return dropped('its thinkwire-v1 entry does not decode')
  const mismatch = sealedMismatch(sealed, text, toolCalls, {
    text: `${field}.content`,
    toolCalls: `${field}.tool_calls`,
  })
  if (mismatch !== undefined) return dropped(mismatch)
  return turnOfRecord(sealed, plain)
}

function toolCall(value: unknown, field: string): ToolCall {
  const call = record(value, field)
  oneOf(own(call, 'type') ?? 'function', `${field}.type`, ['function'])
  const fn = record(own(call, 'function'), `${field}.function`)
  const at = `${field}.function.arguments`
  return {
    id: string(own(call, 'id'), `${field}.id`, { nonEmpty: true }),
    name: string(own(fn, 'name'), `${field}.function.name`),
    input: argumentsOf(string(own(fn, 'arguments'), at), at),
  }
}

function toolResult(message: JsonRecord, field: string, calls: Map<string, string>): ToolResult {
  const callId = string(own(message, 'tool_call_id'), `${field}.tool_call_id`, { nonEmpty: true })
  const name = calls.get(callId)
  if (name === undefined)
    fail(`${field}.tool_call_id`, `${describe(callId)} matches no tool call of an earlier message`)
  return { callId, name, output: textContent(own(message, 'content'), `${field}.content`) }
}

const RESULT_FIELD = /^\.results\[(\d+)\](.*)$/s
const CALL_FIELD = /^\.toolCalls\[(\d+)\](.*)$/s
const IMAGE_FIELD = /^\.content\[(\d+)\]\.(?:url|data|mediaType)$/
const TOOL_FIELD = /^tools\[(\d+)\]\.(name|description|parameters)(.*)$/s

/** `/v1/chat` call options and the Chat Completions fields they came from. */
const OPTION_FIELDS: Readonly<Record<string, string>> = {
  maxTokens: 'max_completion_tokens',
  toolChoice: 'tool_choice',
  responseFormat: 'response_format',
  thinking: 'reasoning_effort',
  stop: 'stop',
  temperature: 'temperature',
}

/**
 * The Chat Completions field for a field path of `validateChatRequest`: `conversation.turns[k]…`
 * becomes `messages[i]…` of the message turn `k` came from (`messageOfTurn`), with the turn's
 * field names turned back into OpenAI's (`text` → `content`, `toolCalls[j].input` →
 * `tool_calls[j].function.arguments`, a tool turn's `results[j]` → the j-th tool message), and
 * the call options take their OpenAI names (`maxTokens` → `max_completion_tokens`). Paths it does
 * not know are returned as they are.
 */
export function rewriteField(field: string, messageOfTurn: readonly number[]): string {
  const turn = TURN_FIELD.exec(field)
  if (turn !== null) {
    const i = messageOfTurn[Number(turn[1])]
    return i === undefined ? 'messages' : messageField(i, turn[2]!)
  }
  if (field === 'conversation' || field.startsWith('conversation.')) return 'messages'
  const tool = TOOL_FIELD.exec(field)
  if (tool !== null) return `tools[${tool[1]}].function.${tool[2]}${tool[3]}`
  const named = optionField(field, OPTION_FIELDS)
  if (named === undefined) return field
  const { option, name, rest } = named
  if (option === 'thinking') return name
  if (option === 'toolChoice' && rest === '.name') return `${name}.function.name`
  if (option === 'responseFormat' && rest !== '' && rest !== '.type')
    return `${name}.json_schema${rest}`
  return `${name}${rest}`
}

/** The field of message `i` for the rest of a turn's path (`.text`, `.toolCalls[0].input`, …). */
function messageField(i: number, rest: string): string {
  const at = `messages[${i}]`
  const result = RESULT_FIELD.exec(rest)
  if (result !== null) {
    // A tool turn's results are its consecutive tool messages, in order.
    const tail = result[2]!
    const of = `messages[${i + Number(result[1])}]`
    if (tail === '.callId' || tail === '.name') return `${of}.tool_call_id`
    if (tail.startsWith('.output')) return `${of}.content`
    return of
  }
  const call = CALL_FIELD.exec(rest)
  if (call !== null) {
    const of = `${at}.tool_calls[${call[1]}]`
    const tail = call[2]!
    if (tail === '.id' || tail === '') return `${of}${tail}`
    if (tail === '.name') return `${of}.function.name`
    return `${of}.function.arguments`
  }
  const image = IMAGE_FIELD.exec(rest)
  if (image !== null) return `${at}.content[${image[1]}].image_url.url`
  if (rest === '.text') return `${at}.content`
  if (rest === '.toolCalls') return `${at}.tool_calls`
  if (rest === '.thinking' || rest.startsWith('.items')) return `${at}.reasoning_details`
  if (rest === '.role' || rest.startsWith('.content')) return `${at}${rest}`
  return at
}
