import type { ToolSpec } from '../../core/adapter.ts'
import type {
  AssistantTurn,
  ToolResult,
  ToolTurn,
  Turn,
  UserPart,
} from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import type { Translation } from '../dialects.ts'
import * as v from '../validate-json.ts'
import { sealedTurnFor } from '../sealed-turn.ts'
import { responseFormatOf, thinkingOf, toolChoiceOf } from './openai-options.ts'
import { decodeReasoningDetails, findReasoningEntry } from './reasoning-details.ts'
import {
  argumentsOf,
  calledName,
  flag,
  given,
  imageOfUrl,
  number,
  plainTurn,
  textContent,
  toolSpecOf,
  userContent,
} from '../request-parts.ts'
import { fieldUses, requestTranslator, type Refusal } from '../request-translator.ts'

/**
 * Every field of OpenAI's `ChatCompletionCreateParams` (openai 6.49), for `checkFields`: the ones
 * the relay maps, and the ones real clients send that it accepts and ignores. (The tests check
 * this list against the SDK's type.)
 */
export const COMPLETION_FIELDS = fieldUses({
  mapped: [
    'messages',
    'model',
    'tools',
    'tool_choice',
    'max_tokens',
    'max_completion_tokens',
    'temperature',
    'stop',
    'response_format',
    'reasoning_effort',
    'stream',
    'stream_options',
    'n',
  ],
  ignored: [
    'audio',
    'frequency_penalty',
    'function_call',
    'functions',
    'logit_bias',
    'logprobs',
    'metadata',
    'modalities',
    'moderation',
    'parallel_tool_calls',
    'prediction',
    'presence_penalty',
    'prompt_cache_key',
    'prompt_cache_options',
    'prompt_cache_retention',
    'safety_identifier',
    'seed',
    'service_tier',
    'store',
    'top_logprobs',
    'top_p',
    'user',
    'verbosity',
    'web_search_options',
  ],
})

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const

/** A Chat Completions request, translated into a `/v1/chat` body. */
export type TranslatedRequest = Translation & {
  /** `stream_options.include_usage`. */
  includeUsage: boolean
  /** `messageOfTurn[k]`: the index in `messages` of the message turn `k` came from. */
  messageOfTurn: number[]
}

/**
 * Translates a Chat Completions request (`POST /v1/chat/completions`) as every dialect does (see
 * `Translation`). An assistant message whose `reasoning_details` holds the record the relay sent
 * (see `encodeReasoningDetails`) becomes that turn, items and seal included, when the record's
 * text and tool calls are the message's; otherwise the turn is built from the message and a note
 * says why its reasoning state was dropped.
 */
export const translateCompletionRequest: (body: unknown) => TranslatedRequest | Refusal =
  requestTranslator({ name: 'the Chat Completions API', fields: COMPLETION_FIELDS }, translate)

function translate(body: v.JsonRecord): TranslatedRequest {
  const n = given(body, 'n')
  if (n !== undefined && n !== 1) v.fail('n', 'must be 1: the relay makes one answer per request')

  const model = v.string(v.own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const { system, turns, messageOfTurn } = translateMessages(v.own(body, 'messages'), notes)
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
  const options = v.record(value, 'stream_options')
  return flag(given(options, 'include_usage'), 'stream_options.include_usage') === true
}

function callOptions(body: v.JsonRecord): WireCallOptions {
  const options: WireCallOptions = {}
  const tools = given(body, 'tools')
  if (tools !== undefined) options.tools = v.array(tools, 'tools').map(toolSpec)
  const choice = given(body, 'tool_choice')
  if (choice !== undefined) options.toolChoice = toolChoiceOf(choice, 'function')
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
      typeof stop === 'string'
        ? [stop]
        : v.array(stop, 'stop').map((s, i) => v.string(s, `stop[${i}]`))
  }
  const format = given(body, 'response_format')
  if (format !== undefined) {
    const responseFormat = responseFormatOf(format, 'response_format', 'json_schema')
    if (responseFormat !== undefined) options.responseFormat = responseFormat
  }
  const effort = given(body, 'reasoning_effort')
  if (effort !== undefined) options.thinking = thinkingOf(effort, 'reasoning_effort')
  return options
}

function toolSpec(value: unknown, i: number): ToolSpec {
  const field = `tools[${i}]`
  const tool = v.record(value, field)
  v.oneOf(v.own(tool, 'type'), `${field}.type`, ['function'])
  const fn = v.record(v.own(tool, 'function'), `${field}.function`)
  return toolSpecOf(fn, `${field}.function`, { key: 'parameters', optional: true })
}

/** What `messages` becomes. */
type Translated = { system: string; turns: Turn[]; messageOfTurn: number[] }

function translateMessages(value: unknown, notes: string[]): Translated {
  const messages = v.array(value, 'messages')
  const system: string[] = []
  const turns: Turn[] = []
  const messageOfTurn: number[] = []
  // Every earlier call, by id: a tool message names its call only by id, a tool result also by name.
  const calls = new Map<string, string>()
  let toolTurn: ToolTurn | undefined
  for (let i = 0; i < messages.length; i++) {
    const field = `messages[${i}]`
    const message = v.record(messages[i], field)
    const role = v.oneOf(v.own(message, 'role'), `${field}.role`, ROLES)
    if (role !== 'tool') toolTurn = undefined
    switch (role) {
      case 'system':
      case 'developer': {
        const text = textContent(v.own(message, 'content'), `${field}.content`, ['text'])
        if (text !== '') system.push(text)
        break
      }
      case 'user':
        turns.push(userContent(v.own(message, 'content'), `${field}.content`, userPart))
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

function userPart(value: unknown, field: string): UserPart {
  const part = v.record(value, field)
  const type = v.oneOf(v.own(part, 'type'), `${field}.type`, ['text', 'image_url'])
  if (type === 'text') return { type, text: v.string(v.own(part, 'text'), `${field}.text`) }
  const image = v.record(v.own(part, 'image_url'), `${field}.image_url`)
  return imageOfUrl(
    v.string(v.own(image, 'url'), `${field}.image_url.url`),
    `${field}.image_url.url`,
  )
}

function assistantTurn(message: v.JsonRecord, field: string, notes: string[]): AssistantTurn {
  const text = textContent(v.own(message, 'content'), `${field}.content`, ['text', 'refusal'])
  const callsIn = given(message, 'tool_calls')
  const toolCalls =
    callsIn === undefined
      ? []
      : v
          .array(callsIn, `${field}.tool_calls`)
          .map((call, j) => toolCall(call, `${field}.tool_calls[${j}]`))
  const plain = plainTurn(text, toolCalls)

  const details = given(message, 'reasoning_details')
  if (details === undefined) return plain
  const dropped = (reason: string) => {
    notes.push(`${field}.reasoning_details dropped: ${reason}`)
    return plain
  }
  if (findReasoningEntry(details) === undefined) return dropped('it holds no thinkwire-v1 entry')
  const sealed = decodeReasoningDetails(details)
  if (sealed === undefined) return dropped('its thinkwire-v1 entry does not decode')
  const kept = sealedTurnFor(sealed, plain, {
    text: `${field}.content`,
    toolCalls: `${field}.tool_calls`,
  })
  return kept.ok ? kept.turn : dropped(kept.reason)
}

function toolCall(value: unknown, field: string): ToolCall {
  const call = v.record(value, field)
  v.oneOf(v.own(call, 'type') ?? 'function', `${field}.type`, ['function'])
  const fn = v.record(v.own(call, 'function'), `${field}.function`)
  const at = `${field}.function.arguments`
  return {
    id: v.string(v.own(call, 'id'), `${field}.id`, { nonEmpty: true }),
    name: v.string(v.own(fn, 'name'), `${field}.function.name`),
    input: argumentsOf(v.string(v.own(fn, 'arguments'), at), at),
  }
}

function toolResult(message: v.JsonRecord, field: string, calls: Map<string, string>): ToolResult {
  const callId = v.string(v.own(message, 'tool_call_id'), `${field}.tool_call_id`, {
    nonEmpty: true,
  })
  const at = `${field}.tool_call_id`
  const name = calledName(calls, callId, at, 'tool call of an earlier message')
  const output = textContent(v.own(message, 'content'), `${field}.content`, ['text'])
  return { callId, name, output }
}
