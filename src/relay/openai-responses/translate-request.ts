import type { ResponseFormat, ToolChoice, ToolSpec } from '../../core/adapter.ts'
import type { AssistantTurn, ToolTurn, Turn, UserPart, UserTurn } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import { EFFORTS, sameCalls } from '../completions/translate-request.ts'
import {
  array,
  describe,
  fail,
  Invalid,
  isRecord,
  listOf,
  oneOf,
  own,
  record,
  string,
  type JsonRecord,
} from '../validate-json.ts'
import type { ResponseEcho } from './encode.ts'
import { readSealedContent } from './sealed-reasoning.ts'

/** Where one turn of the conversation came from in `input`, to name an input field at fault. */
export type TurnSource = {
  /** The input item the turn starts at; -1 for the user turn of an `input` given as a string. */
  at: number
  /** An assistant turn's first `message` item, which holds its text. */
  text?: number | undefined
  /** Each tool call's `function_call` item, or each result's `function_call_output` item. */
  parts?: number[] | undefined
  /** The `reasoning` item whose sealed record the assistant turn was rebuilt from. */
  sealed?: number | undefined
}

/** A Responses request, translated into a `/v1/chat` body. */
export type TranslatedResponsesRequest = {
  ok: true
  /** The `/v1/chat` body, still to be checked by `validateChatRequest`. */
  request: WireChatRequest
  stream: boolean
  /** What the Response repeats of the request. */
  echo: ResponseEcho
  /** `sources[k]`: where turn `k` came from (see {@link rewriteResponsesField}). */
  sources: TurnSource[]
  /** What was dropped or answered otherwise, by field path and reason (never the client's text). */
  notes: string[]
}

/** A Responses request refused: the field at fault and what is wrong with it. */
export type RefusedResponsesRequest = {
  ok: false
  /** The field at fault as a Responses path (`input[3].content[0].image_url`), or null for the body. */
  param: string | null
  /** Starts with the field's path, as the relay's own validation messages do. */
  message: string
  /** OpenAI's `code`, when a more precise one than `invalid_value` applies. */
  code?: string | undefined
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
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const
const ROLES = ['user', 'assistant', 'system', 'developer'] as const
const DATA_URL = /^data:(image\/[^;,]+);base64,(.*)$/is

/**
 * Translates a Responses request (`POST /v1/responses`) into a `/v1/chat` body. Checks only the
 * Responses shape; limits, names and depth are left to `validateChatRequest`, whose field paths
 * {@link rewriteResponsesField} turns back into Responses ones. Never throws on a parsed JSON body.
 *
 * `input` becomes turns: user messages a user turn each; a run of assistant messages,
 * `function_call` and `reasoning` items one assistant turn; a run of `function_call_output` items
 * one tool turn; system and developer messages join `instructions` as the system prompt. A run that
 * holds the sealed reasoning item the relay sent (in any place) becomes exactly the sealed turn,
 * items and seal included, when the record's text and tool calls are the run's; otherwise the turn
 * is built from its messages and calls and a note says why its reasoning state was dropped.
 */
export function translateResponsesRequest(
  body: unknown,
): TranslatedResponsesRequest | RefusedResponsesRequest {
  if (!isRecord(body)) {
    return { ok: false, param: null, message: `body must be a JSON object, got ${describe(body)}` }
  }
  try {
    return translate(body)
  } catch (error) {
    if (!(error instanceof Invalid)) throw error
    const refused: RefusedResponsesRequest = {
      ok: false,
      param: error.field,
      message: error.message,
    }
    if (error instanceof Unknown) refused.code = 'unknown_parameter'
    if (error instanceof Unsupported) refused.code = 'unsupported_parameter'
    return refused
  }
}

/** A field the Responses API does not have. */
class Unknown extends Invalid {}
/** A field of the Responses API that needs state the relay does not keep. */
class Unsupported extends Invalid {}

function translate(body: JsonRecord): TranslatedResponsesRequest {
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(RESPONSES_FIELDS, key)) {
      throw new Unknown(
        describe(key).slice(1, -1),
        'is not a field of the Responses API (a relay client picks no key, base URL or provider option)',
      )
    }
    const value = given(body, key)
    const set = key === 'background' ? value === true : value !== undefined
    if (RESPONSES_FIELDS[key] === 'refused' && set) {
      throw new Unsupported(
        key,
        'is not supported: the relay is stateless (store is always false); send the whole conversation in input',
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
  const stream = boolean(body, 'stream')
  if (boolean(body, 'store') === true)
    notes.push('store answered false: the relay keeps no responses')
  const include = given(body, 'include')
  if (include !== undefined) array(include, 'include').forEach((v, i) => string(v, `include[${i}]`))
  return { ok: true, request, stream: stream === true, echo: echoOf(body), sources, notes }
}

/** A member the client set: OpenAI's clients send `null` for "not set" on most fields. */
function given(object: JsonRecord, key: string): unknown {
  const value = own(object, key)
  return value === null ? undefined : value
}

function boolean(object: JsonRecord, key: string, at = key): boolean | undefined {
  const value = given(object, key)
  if (value !== undefined && typeof value !== 'boolean')
    fail(at, `must be a boolean, got ${describe(value)}`)
  return value
}

function number(value: unknown, field: string): number {
  if (typeof value !== 'number') fail(field, `must be a number, got ${describe(value)}`)
  return value
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
    if (effort !== undefined) {
      const thinking =
        typeof effort === 'string' && Object.hasOwn(EFFORTS, effort) ? EFFORTS[effort] : undefined
      if (thinking === undefined)
        fail('reasoning.effort', `must be ${listOf(Object.keys(EFFORTS))}, got ${describe(effort)}`)
      options.thinking = thinking
    }
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

/** What `input` becomes. */
type Translated = { turns: Turn[]; sources: TurnSource[] }

/** The items of one answer, as they come in `input`: its messages, calls and reasoning items. */
type Run = {
  at: number
  text: string
  /** The first message item, or undefined when the run has none. */
  message: number | undefined
  calls: ToolCall[]
  callItems: number[]
  /** The first reasoning item holding a record of this relay, and the record. */
  sealed: { at: number; record: SealedRecord } | undefined
}
type SealedRecord = Extract<ReturnType<typeof readSealedContent>, { type: 'record' }>['record']

function translateInput(value: unknown, system: string[], notes: string[]): Translated {
  if (typeof value === 'string') {
    return { turns: [{ role: 'user', content: value }], sources: [{ at: -1 }] }
  }
  if (!Array.isArray(value))
    fail('input', `must be a string or an array of items, got ${describe(value)}`)
  const items: readonly unknown[] = value
  const turns: Turn[] = []
  const sources: TurnSource[] = []
  // Every earlier call, by id: an output names its call only by id, a tool result also by name.
  const calls = new Map<string, string>()
  let run: Run | undefined
  let toolTurn: { turn: ToolTurn; source: TurnSource } | undefined
  const endRun = () => {
    if (run === undefined) return
    const done = assistantTurn(run, notes)
    run = undefined
    if (done === undefined) return
    for (const call of done.turn.toolCalls ?? []) calls.set(call.id, call.name)
    turns.push(done.turn)
    sources.push(done.source)
  }
  for (let i = 0; i < items.length; i++) {
    const field = `input[${i}]`
    const item = record(items[i], field)
    const kind = itemKind(item, field)
    if (kind !== 'function_call_output') toolTurn = undefined
    if (kind === 'assistant' || kind === 'function_call' || kind === 'reasoning') {
      run ??= { at: i, text: '', message: undefined, calls: [], callItems: [], sealed: undefined }
      addToRun(run, kind, item, i, notes)
      continue
    }
    endRun()
    switch (kind) {
      case 'system':
        system.push(textContent(own(item, 'content'), `${field}.content`, ['input_text']))
        break
      case 'user':
        turns.push(userTurn(item, field))
        sources.push({ at: i })
        break
      case 'function_call_output': {
        const callId = string(own(item, 'call_id'), `${field}.call_id`, { nonEmpty: true })
        const name = calls.get(callId)
        if (name === undefined) {
          fail(
            `${field}.call_id`,
            `${describe(callId)} matches no function_call of an earlier item`,
          )
        }
        const output = textContent(own(item, 'output'), `${field}.output`, ['input_text'])
        // Consecutive outputs answer the calls of one answer: one tool turn.
        if (toolTurn === undefined) {
          toolTurn = { turn: { role: 'tool', results: [] }, source: { at: i, parts: [] } }
          turns.push(toolTurn.turn)
          sources.push(toolTurn.source)
        }
        toolTurn.turn.results.push({ callId, name, output })
        toolTurn.source.parts!.push(i)
        break
      }
    }
  }
  endRun()
  return { turns, sources }
}

type ItemKind = 'user' | 'assistant' | 'system' | Exclude<(typeof ITEM_TYPES)[number], 'message'>

function itemKind(item: JsonRecord, field: string): ItemKind {
  const type = own(item, 'type') ?? 'message'
  const known = oneOf(type, `${field}.type`, ITEM_TYPES)
  if (known !== 'message') return known
  const role = oneOf(own(item, 'role'), `${field}.role`, ROLES)
  return role === 'developer' ? 'system' : role
}

function addToRun(
  run: Run,
  kind: 'assistant' | 'function_call' | 'reasoning',
  item: JsonRecord,
  i: number,
  notes: string[],
): void {
  const field = `input[${i}]`
  switch (kind) {
    case 'assistant':
      run.message ??= i
      run.text += textContent(own(item, 'content'), `${field}.content`, [
        'output_text',
        'input_text',
        'refusal',
      ])
      return
    case 'function_call':
      run.calls.push(functionCall(item, field))
      run.callItems.push(i)
      return
    case 'reasoning': {
      const content = readSealedContent(given(item, 'encrypted_content'))
      const dropped = (reason: string) =>
        notes.push(`${field}.encrypted_content dropped: ${reason}`)
      if (content.type === 'foreign') dropped('it is not a record of this relay')
      if (content.type === 'broken') dropped('its record does not decode')
      if (content.type !== 'record') return
      if (run.sealed !== undefined) dropped(`input[${run.sealed.at}] holds this answer's record`)
      else run.sealed = { at: i, record: content.record }
      return
    }
  }
}

/**
 * The assistant turn of a run: exactly the sealed record when its text and tool calls are the
 * run's, else built from the run's messages and calls. A run of reasoning items alone, with no
 * record to stand for it, says nothing a provider can take: it is left out, with a note.
 */
function assistantTurn(
  run: Run,
  notes: string[],
): { turn: AssistantTurn; source: TurnSource } | undefined {
  const source: TurnSource = { at: run.at }
  if (run.message !== undefined) source.text = run.message
  if (run.callItems.length > 0) source.parts = run.callItems
  const plain: AssistantTurn = {
    role: 'assistant',
    text: run.text,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: run.calls.length > 0 ? 'tool-calls' : 'stop',
  }
  if (run.calls.length > 0) plain.toolCalls = run.calls
  const unsaid = run.message === undefined && run.calls.length === 0
  const fallback = () => {
    if (!unsaid) return { turn: plain, source }
    notes.push(`input[${run.at}] left out: reasoning items with no message or function_call`)
    return undefined
  }
  const { sealed } = run
  if (sealed === undefined) return fallback()
  const dropped = (reason: string) => {
    notes.push(`input[${sealed.at}].encrypted_content dropped: ${reason}`)
    return fallback()
  }
  const { record: kept } = sealed
  if (kept.text !== run.text) return dropped("its text is not the answer's output_text")
  if (!sameCalls(kept.toolCalls ?? [], run.calls))
    return dropped("its tool calls are not the answer's function_call items")
  // Exactly the sealed record, so that the seal still covers it.
  const turn: AssistantTurn = {
    role: 'assistant',
    text: kept.text,
    usage: plain.usage,
    stopReason: plain.stopReason,
    items: kept.items,
  }
  if (kept.thinking !== undefined) turn.thinking = kept.thinking
  if (kept.toolCalls !== undefined) turn.toolCalls = kept.toolCalls
  return { turn, source: { ...source, sealed: sealed.at } }
}

/** A string, or an array of parts of the `types` whose text is joined; null and absence are none. */
function textContent(value: unknown, field: string, types: readonly string[]): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (!Array.isArray(value))
    fail(field, `must be a string or an array of text parts, got ${describe(value)}`)
  let text = ''
  for (let j = 0; j < value.length; j++) {
    const part = record(value[j], `${field}[${j}]`)
    const type = oneOf(own(part, 'type'), `${field}[${j}].type`, types)
    if (type !== 'refusal') text += string(own(part, 'text'), `${field}[${j}].text`)
  }
  return text
}

function userTurn(item: JsonRecord, field: string): UserTurn {
  const content = own(item, 'content')
  if (typeof content === 'string') return { role: 'user', content }
  if (!Array.isArray(content))
    fail(`${field}.content`, `must be a string or an array of parts, got ${describe(content)}`)
  const parts: readonly unknown[] = content
  return {
    role: 'user',
    content: parts.map((value, j) => userPart(value, `${field}.content[${j}]`)),
  }
}

function userPart(value: unknown, field: string): UserPart {
  const part = record(value, field)
  const type = oneOf(own(part, 'type'), `${field}.type`, ['input_text', 'input_image'])
  if (type === 'input_text')
    return { type: 'text', text: string(own(part, 'text'), `${field}.text`) }
  const url = given(part, 'image_url')
  if (url === undefined && given(part, 'file_id') !== undefined)
    fail(`${field}.file_id`, 'is not supported: the relay keeps no files; send image_url')
  const image = string(url, `${field}.image_url`)
  if (!/^data:/i.test(image)) return { type: 'image', url: image }
  const match = DATA_URL.exec(image)
  if (match === null)
    fail(`${field}.image_url`, 'must be an http(s) URL or a data:image/...;base64, URL')
  return { type: 'image', mediaType: match[1]!.toLowerCase(), data: match[2]! }
}

function functionCall(item: JsonRecord, field: string): ToolCall {
  const args = string(own(item, 'arguments'), `${field}.arguments`)
  let input: unknown
  try {
    // Some providers write a call without arguments as '' rather than '{}'.
    input = args.trim() === '' ? {} : JSON.parse(args)
  } catch {
    fail(`${field}.arguments`, 'must be a JSON text')
  }
  return {
    id: string(own(item, 'call_id'), `${field}.call_id`, { nonEmpty: true }),
    name: string(own(item, 'name'), `${field}.name`),
    input,
  }
}

const TURN_FIELD = /^conversation\.turns\[(\d+)\](.*)$/s
const PART_FIELD = /^\.(?:results|toolCalls)\[(\d+)\](.*)$/s
const IMAGE_FIELD = /^\.content\[(\d+)\]\.(?:url|data|mediaType)$/

/** `/v1/chat` call options and the Responses fields they came from. */
const OPTION_FIELDS: Readonly<Record<string, string>> = {
  maxTokens: 'max_output_tokens',
  toolChoice: 'tool_choice',
  responseFormat: 'text.format',
  thinking: 'reasoning.effort',
  temperature: 'temperature',
}

/**
 * The Responses field for a field path of `validateChatRequest`: `conversation.turns[k]…` becomes
 * the input item turn `k` came from (`sources`), with the turn's field names turned back into the
 * item's (`text` → `content` of its message, `toolCalls[j].input` → `arguments` of its j-th
 * `function_call`, a tool turn's `results[j]` → its j-th `function_call_output`, `items` →
 * `encrypted_content` of its sealed reasoning item); the system prompt is `instructions`, and the
 * call options take their Responses names (`maxTokens` → `max_output_tokens`). Tools have the same
 * shape on both sides. Paths it does not know are returned as they are.
 */
export function rewriteResponsesField(field: string, sources: readonly TurnSource[]): string {
  const turn = TURN_FIELD.exec(field)
  if (turn !== null) {
    const source = sources[Number(turn[1])]
    return source === undefined || source.at < 0 ? 'input' : turnField(source, turn[2]!)
  }
  if (field === 'conversation.system') return 'instructions'
  if (field === 'conversation' || field.startsWith('conversation.')) return 'input'
  const [, option = '', rest = ''] = /^([A-Za-z]+)(.*)$/s.exec(field) ?? []
  const name = Object.hasOwn(OPTION_FIELDS, option) ? OPTION_FIELDS[option] : undefined
  if (name === undefined) return field
  return option === 'thinking' ? name : `${name}${rest}`
}

/** {@link rewriteResponsesField} for a refusal: the field, and the message that starts with it. */
export function rewriteResponsesError(
  error: { field: string; message: string },
  sources: readonly TurnSource[],
): { param: string; message: string } {
  const param = rewriteResponsesField(error.field, sources)
  const message = error.message.startsWith(error.field)
    ? `${param}${error.message.slice(error.field.length)}`
    : error.message
  return { param, message }
}

/** The field of a turn's input item for the rest of its path (`.text`, `.toolCalls[0].input`, …). */
function turnField(source: TurnSource, rest: string): string {
  const at = `input[${source.at}]`
  const part = PART_FIELD.exec(rest)
  if (part !== null) {
    const index = source.parts?.[Number(part[1])]
    if (index === undefined) return at
    const of = `input[${index}]`
    const tail = part[2]!
    if (tail === '.callId' || tail === '.id' || tail === '.name') {
      return tail === '.name' && rest.startsWith('.toolCalls') ? `${of}.name` : `${of}.call_id`
    }
    if (tail.startsWith('.output')) return `${of}.output`
    if (tail.startsWith('.input')) return `${of}.arguments`
    return of
  }
  const image = IMAGE_FIELD.exec(rest)
  if (image !== null) return `${at}.content[${image[1]}].image_url`
  if (rest === '.text') return `input[${source.text ?? source.at}].content`
  if (rest === '.thinking' || rest.startsWith('.items'))
    return `input[${source.sealed ?? source.at}].encrypted_content`
  if (rest === '.role' || rest.startsWith('.content')) return `${at}${rest}`
  return at
}
