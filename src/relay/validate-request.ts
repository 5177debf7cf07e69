import type {
  CallOptions,
  JSONSchema,
  ResponseFormat,
  Thinking,
  ToolChoice,
  ToolSpec,
} from '../core/adapter.ts'
import type { Conversation } from '../core/conversation.ts'
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
}

const FIELDS = [
  'model',
  'conversation',
  'thinking',
  'tools',
  'toolChoice',
  'maxTokens',
  'temperature',
  'responseFormat',
]
const LEVELS = ['off', 'low', 'medium', 'high', 'max'] as const
const CHOICES = ['auto', 'none', 'required'] as const
/** What Anthropic, OpenAI and Gemini all take as a tool or schema name. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/

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

function callOptions(body: JsonRecord, limits: RequestLimits): CallOptions {
  const options: CallOptions = {}
  const thinking = own(body, 'thinking')
  if (thinking !== undefined) options.thinking = thinkingOption(thinking, limits)
  const tools = own(body, 'tools')
  if (tools !== undefined) options.tools = toolsOption(tools, limits)
  const toolChoice = own(body, 'toolChoice')
  if (toolChoice !== undefined) options.toolChoice = toolChoiceOption(toolChoice, options.tools)
  const maxTokens = own(body, 'maxTokens')
  if (maxTokens !== undefined)
    options.maxTokens = integer(maxTokens, 'maxTokens', 1, limits.maxTokens)
  const temperature = own(body, 'temperature')
  if (temperature !== undefined) {
    if (typeof temperature !== 'number' || !Number.isFinite(temperature)) {
      fail('temperature', `must be a number, got ${describe(temperature)}`)
    }
    if (temperature < 0 || temperature > 2)
      fail('temperature', `must be between 0 and 2, got ${temperature}`)
    options.temperature = temperature
  }
  const responseFormat = own(body, 'responseFormat')
  if (responseFormat !== undefined)
    options.responseFormat = responseFormatOption(responseFormat, limits)
  return options
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
