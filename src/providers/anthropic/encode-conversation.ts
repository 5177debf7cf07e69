import type {
  AssistantMessageParam,
  ContentBlockParam,
  ImageBlockParam,
  MessageContentParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
  UserMessageParam,
} from '@anthropic-ai/sdk/resources/messages'
import type { AssistantTurn, ToolTurn, Turn, UserTurn } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import { isRecord } from '../../kit/json.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'
import { CONTAINER_RECORD } from './map-finish.ts'
import { replayableBlocks } from './replayable-blocks.ts'

/** A user or assistant message. */
export type MessageParam = UserMessageParam | AssistantMessageParam

/** The `messages` of a request, and what the adapter needs to know about them. */
export type EncodedConversation = {
  messages: MessageParam[]
  /** Some replayed turn still carries `thinking` or `redacted_thinking` blocks. */
  replayedThinking: boolean
  /**
   * The conversation ends in an open tool loop (an assistant turn followed only by tool results)
   * whose assistant turn was re-encoded, so it has no thinking block to start with.
   */
  openLoopWithoutThinking: boolean
  /**
   * The container (its id) of the turn being continued: the last assistant turn, replayed, when
   * nothing but tool results follows it (a paused turn, or a call from code execution).
   */
  container: string | undefined
  /** Server tool calls left out: a paused turn that was not continued ended with them. */
  unfinished: string[]
}

type Encoded = {
  message: MessageParam | undefined
  thinking: boolean
  /** Index of the turn in the conversation. */
  index: number
  /** The container id a replayed turn's items hold. */
  container?: string | undefined
}

/**
 * Encodes turns as Anthropic `messages`. A turn of this provider, model and thinking mode goes
 * back as its stored content blocks, in order (without `thinking` blocks when `stripThinking`, and
 * without what the API refuses back: see {@link replayableBlocks}); any other assistant turn
 * becomes text plus `tool_use` blocks; tool results become `tool_result` blocks in a user message.
 * Consecutive messages of one role are merged, and empty ones dropped, as the API requires. A
 * conversation that ends with an assistant turn sends it last, as it is: that is how the API
 * continues a turn it paused (`pause_turn`). A paused turn that was not continued (a user message
 * follows it) goes without the server tool calls it ended with, which have no result: the API
 * would refuse them.
 *
 * A refused turn (`stopReason: 'refusal'`) is left out, with the results of any calls it made: the
 * API asks that the refused turn not be sent again, and refuses on while it is. A replayed turn
 * that holds a signed `compaction` block (the answer to a request with `compaction`) stands for
 * every turn before it, which are left out: the block must come first.
 */
export function encodeConversation(
  turns: readonly Turn[],
  tag: ReplayTag,
  stripThinking = false,
): EncodedConversation {
  const refusedCalls = new Set<string>()
  const all = encodeTurns<Encoded>(turns, tag, {
    user: (turn, index) => ({
      message: { role: 'user', content: userContent(turn, index) },
      thinking: false,
      index,
    }),
    tool: (turn, index) => {
      const results = turn.results.filter((result) => !refusedCalls.has(result.callId))
      return {
        message: { role: 'user', content: toolResults({ role: 'tool', results }) },
        thinking: false,
        index,
      }
    },
    replay: (items, turn, index) =>
      refused(turn, index, refusedCalls) ?? replayBlocks(items.data, turn, stripThinking, index),
    reencode: (turn, index) =>
      refused(turn, index, refusedCalls) ?? { message: reencode(turn), thinking: false, index },
  })
  // A signed compaction block stands for every turn before it: the API wants it first.
  const compacted = all.findLastIndex(({ message }) => compacts(message))
  const encoded = compacted > 0 ? all.slice(compacted) : all

  let replayedThinking = false
  for (const { thinking } of encoded) replayedThinking ||= thinking
  const unfinished: string[] = []
  const messages = merged(encoded.map((entry) => entry.message))
  // Every assistant message but the last, which may be the paused turn being continued.
  for (const [i, message] of messages.slice(0, -1).entries()) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      const content = withoutUnfinishedCalls(message.content, unfinished)
      if (content.length < message.content.length) messages[i] = { role: 'assistant', content }
    }
  }
  const continued = continuedTurn(turns, encoded)
  return {
    // A message left empty is dropped, and the messages around it merged.
    messages: unfinished.length === 0 ? messages : merged(messages),
    replayedThinking,
    openLoopWithoutThinking: continued !== undefined && continued.openLoop && !continued.thinking,
    container: continued?.container,
    unfinished,
  }
}

/** Consecutive messages of one role merged into one, and empty ones dropped, as the API requires. */
function merged(list: readonly (MessageParam | undefined)[]): MessageParam[] {
  const messages: MessageParam[] = []
  for (const message of list) {
    if (message === undefined || message.content.length === 0) continue
    const last = messages.at(-1)
    if (last !== undefined && last.role === message.role) {
      const content = [...blocksOf(last.content), ...blocksOf(message.content)]
      messages[messages.length - 1] =
        last.role === 'user' ? { role: 'user', content } : { role: 'assistant', content }
    } else messages.push(message)
  }
  return messages
}

/** Calls of the API's own tools, answered by a block of the same message that names their id. */
const SERVER_CALLS: ReadonlySet<string> = new Set(['server_tool_use', 'mcp_tool_use'])

/**
 * The blocks of an assistant message without its server tool calls that have no result in it,
 * whose names are added to `unfinished`. A paused turn that was not continued ends with such a
 * call, and the API refuses one anywhere but in the turn it continues.
 */
function withoutUnfinishedCalls(
  blocks: readonly ContentBlockParam[],
  unfinished: string[],
): ContentBlockParam[] {
  const answered = new Set<unknown>()
  for (const block of blocks) if ('tool_use_id' in block) answered.add(block.tool_use_id)
  return blocks.filter((block) => {
    if (!SERVER_CALLS.has(block.type) || !('id' in block) || answered.has(block.id)) return true
    unfinished.push('name' in block ? String(block.name) : 'server tool')
    return false
  })
}

/**
 * The last assistant turn when only tool results follow it (it is being continued), as encoded,
 * and whether any do (an open tool loop).
 */
function continuedTurn(
  turns: readonly Turn[],
  encoded: readonly Encoded[],
): (Encoded & { openLoop: boolean }) | undefined {
  let i = turns.length - 1
  while (i >= 0 && turns[i]!.role === 'tool') i--
  if (i < 0 || turns[i]!.role !== 'assistant') return undefined
  // Found by index: an empty turn before it may have been left out of `encoded`.
  const entry = encoded.find((e) => e.index === i)
  return entry === undefined ? undefined : { ...entry, openLoop: i < turns.length - 1 }
}

/** A message's content as blocks: a string content becomes one text block. */
export function blocksOf(content: MessageContentParam): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

function userContent(turn: UserTurn, index: number): MessageContentParam {
  if (typeof turn.content === 'string') return turn.content
  return turn.content.map((part, j): TextBlockParam | ImageBlockParam => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    if ('url' in part) return { type: 'image', source: { type: 'url', url: part.url } }
    const mediaType = part.mediaType === 'image/jpg' ? 'image/jpeg' : part.mediaType
    if (!isImageType(mediaType)) {
      throw new ThinkwireError({
        kind: 'invalid-request',
        message: `conversation.turns[${index}].content[${j}].mediaType must be one of ${IMAGE_TYPES.join(', ')} for Anthropic, got '${part.mediaType}'`,
        provider: 'anthropic',
      })
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } }
  })
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const

function isImageType(value: string): value is (typeof IMAGE_TYPES)[number] {
  return (IMAGE_TYPES as readonly string[]).includes(value)
}

function toolResults(turn: ToolTurn): ToolResultBlockParam[] {
  return turn.results.map((result) => {
    const block: ToolResultBlockParam = {
      type: 'tool_result',
      tool_use_id: toolUseId(result.callId),
      content: typeof result.output === 'string' ? result.output : JSON.stringify(result.output),
    }
    if (result.isError === true) block.is_error = true
    return block
  })
}

/**
 * Nothing for a refused turn, whose calls are added to `calls` (their results go too); undefined
 * for any other turn.
 */
function refused(turn: AssistantTurn, index: number, calls: Set<string>): Encoded | undefined {
  if (turn.stopReason !== 'refusal') return undefined
  for (const call of turn.toolCalls ?? []) calls.add(call.id)
  return { message: undefined, thinking: false, index }
}

/** The message holds a signed `compaction` block: one that replaces the messages before it. */
function compacts(message: MessageParam | undefined): boolean {
  if (message === undefined || typeof message.content === 'string') return false
  return message.content.some((block) => {
    // A beta block: not among the SDK's `ContentBlockParam` types.
    const record: unknown = block
    if (!isRecord(record) || record['type'] !== 'compaction') return false
    return typeof record['signature'] === 'string' && record['signature'] !== ''
  })
}

function replayBlocks(
  data: readonly unknown[],
  turn: AssistantTurn,
  stripThinking: boolean,
  index: number,
): Encoded {
  const stored: ContentBlockParam[] = []
  let container: string | undefined
  for (const block of data) {
    if (isRecord(block) && block['type'] === CONTAINER_RECORD) {
      container = containerId(block['container']) ?? container
    } else if (isBlock(block)) stored.push(block)
  }
  // Turns stored before the adapter left these out of the items: left out here as well.
  const { blocks } = replayableBlocks(stored, {
    cut: turn.stopReason === 'length',
    paused: turn.stopDetails?.category === 'pause_turn',
  })
  const content: ContentBlockParam[] = []
  let thinking = false
  for (const block of blocks) {
    const isThinking = block.type === 'thinking' || block.type === 'redacted_thinking'
    if (isThinking && stripThinking) continue
    thinking ||= isThinking
    content.push(block)
  }
  return {
    message: content.length === 0 ? undefined : { role: 'assistant', content },
    thinking,
    index,
    container,
  }
}

/** The id of a message's `container`. */
function containerId(container: unknown): string | undefined {
  const id = isRecord(container) ? container['id'] : undefined
  return typeof id === 'string' && id !== '' ? id : undefined
}

/** A stored content block: a JSON object with a string `type`, sent back exactly as stored. */
function isBlock(value: unknown): value is ContentBlockParam {
  return isRecord(value) && typeof value['type'] === 'string'
}

function reencode(turn: AssistantTurn): MessageParam | undefined {
  const content: (TextBlockParam | ToolUseBlockParam)[] = []
  if (turn.text !== '') content.push({ type: 'text', text: turn.text })
  for (const call of turn.toolCalls ?? []) {
    content.push({
      type: 'tool_use',
      id: toolUseId(call.id),
      name: call.name,
      input: toolInput(call.input),
    })
  }
  return content.length === 0 ? undefined : { role: 'assistant', content }
}

/** `tool_use` ids must match `^[a-zA-Z0-9_-]+$`; ids from other providers may not. */
function toolUseId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_')
  return clean === '' ? 'call' : clean
}

/** `tool_use.input` must be an object. */
function toolInput(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {}
  if (typeof input === 'object' && !Array.isArray(input)) return { ...input }
  return { value: input }
}
