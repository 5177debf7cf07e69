/**
 * The Anthropic Messages API as an upstream: its streamed answer (named SSE events) and the rules
 * its documentation sets for a request's `messages`.
 */
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { isJson, objects, stringField, type Json, type Wire } from './wire.ts'

const event = (type: string, data: object) => sse([[type, { type, ...data }]])

const delta = (index: number, data: object) => event('content_block_delta', { index, delta: data })

/** The `message_start` of a message `id` from `model`, its content still empty. */
const messageStart = (id: string, model: string, usage: object) =>
  event('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  })

/** The tool call the answer streams. */
export const anthropicToolCall = { name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } }

/** What the answer streams as thinking and as text. */
export const anthropicStreamed = {
  thinking: 'Paris in spring → I should call get_weather. Café 🙂',
  text: 'Checking Paris → one moment 🌦️.',
}

/** An answer of one text block, `text`, from `model`: the least a Messages stream holds. */
export function anthropicTextAnswer(text: string, model = 'claude-haiku-4-5'): string {
  return [
    messageStart('msg_text', model, { input_tokens: 5, output_tokens: 1 }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    delta(0, { type: 'text_delta', text }),
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 2 },
    }),
    event('message_stop', {}),
  ].join('')
}

/** Thinking, a signature, text, and a tool call whose input arrives in pieces. */
export function anthropicAnswer(model: string): Wire {
  const events = [
    messageStart('msg_01Contract', model, {
      input_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 40,
      output_tokens: 2,
    }),
    event('content_block_start', {
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
    event('ping', {}),
    delta(0, { type: 'thinking_delta', thinking: 'Paris in spring → ' }),
    delta(0, { type: 'thinking_delta', thinking: 'I should call get_weather. Café 🙂' }),
    delta(0, { type: 'signature_delta', signature: 'EqQBCkYIContractAnthropicSignature+/==' }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    delta(1, { type: 'text_delta', text: 'Checking Paris → ' }),
    delta(1, { type: 'text_delta', text: 'one moment 🌦️.' }),
    event('content_block_stop', { index: 1 }),
    event('content_block_start', {
      index: 2,
      content_block: { type: 'tool_use', id: 'toolu_01Contract', name: 'get_weather', input: {} },
    }),
    delta(2, { type: 'input_json_delta', partial_json: '' }),
    delta(2, { type: 'input_json_delta', partial_json: '{"city": "Pa' }),
    delta(2, { type: 'input_json_delta', partial_json: 'ris", "unit": "celsius"}' }),
    event('content_block_stop', { index: 2 }),
    event('message_delta', {
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 96 },
    }),
    event('message_stop', {}),
  ]
  return { events, firstDelta: 3 }
}

/**
 * Signed thinking, then a text block the output limit cut before its first character: the turn
 * ends at `max_tokens` on an empty text block after its thinking.
 */
export function anthropicCutShort(model: string): Wire {
  const events = [
    messageStart('msg_01ContractCut', model, { input_tokens: 120, output_tokens: 2 }),
    event('content_block_start', {
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
    delta(0, { type: 'thinking_delta', thinking: 'Paris → long think 🧠' }),
    delta(0, { type: 'signature_delta', signature: 'EqQBCkYIContractCutSignature+/==' }),
    event('content_block_stop', { index: 0 }),
    event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
    event('content_block_stop', { index: 1 }),
    event('message_delta', {
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { output_tokens: 512 },
    }),
    event('message_stop', {}),
  ]
  return { events, firstDelta: 2 }
}

/** Text, then an `error` event (the API's way of failing a stream that has started). */
export function anthropicFailure(model: string): Wire {
  const start = anthropicAnswer(model).events[0]!
  const events = [
    start,
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    delta(0, { type: 'text_delta', text: 'Partial answ€r' }),
    event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
  ]
  return { events, firstDelta: 2 }
}

/** The thinking signatures of a turn: they reach a request only when its items are replayed. */
export function anthropicMarkers(turn: AssistantTurn): string[] {
  return objects(turn.items?.data).flatMap((block) => {
    const signature = stringField(block, 'signature')
    return signature === undefined ? [] : [signature]
  })
}

/**
 * What the Messages API refuses in `messages`: a first message that is not the user's, roles that
 * do not alternate, empty content, a text block with empty text ("text content blocks must be
 * non-empty"), a `tool_result` that does not answer a `tool_use` of the assistant message just
 * before it (or that comes after other content), a `tool_use` left unanswered by the next message,
 * a server tool call without its result in a message before the last, a tool id outside
 * `[a-zA-Z0-9_-]`, a thinking block without its signature, an assistant message before the last
 * that ends with a thinking block, and reasoning or tool use in a user message.
 */
export function anthropicRequestProblems(body: unknown): string[] {
  if (!isJson(body) || !Array.isArray(body['messages'])) return ['the body has no messages list']
  const messages = objects(body['messages'])
  const problems: string[] = cacheProblems(body, messages)
  const blocksOf = (message: Json | undefined) => objects(message?.['content'])
  messages.forEach((message, i) => {
    const at = `messages[${i}]`
    const role = message['role']
    if (role !== 'user' && role !== 'assistant') problems.push(`${at}.role is ${String(role)}`)
    if (i === 0 && role !== 'user') problems.push(`${at} must be the user's`)
    if (i > 0 && role === messages[i - 1]!['role']) problems.push(`${at} repeats role ${role}`)
    const content = message['content']
    if (content === '' || (Array.isArray(content) && content.length === 0))
      problems.push(`${at} has empty content`)
    if (typeof content === 'string') return
    const blocks = blocksOf(message)
    const before = messages[i - 1]
    const uses = new Set(
      blocksOf(before).flatMap((b) => (b['type'] === 'tool_use' ? [b['id']] : [])),
    )
    let seenOther = false
    blocks.forEach((block, j) => {
      const where = `${at}.content[${j}]`
      const type = block['type']
      if (role === 'user' && ['thinking', 'redacted_thinking', 'tool_use'].includes(String(type)))
        problems.push(`${where} is a ${String(type)} block in a user message`)
      if (type === 'thinking' && !(typeof block['signature'] === 'string' && block['signature']))
        problems.push(`${where} is a thinking block without a signature`)
      if (type === 'text' && block['text'] === '') problems.push(`${where} is an empty text block`)
      if (type === 'tool_use' && !/^[a-zA-Z0-9_-]+$/.test(String(block['id'])))
        problems.push(`${where} has tool_use id ${String(block['id'])}`)
      if (type === 'tool_result') {
        if (before?.['role'] !== 'assistant' || !uses.has(block['tool_use_id']))
          problems.push(
            `${where} answers ${String(block['tool_use_id'])}, no tool_use of the message before`,
          )
        if (seenOther) problems.push(`${where}: tool_result blocks must come first`)
      } else seenOther = true
    })
    // Only the last message may end on its thinking: a paused turn, continued.
    const last = blocks.at(-1)?.['type']
    if (
      role === 'assistant' &&
      i + 1 < messages.length &&
      (last === 'thinking' || last === 'redacted_thinking')
    )
      problems.push(`${at} ends with a ${String(last)} block`)
    if (role === 'assistant') {
      const answered = new Set(
        blocksOf(messages[i + 1]).flatMap((b) =>
          b['type'] === 'tool_result' ? [b['tool_use_id']] : [],
        ),
      )
      const served = new Set<unknown>(blocks.map((b) => b['tool_use_id']))
      for (const block of blocks) {
        if (block['type'] === 'tool_use' && i + 1 < messages.length && !answered.has(block['id']))
          problems.push(`${at}: tool_use ${String(block['id'])} has no tool_result after it`)
        // A server tool's result is a block of the same message; only the last message, the
        // paused turn being continued, may end without it.
        const server = block['type'] === 'server_tool_use' || block['type'] === 'mcp_tool_use'
        if (server && i + 1 < messages.length && !served.has(block['id']))
          problems.push(`${at}: ${String(block['type'])} ${String(block['id'])} has no result`)
      }
    }
  })
  return problems
}

/**
 * What the API refuses in `cache_control` marks: more than four in a request, and a one-hour mark
 * after a five-minute one in the order it reads them (tools, system, messages).
 */
function cacheProblems(body: Json, messages: Json[]): string[] {
  const system = body['system']
  const blocks = [
    ...objects(body['tools']),
    ...(Array.isArray(system) ? objects(system) : []),
    ...messages.flatMap((message) => objects(message['content'])),
  ]
  const ttls = blocks.flatMap((block) => {
    const mark = block['cache_control']
    return isJson(mark) ? [mark['ttl'] === '1h' ? '1h' : '5m'] : []
  })
  const problems: string[] = []
  if (ttls.length > 4) problems.push(`${ttls.length} cache_control marks, 4 at most`)
  if (/5m.*1h/.test(ttls.join(' ')))
    problems.push('a one-hour cache_control mark after a five-minute one')
  return problems
}
