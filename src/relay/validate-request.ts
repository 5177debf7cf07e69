import type {
  CacheOptions,
  CallOptions,
  JSONSchema,
  ResponseFormat,
  Thinking,
  ToolChoice,
  ToolSpec,
} from '../core/adapter.ts'
import type { Conversation } from '../core/conversation.ts'
import type { FieldTable, WireCallOptions } from '../core/wire.ts'
import { parseConversation } from './validate-conversation.ts'
import {
  array,
  describe,
  fail,
  integer,
  isRecord,
  listOf,
  oneOf,
  own,
  record,
  shallowJson,
  string,
  validation,
  type JsonRecord,
  type Validation,
} from './validate-json.ts'

/** A checked `POST /v1/chat` body. */
export type ChatRequest = {
  /** `"provider/model"` */
  model: string
  conversation: Conversation
  /** The call options the client chose (never `signal`, `providerOptions` or timeouts). */
  options: CallOptions
}

/** Bounds a request must keep. */
export type RequestLimits = {
  turns: number
  tools: number
  maxTokens: number
  depth: number
  toolCalls: number
  toolResults: number
}

const LEVELS = ['off', 'low', 'medium', 'high', 'max'] as const
const CHOICES = ['auto', 'none', 'required'] as const
/** What Anthropic, OpenAI and Gemini all take as a tool or schema name. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/

type OptionParser = (value: unknown, limits: RequestLimits, options: WireCallOptions) => void

/** One parser per call option of the wire format: a new option does not compile until it is here. */
const OPTIONS: FieldTable<WireCallOptions, OptionParser> = {
  thinking: (value, limits, options) => (options.thinking = thinkingOption(value, limits)),
  tools: (value, limits, options) => (options.tools = toolsOption(value, limits)),
  // After tools (the table keeps its order): a named choice must name one of them.
  toolChoice: (value, _, options) => (options.toolChoice = toolChoiceOption(value, options.tools)),
  maxTokens: (value, limits, options) =>
    (options.maxTokens = integer(value, 'maxTokens', 1, limits.maxTokens)),
  temperature: (value, _, options) => (options.temperature = temperatureOption(value)),
  stop: (value, _, options) => (options.stop = stopOption(value)),
  responseFormat: (value, limits, options) =>
    (options.responseFormat = responseFormatOption(value, limits)),
  cache: (value, _, options) => (options.cache = cacheOption(value)),
}

/** The parsers of {@link OPTIONS} by name, in table order: listed once, not at every request. */
const OPTION_PARSERS = Object.entries(OPTIONS)

/** Every field of `POST /v1/chat`. */
const FIELDS: readonly string[] = ['model', 'conversation', ...Object.keys(OPTIONS)]

/**
 * Checks a `POST /v1/chat` body field by field and rebuilds it from known fields. Unknown
 * top-level fields are refused (a misspelt `max_tokens` should not pass silently), and so is
 * `providerOptions`: a client must not reach provider settings such as a base URL.
 */
export function validateChatRequest(body: unknown, limits: RequestLimits): Validation<ChatRequest> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    for (const key of Object.keys(body)) {
      if (key === 'providerOptions') fail(key, 'is not accepted from clients')
      if (!FIELDS.includes(key))
        fail(describe(key).slice(1, -1), `is not a known field (known: ${FIELDS.join(', ')})`)
    }
    const model = string(own(body, 'model'), 'model', { nonEmpty: true })
    if (model.length > 200) fail('model', 'must be at most 200 characters')
    const conversation = parseConversation(own(body, 'conversation'), limits)
    return { model, conversation, options: callOptions(body, limits) }
  })
}

/** The call options of a request: each option a client may send, parsed in table order. */
function callOptions(body: JsonRecord, limits: RequestLimits): CallOptions {
  const options: WireCallOptions = {}
  // Not destructured: a pattern takes an iterator of each pair until the loop is optimized.
  for (const option of OPTION_PARSERS) {
    const value = own(body, option[0])
    if (value !== undefined) option[1](value, limits, options)
  }
  return options
}

/** Stop sequences a request may hold, and their length: more than any provider takes. */
const MAX_STOP = 16
const MAX_STOP_CHARS = 200
/** A cache key: what OpenAI takes as `prompt_cache_key`, kept short and plain. */
const CACHE_KEY = /^[A-Za-z0-9_.:-]{1,64}$/
const TTLS = ['5m', '1h'] as const

function stopOption(value: unknown): string[] {
  const list = array(value, 'stop')
  if (list.length > MAX_STOP)
    fail('stop', `must hold at most ${MAX_STOP} sequences, got ${list.length}`)
  return list.map((item, i) => {
    const sequence = string(item, `stop[${i}]`, { nonEmpty: true })
    if (sequence.length > MAX_STOP_CHARS)
      fail(`stop[${i}]`, `must be at most ${MAX_STOP_CHARS} characters`)
    return sequence
  })
}

function cacheOption(value: unknown): CacheOptions {
  if (typeof value === 'boolean') return value
  if (!isRecord(value))
    fail('cache', `must be true, false or { key?, ttl? }, got ${describe(value)}`)
  const out: Exclude<CacheOptions, boolean> = {}
  for (const key of Object.keys(value)) {
    if (key !== 'key' && key !== 'ttl')
      fail(`cache.${describe(key).slice(1, -1)}`, 'is not a known field (known: key, ttl)')
  }
  const cacheKey = own(value, 'key')
  if (cacheKey !== undefined) {
    out.key = string(cacheKey, 'cache.key')
    if (!CACHE_KEY.test(out.key))
      fail('cache.key', `must match ${CACHE_KEY.source}, got ${describe(cacheKey)}`)
  }
  const ttl = own(value, 'ttl')
  if (ttl !== undefined) out.ttl = oneOf(ttl, 'cache.ttl', TTLS)
  return out
}

function temperatureOption(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail('temperature', `must be a number, got ${describe(value)}`)
  }
  if (value < 0 || value > 2) fail('temperature', `must be between 0 and 2, got ${value}`)
  return value
}

function thinkingOption(value: unknown, limits: RequestLimits): Thinking {
  if (isRecord(value)) {
    return {
      budgetTokens: integer(
        own(value, 'budgetTokens'),
        'thinking.budgetTokens',
        1,
        limits.maxTokens,
      ),
    }
  }
  if (typeof value !== 'string') {
    fail('thinking', `must be ${listOf(LEVELS)} or { budgetTokens }, got ${describe(value)}`)
  }
  return oneOf(value, 'thinking', LEVELS)
}

function toolsOption(value: unknown, limits: RequestLimits): ToolSpec[] {
  const list = array(value, 'tools')
  if (list.length > limits.tools)
    fail('tools', `must hold at most ${limits.tools} tools, got ${list.length}`)
  const names = new Set<string>()
  return list.map((item, i) => {
    const field = `tools[${i}]`
    const tool = record(item, field)
    const name = string(own(tool, 'name'), `${field}.name`)
    if (!NAME.test(name)) fail(`${field}.name`, `must match ${NAME.source}, got ${describe(name)}`)
    if (names.has(name)) fail(`${field}.name`, `repeats the tool name '${name}'`)
    names.add(name)
    const spec: ToolSpec = {
      name,
      parameters: schema(own(tool, 'parameters'), `${field}.parameters`, limits),
    }
    const description = own(tool, 'description')
    if (description !== undefined) spec.description = string(description, `${field}.description`)
    return spec
  })
}

function toolChoiceOption(value: unknown, tools: ToolSpec[] | undefined): ToolChoice {
  if (isRecord(value)) {
    const name = string(own(value, 'name'), 'toolChoice.name')
    if (!tools?.some((tool) => tool.name === name)) {
      fail('toolChoice.name', `${describe(name)} names no tool in tools`)
    }
    return { name }
  }
  if (typeof value !== 'string')
    fail('toolChoice', `must be ${listOf(CHOICES)} or { name }, got ${describe(value)}`)
  const choice = oneOf(value, 'toolChoice', CHOICES)
  if (choice === 'required' && (tools === undefined || tools.length === 0)) {
    fail('toolChoice', "'required' needs tools")
  }
  return choice
}

function responseFormatOption(value: unknown, limits: RequestLimits): ResponseFormat {
  const format = record(value, 'responseFormat')
  const out: ResponseFormat = { type: oneOf(own(format, 'type'), 'responseFormat.type', ['json']) }
  const shape = own(format, 'schema')
  if (shape !== undefined) out.schema = schema(shape, 'responseFormat.schema', limits)
  const name = own(format, 'name')
  if (name !== undefined) {
    out.name = string(name, 'responseFormat.name')
    if (!NAME.test(out.name))
      fail('responseFormat.name', `must match ${NAME.source}, got ${describe(name)}`)
  }
  return out
}

/** A JSON Schema of an object, passed through as the client sent it. */
function schema(value: unknown, field: string, limits: RequestLimits): JSONSchema {
  const out = record(value, field)
  const type = own(out, 'type')
  if (type !== undefined && type !== 'object')
    fail(`${field}.type`, `must be 'object', got ${describe(type)}`)
  shallowJson(out, field, limits.depth)
  return out as JSONSchema
}
