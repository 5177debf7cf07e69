import type { CacheOptions } from '../../core/adapter.ts'
import type { AssistantTurn, ToolResult, Turn, UserPart } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import { sealedTurnFor } from '../sealed-turn.ts'
import { calledName, flag, plainTurn, stringOrParts } from '../request-parts.ts'
import * as v from '../validate-json.ts'
import { isSealedSignature, sealedRecordOf } from './sealed-block.ts'

/** Where a turn of the translated conversation came from, to name a fault in the client's terms. */
export type TurnSource = {
  /** The index in `messages` of the message the turn came from. */
  message: number
  /**
   * For each part (user turn), result (tool turn) or tool call (assistant turn), the index in the
   * message's `content` of the block it came from; empty when the content was a string.
   */
  blocks: number[]
  /** The index of the block that held the sealed turn an assistant turn was rebuilt from. */
  sealed?: number | undefined
}

/** What `messages` becomes. */
export type TranslatedMessages = {
  /** The texts of `system` messages, in order. */
  system: string[]
  turns: Turn[]
  /** `sources[k]`: where `turns[k]` came from. */
  sources: TurnSource[]
}

/** A prompt-caching mark of a block or of the request: the first one found says how to cache. */
export type CacheMarks = { cache?: CacheOptions | undefined }

const ROLES = ['user', 'assistant', 'system'] as const
const USER_BLOCKS = ['text', 'image', 'tool_result'] as const
const ASSISTANT_BLOCKS = ['text', 'thinking', 'redacted_thinking', 'tool_use'] as const
const TTLS = ['5m', '1h'] as const

/**
 * Translates the Messages API's `messages` into turns. A user message becomes a tool turn of its
 * `tool_result` blocks (each naming a `tool_use` of an earlier message), then a user turn of its
 * text and image blocks; an assistant message becomes a turn of its text and `tool_use` blocks,
 * and `system` messages join the system prompt. An assistant message that holds the sealed block
 * this relay wrote (a thinking block whose signature is the sealed turn, in any position) becomes
 * exactly that turn, items and seal included, when its text and tool calls are the message's;
 * otherwise the turn is built from the message and a note says why its reasoning state was
 * dropped. Other thinking and redacted thinking blocks are display: never sent upstream. Throws
 * `Invalid` naming the field in Anthropic's terms.
 */
export function translateMessages(
  value: unknown,
  notes: string[],
  marks: CacheMarks,
): TranslatedMessages {
  const messages = v.array(value, 'messages')
  const out: TranslatedMessages = { system: [], turns: [], sources: [] }
  // Every earlier call, by id: a tool result names its call only by id, a tool turn also by name.
  const calls = new Map<string, string>()
  for (let i = 0; i < messages.length; i++) {
    const field = `messages[${i}]`
    const message = v.record(messages[i], field)
    const role = v.oneOf(v.own(message, 'role'), `${field}.role`, ROLES)
    const content = v.own(message, 'content')
    switch (role) {
      case 'system':
        out.system.push(systemText(content, `${field}.content`, marks))
        break
      case 'user':
        for (const [turn, source] of userTurns(content, i, calls, marks)) {
          out.turns.push(turn)
          out.sources.push(source)
        }
        break
      case 'assistant': {
        const { turn, source } = assistantTurn(content, i, notes, marks)
        for (const call of turn.toolCalls ?? []) calls.set(call.id, call.name)
        out.turns.push(turn)
        out.sources.push(source)
        break
      }
    }
  }
  return out
}

/**
 * The text of a system prompt: a string, or text blocks joined a paragraph apart (the
 * conversation holds one system prompt).
 */
export function systemText(value: unknown, field: string, marks: CacheMarks): string {
  if (typeof value === 'string') return value
  const blocks = v.array(value, field)
  return blocks
    .map((item, j) => {
      const block = blockOf(item, `${field}[${j}]`, ['text'], marks)
      return v.string(v.own(block, 'text'), `${field}[${j}].text`)
    })
    .join('\n\n')
}

/**
 * Reads the `cache_control` of a block or of the request (absent or null: none) into `marks`.
 * Anthropic's only kind is `ephemeral`, with a `ttl` of `5m` or `1h`.
 */
export function cacheMark(value: unknown, field: string, marks: CacheMarks): void {
  if (value === undefined || value === null) return
  const mark = v.record(value, field)
  v.oneOf(v.own(mark, 'type'), `${field}.type`, ['ephemeral'])
  const ttl = v.own(mark, 'ttl')
  const cache: CacheOptions = ttl === undefined ? true : { ttl: v.oneOf(ttl, `${field}.ttl`, TTLS) }
  marks.cache ??= cache
}

/** A block of one of `types`, its cache mark read. */
function blockOf(
  value: unknown,
  field: string,
  types: readonly string[],
  marks: CacheMarks,
): v.JsonRecord {
  const block = v.record(value, field)
  const type = v.own(block, 'type')
  if (typeof type !== 'string' || !types.includes(type)) {
    v.fail(
      `${field}.type`,
      `must be ${v.listOf(types)}, got ${v.describe(type)} (the relay serves no server tools, documents or files)`,
    )
  }
  cacheMark(v.own(block, 'cache_control'), `${field}.cache_control`, marks)
  return block
}

/** A user message's tool turn (its results), then its user turn (its other blocks), if any. */
function userTurns(
  content: unknown,
  i: number,
  calls: ReadonlyMap<string, string>,
  marks: CacheMarks,
): [Turn, TurnSource][] {
  const field = `messages[${i}].content`
  const blocks = stringOrParts(content, field, 'content blocks')
  if (typeof blocks === 'string')
    return [
      [
        { role: 'user', content: blocks },
        { message: i, blocks: [] },
      ],
    ]
  const results: ToolResult[] = []
  const resultBlocks: number[] = []
  const parts: UserPart[] = []
  const partBlocks: number[] = []
  blocks.forEach((item, j) => {
    const at = `${field}[${j}]`
    const block = blockOf(item, at, USER_BLOCKS, marks)
    if (v.own(block, 'type') === 'tool_result') {
      results.push(toolResult(block, at, calls))
      resultBlocks.push(j)
    } else {
      parts.push(userPart(block, at))
      partBlocks.push(j)
    }
  })
  const out: [Turn, TurnSource][] = []
  if (results.length > 0)
    out.push([
      { role: 'tool', results },
      { message: i, blocks: resultBlocks },
    ])
  // A message of only tool results has no user turn; an empty one is the relay's to refuse.
  if (parts.length > 0 || results.length === 0)
    out.push([
      { role: 'user', content: parts },
      { message: i, blocks: partBlocks },
    ])
  return out
}

function userPart(block: v.JsonRecord, field: string): UserPart {
  if (v.own(block, 'type') === 'text')
    return { type: 'text', text: v.string(v.own(block, 'text'), `${field}.text`) }
  const source = v.record(v.own(block, 'source'), `${field}.source`)
  const type = v.oneOf(v.own(source, 'type'), `${field}.source.type`, ['base64', 'url'])
  if (type === 'url')
    return { type: 'image', url: v.string(v.own(source, 'url'), `${field}.source.url`) }
  return {
    type: 'image',
    mediaType: v.string(v.own(source, 'media_type'), `${field}.source.media_type`),
    data: v.string(v.own(source, 'data'), `${field}.source.data`),
  }
}

function toolResult(
  block: v.JsonRecord,
  field: string,
  calls: ReadonlyMap<string, string>,
): ToolResult {
  const callId = v.string(v.own(block, 'tool_use_id'), `${field}.tool_use_id`, { nonEmpty: true })
  const at = `${field}.tool_use_id`
  const name = calledName(calls, callId, at, 'tool_use of an earlier message')
  const result: ToolResult = { callId, name, output: resultText(v.own(block, 'content'), field) }
  const isError = flag(v.own(block, 'is_error'), `${field}.is_error`)
  if (isError !== undefined) result.isError = isError
  return result
}

/** A tool result's content as text: a string, or its text blocks a line apart; absent is none. */
function resultText(value: unknown, field: string): string {
  if (value === undefined) return ''
  if (typeof value === 'string') return value
  const blocks = v.array(value, `${field}.content`)
  return blocks
    .map((item, k) => {
      const at = `${field}.content[${k}]`
      const block = v.record(item, at)
      // Tool results go to every provider as text: an image in one has nowhere to go.
      v.oneOf(v.own(block, 'type'), `${at}.type`, ['text'])
      return v.string(v.own(block, 'text'), `${at}.text`)
    })
    .join('\n')
}

function assistantTurn(
  content: unknown,
  i: number,
  notes: string[],
  marks: CacheMarks,
): { turn: AssistantTurn; source: TurnSource } {
  const field = `messages[${i}].content`
  const source: TurnSource = { message: i, blocks: [] }
  let text = ''
  const toolCalls: ToolCall[] = []
  let sealed: { at: number; signature: string } | undefined
  const blocks = stringOrParts(content, field, 'content blocks')
  if (typeof blocks === 'string') text = blocks
  else {
    blocks.forEach((item, j) => {
      const at = `${field}[${j}]`
      const block = blockOf(item, at, ASSISTANT_BLOCKS, marks)
      switch (v.own(block, 'type')) {
        case 'text':
          text += v.string(v.own(block, 'text'), `${at}.text`)
          break
        case 'thinking': {
          v.string(v.own(block, 'thinking'), `${at}.thinking`)
          const signature = v.own(block, 'signature')
          if (signature !== undefined) v.string(signature, `${at}.signature`)
          if (isSealedSignature(signature)) sealed ??= { at: j, signature }
          break
        }
        case 'redacted_thinking':
          v.string(v.own(block, 'data'), `${at}.data`)
          break
        case 'tool_use':
          toolCalls.push(toolUse(block, at))
          source.blocks.push(j)
          break
      }
    })
  }
  const plain = plainTurn(text, toolCalls)
  if (sealed === undefined) return { turn: plain, source }

  const { at, signature } = sealed
  const dropped = (reason: string) => {
    notes.push(`${field}[${at}].signature dropped: ${reason}`)
    return { turn: plain, source }
  }
  const kept = sealedRecordOf(signature)
  if (kept === undefined) return dropped('it does not decode to a sealed turn')
  const turn = sealedTurnFor(kept, plain, {
    text: `the text blocks of ${field}`,
    toolCalls: `the tool_use blocks of ${field}`,
  })
  if (!turn.ok) return dropped(turn.reason)
  return { turn: turn.turn, source: { ...source, sealed: at } }
}

function toolUse(block: v.JsonRecord, field: string): ToolCall {
  if (!Object.hasOwn(block, 'input')) v.fail(`${field}.input`, 'is required')
  return {
    id: v.string(v.own(block, 'id'), `${field}.id`, { nonEmpty: true }),
    name: v.string(v.own(block, 'name'), `${field}.name`, { nonEmpty: true }),
    input: block['input'],
  }
}
