import type {
  AssistantTurn,
  ToolResult,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from './conversation.ts'
import type { ToolCall } from './events.ts'
import type { TurnState } from './reducer.ts'

/** A tool call as shown in a message, with its result once it is known. */
export type ToolCallView = ToolCall & { result?: ToolResult | undefined }

/** One message, ready to render. */
export type ChatMessage = {
  /** Stable for the life of the turn object (not across reloads). */
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

let nextId = 0
const ids = new WeakMap<object, string>()

/** A stable id for an object (a turn), made on first sight. */
export function idOf(object: object): string {
  let id = ids.get(object)
  if (id === undefined) {
    id = `m${(nextId++).toString(36)}`
    ids.set(object, id)
  }
  return id
}

/** Gives `object` an id already in use (a streaming message's id passes to its finished turn). */
export function adoptId(object: object, id: string): void {
  ids.set(object, id)
}

/** The message of an answer still arriving. */
export function streamingMessage(id: string, state: TurnState): ChatMessage {
  const { text, thinking, toolCalls } = state
  return { id, role: 'assistant', text, thinking, toolCalls, status: 'streaming' }
}

const cache = new WeakMap<Turn, { results: ToolTurn | undefined; message: ChatMessage }>()

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
    if (cached === undefined || cached.results !== results) {
      const message = turn.role === 'user' ? userMessage(turn) : assistantMessage(turn, results)
      cached = { results, message }
      cache.set(turn, cached)
    }
    messages.push(cached.message)
  }
  return messages
}

function userMessage(turn: UserTurn): ChatMessage {
  const { content } = turn
  const text =
    typeof content === 'string'
      ? content
      : content.map((part) => (part.type === 'text' ? part.text : '')).join('')
  const message: ChatMessage = {
    id: idOf(turn),
    role: 'user',
    text,
    thinking: '',
    toolCalls: [],
    status: 'done',
  }
  if (typeof content !== 'string') message.parts = content
  return message
}

function assistantMessage(turn: AssistantTurn, results: ToolTurn | undefined): ChatMessage {
  const toolCalls = (turn.toolCalls ?? []).map((call) => ({
    ...call,
    result: results?.results.find((r) => r.callId === call.id),
  }))
  return {
    id: idOf(turn),
    role: 'assistant',
    text: turn.text,
    thinking: turn.thinking ?? '',
    toolCalls,
    status: turn.stopReason === 'aborted' ? 'stopped' : 'done',
    turn,
  }
}
