import type {
  AssistantTurn,
  ToolResult,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from './conversation.ts'
import type { ToolCall } from './events.ts'
import type { ShownTurn, WireBranch } from './wire.ts'
import { toolCallsOf, type TurnState } from './reducer.ts'

/** A tool call as shown in a message, with its result once it is known. */
export type ToolCallView = ToolCall & { result?: ToolResult | undefined }

/** One message, ready to render. */
export type ChatMessage = {
  /** The turn's position in the conversation (`m3`): stable while it streams and once committed, and the same on a server and in a browser. */
  id: string
  role: 'user' | 'assistant'
  /** The user's text, or the answer so far. */
  text: string
  /** The visible reasoning so far ('' when none). */
  thinking: string
  toolCalls: readonly ToolCallView[]
  /** `streaming` while it arrives; `stopped` when the caller stopped it; `done` otherwise. */
  status: 'streaming' | 'stopped' | 'done'
  /** Images the user attached. */
  parts?: readonly UserPart[] | undefined
  /** The assistant turn, once complete (usage, stop reason, warnings). */
  turn?: AssistantTurn | undefined
  /**
   * Where its turn is among its versions, when it has others (a durable conversation's: a
   * regenerated answer, an edited question), from 0.
   */
  branch?: WireBranch | undefined
}

/**
 * The id of the message of the turn at `index` of a conversation: the same on a server and in a
 * browser (no hydration mismatch), the same for an answer while it streams and once committed, and
 * one per position even when one turn object is sent twice.
 */
export function messageId(index: number): string {
  return `m${index}`
}

/** A message with each field given. */
function message(
  index: number,
  role: ChatMessage['role'],
  text: string,
  thinking: string,
  toolCalls: readonly ToolCallView[],
  status: ChatMessage['status'],
): ChatMessage {
  return { id: messageId(index), role, text, thinking, toolCalls, status }
}

const cache = new WeakMap<
  Turn,
  { index: number; results: ToolTurn | undefined; message: ChatMessage }
>()

/**
 * Turns conversation turns into messages, and the answer still arriving (`streaming`) into the
 * last one. Tool results are folded into the tool calls of the assistant message before them.
 * Messages are cached per turn object, so an unchanged turn gives the very same message object
 * (cheap re-renders; no copies of earlier messages). The streaming answer's tool calls are copied
 * out of its state once per call (a snapshot is made when read, at most once a frame in a page),
 * not once per event.
 */
export function toMessages(
  turns: readonly Turn[],
  streaming?: TurnState | undefined,
): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (const [i, turn] of turns.entries()) {
    if (turn.role === 'tool') continue
    const next = turns[i + 1]
    const results = turn.role === 'assistant' && next?.role === 'tool' ? next : undefined
    let cached = cache.get(turn)
    if (cached?.index !== i || cached.results !== results) {
      const shown = messageOf(turn, results, i)
      // Where it is among its versions, when a durable conversation shows it.
      shown.branch = (turn as ShownTurn).branch
      cache.set(turn, (cached = { index: i, results, message: shown }))
    }
    messages.push(cached.message)
  }
  if (streaming) {
    const { text, thinking } = streaming
    messages.push(
      message(turns.length, 'assistant', text, thinking, toolCallsOf(streaming), 'streaming'),
    )
  }
  return messages
}

/** The message of a user or assistant turn, and of the results of an assistant turn's calls. */
function messageOf(turn: UserTurn | AssistantTurn, results: ToolTurn | undefined, index: number) {
  if (turn.role === 'user') {
    const { content } = turn
    if (typeof content === 'string') return message(index, 'user', content, '', [], 'done')
    const text = content.map((part) => (part.type === 'text' ? part.text : '')).join('')
    return { ...message(index, 'user', text, '', [], 'done'), parts: content }
  }
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    ...call,
    result: results?.results.find((r) => r.callId === call.id),
  }))
  const status = turn.stopReason === 'aborted' ? 'stopped' : 'done'
  return { ...message(index, 'assistant', turn.text, turn.thinking ?? '', toolCalls, status), turn }
}
