import type {
  AssistantTurn,
  ToolResult,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from './conversation.ts'
import type { ToolCall } from './events.ts'
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
}

/**
 * The id of the message of the turn at `index` of a conversation: the same on a server and in a
 * browser (no hydration mismatch), the same for an answer while it streams and once committed, and
 * one per position even when one turn object is sent twice.
 */
export function messageId(index: number): string {
  return `m${index}`
}

/**
 * The message of an answer still arriving. Its tool calls are copied out of the state, once per
 * snapshot (a snapshot is made when read, at most once a frame in a page), not once per event.
 */
export function streamingMessage(id: string, state: TurnState): ChatMessage {
  const { text, thinking } = state
  return {
    id,
    role: 'assistant',
    text,
    thinking,
    toolCalls: toolCallsOf(state),
    status: 'streaming',
  }
}

const cache = new WeakMap<
  Turn,
  { index: number; results: ToolTurn | undefined; message: ChatMessage }
>()

/**
 * Turns conversation turns into messages. Tool results are folded into the tool calls of the
 * assistant message before them. Messages are cached per turn object, so an unchanged turn gives
 * the very same message object (cheap re-renders; no copies of earlier messages).
 */
export function toMessages(turns: readonly Turn[]): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (const [i, turn] of turns.entries()) {
    if (turn.role === 'tool') continue
    const next = turns[i + 1]
    const results = turn.role === 'assistant' && next?.role === 'tool' ? next : undefined
    let cached = cache.get(turn)
    if (cached === undefined || cached.results !== results || cached.index !== i) {
      const id = messageId(i)
      const message =
        turn.role === 'user' ? userMessage(turn, id) : assistantMessage(turn, results, id)
      cached = { index: i, results, message }
      cache.set(turn, cached)
    }
    messages.push(cached.message)
  }
  return messages
}

function userMessage(turn: UserTurn, id: string): ChatMessage {
  const { content } = turn
  const text =
    typeof content === 'string'
      ? content
      : content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  const message: ChatMessage = {
    id,
    role: 'user',
    text,
    thinking: '',
    toolCalls: [],
    status: 'done',
  }
  if (typeof content !== 'string') message.parts = content
  return message
}

function assistantMessage(
  turn: AssistantTurn,
  results: ToolTurn | undefined,
  id: string,
): ChatMessage {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    ...call,
    result: results?.results.find((r) => r.callId === call.id),
  }))
  return {
    id,
    role: 'assistant',
    text: turn.text,
    thinking: turn.thinking ?? '',
    toolCalls,
    status: turn.stopReason === 'aborted' ? 'stopped' : 'done',
    turn,
  }
}
