import type {
  AssistantTurn,
  Conversation,
  OpaqueItems,
  Source,
  StopDetails,
  StopReason,
  ToolResult,
  ToolTurn,
  Turn,
  Usage,
  UserPart,
  UserTurn,
} from '../core/conversation.ts'
import type { ToolCall } from '../core/events.ts'
import {
  array,
  describe,
  fail,
  fields,
  integer,
  listOf,
  oneOf,
  optional,
  own,
  record,
  shallowJson,
  string,
  type JsonRecord,
} from './validate-json.ts'

/** Bounds a conversation must keep. */
export type ConversationLimits = {
  turns: number
  depth: number
  /** Most tool calls in one assistant turn. */
  toolCalls: number
  /** Most results in one tool turn. */
  toolResults: number
}

const ROLES = ['user', 'assistant', 'tool'] as const
const STOP_REASONS: readonly StopReason[] = [
  'stop',
  'length',
  'tool-calls',
  'refusal',
  'aborted',
  'other',
]
const MAX_COUNT = Number.MAX_SAFE_INTEGER
const MEDIA_TYPE = /^image\/[a-z0-9.+-]{1,40}$/
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * Checks a conversation from a client and rebuilds it from its known fields only (unknown members
 * of a turn, such as an app's own ids, are left out). `items.data`, tool inputs and tool outputs
 * pass through as the same values, never copied or re-serialized. The ids of an assistant turn's
 * tool calls may not repeat, a tool turn answers each at most once, and a conversation may not end
 * with calls no turn can answer (its last turn an assistant turn that made them); a call that the
 * next turn leaves unanswered is sent as not given (`sendableTurns`), so a chat goes on after tools
 * the app did not run. Throws `Invalid`.
 */
export function parseConversation(value: unknown, limits: ConversationLimits): Conversation {
  const input = record(value, 'conversation')
  const turnsIn = array(own(input, 'turns'), 'conversation.turns')
  if (turnsIn.length === 0) fail('conversation.turns', 'must not be empty')
  if (turnsIn.length > limits.turns) {
    fail('conversation.turns', `must hold at most ${limits.turns} turns, got ${turnsIn.length}`)
  }
  const turns: Turn[] = []
  // The calls of the last assistant turn that made any, while the tool turns after it answer them.
  let asked: Asked | undefined
  for (let i = 0; i < turnsIn.length; i++) {
    const field = `conversation.turns[${i}]`
    const turn = record(turnsIn[i], field)
    const role = own(turn, 'role')
    if (role === 'user') {
      turns.push(userTurn(turn, field))
      asked = undefined
    } else if (role === 'assistant') {
      const assistant = assistantTurn(turn, field, limits)
      turns.push(assistant)
      asked = askedBy(assistant, i)
    } else if (role === 'tool') {
      turns.push(toolTurn(turn, field, asked, limits))
    } else {
      fail(`${field}.role`, `must be ${listOf(ROLES)}, got ${describe(role)}`)
    }
  }
  if (asked?.turn === turns.length - 1) unanswered(asked)
  const conversation: Conversation = { turns }
  const system = own(input, 'system')
  // An empty system prompt is the same as none (and some providers refuse an empty one).
  if (system !== undefined) {
    const text = string(system, 'conversation.system')
    if (text !== '') conversation.system = text
  }
  return conversation
}

function userTurn(turn: JsonRecord, field: string): UserTurn {
  const content = own(turn, 'content')
  if (typeof content === 'string') {
    if (content === '') fail(`${field}.content`, 'must not be empty')
    return { role: 'user', content }
  }
  if (!Array.isArray(content)) {
    fail(`${field}.content`, `must be a string or an array of parts, got ${describe(content)}`)
  }
  if (content.length === 0) fail(`${field}.content`, 'must not be empty')
  return {
    role: 'user',
    content: content.map((part, j) => userPart(part, `${field}.content[${j}]`)),
  }
}

function userPart(value: unknown, field: string): UserPart {
  const part = record(value, field)
  const type = oneOf(own(part, 'type'), `${field}.type`, ['text', 'image'])
  if (type === 'text') {
    return { type, text: string(own(part, 'text'), `${field}.text`, { nonEmpty: true }) }
  }
  const url = own(part, 'url')
  if (url !== undefined) return { type, url: imageUrl(url, `${field}.url`) }
  const mediaType = string(own(part, 'mediaType'), `${field}.mediaType`)
  if (!MEDIA_TYPE.test(mediaType))
    fail(`${field}.mediaType`, `must be an image type, got ${describe(mediaType)}`)
  const data = string(own(part, 'data'), `${field}.data`, { nonEmpty: true })
  if (!BASE64.test(data)) fail(`${field}.data`, 'must be base64')
  return { type, mediaType, data }
}

function imageUrl(value: unknown, field: string): string {
  const url = string(value, field)
  let protocol = ''
  try {
    protocol = new URL(url).protocol
  } catch {
    fail(field, 'must be an absolute URL')
  }
  if (protocol !== 'https:' && protocol !== 'http:') fail(field, 'must be an http or https URL')
  return url
}

function assistantTurn(turn: JsonRecord, field: string, limits: ConversationLimits): AssistantTurn {
  const { depth } = limits
  const out = fields<AssistantTurn>(turn, field, {
    role: () => 'assistant',
    text: (value, at) => string(value, at),
    thinking: optional((value, at) => string(value, at)),
    toolCalls: optional((value, at) =>
      capped(array(value, at), at, limits.toolCalls, 'tool calls').map((call, j) =>
        toolCall(call, `${at}[${j}]`, depth),
      ),
    ),
    usage,
    // Hand-written turns (few-shot examples) may leave it out.
    stopReason: (value, at) => (value === undefined ? 'stop' : oneOf(value, at, STOP_REASONS)),
    stopDetails: optional((value, at) =>
      fields<StopDetails>(record(value, at), at, {
        category: optionalText,
        explanation: optionalText,
      }),
    ),
    sources: optional((value, at) =>
      array(value, at).map((source, j) =>
        fields<Source>(record(source, `${at}[${j}]`), `${at}[${j}]`, {
          url: optionalText,
          title: optionalText,
          quote: optionalText,
        }),
      ),
    ),
    items: optional((value, at) => opaqueItems(value, at, depth)),
    warnings: optional((value, at) => array(value, at).map((w, j) => string(w, `${at}[${j}]`))),
  })
  // An answer stopped before its first word is kept by `Chat` (and left out of every request).
  const empty = out.text === '' && out.toolCalls === undefined && out.items === undefined
  if (empty && out.stopReason !== 'aborted') {
    fail(
      `${field}.text`,
      "must not be empty when the turn has no toolCalls or items (unless its stopReason is 'aborted')",
    )
  }
  return out
}

const count = (value: unknown, field: string) => integer(value, field, 0, MAX_COUNT)

/** A cost in US dollars: a finite number of at least 0. */
function dollars(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(field, `must be a number of US dollars of at least 0, got ${describe(value)}`)
  }
  return value
}
const optionalText = optional((value, field) => string(value, field))

function usage(value: unknown, field: string): Usage {
  // Hand-written turns (few-shot examples) carry no usage.
  if (value === undefined) return { inputTokens: 0, outputTokens: 0 }
  return fields<Usage>(record(value, field), field, {
    inputTokens: count,
    outputTokens: count,
    reasoningTokens: optional(count),
    cacheReadTokens: optional(count),
    cacheWriteTokens: optional(count),
    cost: optional(dollars),
  })
}

function toolCall(value: unknown, field: string, depth: number): ToolCall {
  const call = record(value, field)
  if (!Object.hasOwn(call, 'input')) fail(`${field}.input`, 'is required')
  return fields<ToolCall>(call, field, {
    id: (id, at) => string(id, at, { nonEmpty: true }),
    name: (name, at) => string(name, at, { nonEmpty: true }),
    input: (input, at) => {
      shallowJson(input, at, depth)
      return input
    },
  })
}

function opaqueItems(value: unknown, field: string, depth: number): OpaqueItems {
  const items = record(value, field)
  const data = array(own(items, 'data'), `${field}.data`)
  shallowJson(data, `${field}.data`, depth)
  const out: OpaqueItems = {
    provider: string(own(items, 'provider'), `${field}.provider`, { nonEmpty: true }),
    model: string(own(items, 'model'), `${field}.model`, { nonEmpty: true }),
    thinkingMode: string(own(items, 'thinkingMode'), `${field}.thinkingMode`, { nonEmpty: true }),
    // The very array the client sent: opaque, so never rebuilt.
    data: data as unknown[],
  }
  const seal = own(items, 'seal')
  if (seal !== undefined) out.seal = string(seal, `${field}.seal`)
  return out
}

/**
 * The tool calls of one assistant turn: every call needs exactly one result, in the tool turns
 * right after it (a provider refuses a call left unanswered). Ids as sets, so matching a result
 * costs the same however many calls there are.
 */
type Asked = {
  /** The assistant turn's index in the conversation. */
  turn: number
  calls: readonly ToolCall[]
  ids: ReadonlySet<string>
  /** The ids no tool turn has answered yet. */
  open: Set<string>
}

/** The calls of assistant turn `i`, refusing an id it repeats; undefined when it makes none. */
function askedBy(assistant: AssistantTurn, i: number): Asked | undefined {
  const calls = assistant.toolCalls ?? []
  if (calls.length === 0) return undefined
  const seen = new Set<string>()
  calls.forEach(({ id }, j) => {
    if (seen.has(id)) {
      fail(
        `conversation.turns[${i}].toolCalls[${j}].id`,
        `repeats the tool call id ${describe(id)}`,
      )
    }
    seen.add(id)
  })
  return { turn: i, calls, ids: seen, open: new Set(seen) }
}

/** Refuses a conversation whose last turn is `asked`'s assistant turn: its calls have no result. */
function unanswered(asked: Asked): never {
  fail(
    `conversation.turns[${asked.turn}].toolCalls[0]`,
    `has no result: a tool turn after it must answer ${describe(asked.calls[0]!.id)}`,
  )
}

/** `list`, refused when it holds more than `limit` entries (the limit is named in the error). */
function capped<T>(list: readonly T[], field: string, limit: number, what: string): readonly T[] {
  if (list.length > limit) fail(field, `must hold at most ${limit} ${what}, got ${list.length}`)
  return list
}

function toolTurn(
  turn: JsonRecord,
  field: string,
  asked: Asked | undefined,
  limits: ConversationLimits,
): ToolTurn {
  const { depth } = limits
  if (asked === undefined) fail(field, 'must follow an assistant turn with toolCalls')
  const results = capped(
    array(own(turn, 'results'), `${field}.results`),
    `${field}.results`,
    limits.toolResults,
    'results',
  )
  if (results.length === 0) fail(`${field}.results`, 'must not be empty')
  return {
    role: 'tool',
    results: results.map((value, j) => {
      const at = `${field}.results[${j}]`
      const result = record(value, at)
      const callId = string(own(result, 'callId'), `${at}.callId`, { nonEmpty: true })
      if (!asked.ids.has(callId)) {
        fail(`${at}.callId`, `${describe(callId)} matches no tool call of the turn before`)
      }
      if (!asked.open.delete(callId))
        fail(`${at}.callId`, `${describe(callId)} is answered already`)
      if (!Object.hasOwn(result, 'output')) fail(`${at}.output`, 'is required')
      const output = result['output']
      shallowJson(output, `${at}.output`, depth)
      const out: ToolResult = {
        callId,
        name: string(own(result, 'name'), `${at}.name`, { nonEmpty: true }),
        output,
      }
      const isError = own(result, 'isError')
      if (isError !== undefined) {
        if (typeof isError !== 'boolean')
          fail(`${at}.isError`, `must be a boolean, got ${describe(isError)}`)
        out.isError = isError
      }
      return out
    }),
  }
}
