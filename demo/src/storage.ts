import type { Conversation } from '../../src/index.ts'

/** What the demo remembers between visits. */
export type Saved = {
  model: string | undefined
  thinking: ThinkingLevel
  conversation: Conversation
  /** Per turn index: timings of that assistant turn (null for other turns). */
  stats: (AnswerStats | null)[]
}

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high' | 'max'
export const THINKING_LEVELS: readonly ThinkingLevel[] = ['off', 'low', 'medium', 'high', 'max']

/** Timings of one answer, measured in the browser. */
export type AnswerStats = {
  /** From send to the first thinking or text. */
  ttftMs?: number | undefined
  /** From the first thinking to the first text (or the end). */
  thoughtMs?: number | undefined
}

const KEY = 'thinkwire-demo:v1'
const HISTORY_KEY = 'thinkwire-demo:history:v1'
const TOKEN_KEY = 'thinkwire-demo:token'
/** Previous chats kept after "New chat", newest first. */
const HISTORY_SIZE = 20

/** A chat put aside by "New chat", kept so that it can be opened again. */
export type SavedChat = {
  id: string
  /** Its first question, shortened. */
  title: string
  savedAt: number
  conversation: Conversation
  stats: (AnswerStats | null)[]
}

const empty: Saved = {
  model: undefined,
  thinking: 'medium',
  conversation: { turns: [] },
  stats: [],
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Reads what was saved. The conversation is kept as it was (items included, opaque) once its
 * outline checks out; the relay validates every field when it is sent again.
 */
export function load(): Saved {
  let data: unknown
  try {
    data = JSON.parse(localStorage.getItem(KEY) ?? 'null')
  } catch {
    return empty
  }
  if (!isRecord(data)) return empty
  const { model, thinking } = data
  return {
    model: typeof model === 'string' ? model : undefined,
    thinking: THINKING_LEVELS.find((level) => level === thinking) ?? empty.thinking,
    ...chatOf(data),
  }
}

/** The conversation and stats of saved data, once the conversation's outline checks out. */
function chatOf(data: Record<string, unknown>): Pick<Saved, 'conversation' | 'stats'> {
  const { conversation, stats } = data
  const turns = isRecord(conversation) ? conversation['turns'] : undefined
  const valid = Array.isArray(turns) && turns.every((turn) => isRecord(turn))
  return {
    conversation: valid ? (conversation as Conversation) : empty.conversation,
    stats: valid && Array.isArray(stats) ? stats.map((s) => (isRecord(s) ? s : null)) : [],
  }
}

export function save(saved: Saved): void {
  write(KEY, JSON.stringify(saved))
}

/** Writes, or forgets quietly when storage is full or disabled (private mode): the demo still works. */
function write(key: string, value: string | undefined): void {
  try {
    if (value === undefined) localStorage.removeItem(key)
    else localStorage.setItem(key, value)
  } catch {
    // Nothing to do: the demo works without storage, it just forgets.
  }
}

/** The previous chats, newest first. */
export function loadHistory(): SavedChat[] {
  let data: unknown
  try {
    data = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]')
  } catch {
    return []
  }
  if (!Array.isArray(data)) return []
  return data.flatMap((item): SavedChat[] => {
    if (!isRecord(item) || typeof item['id'] !== 'string') return []
    const chat = chatOf(item)
    if (chat.conversation.turns.length === 0) return []
    const title = typeof item['title'] === 'string' ? item['title'] : 'Untitled chat'
    const savedAt = typeof item['savedAt'] === 'number' ? item['savedAt'] : 0
    return [{ id: item['id'], title, savedAt, ...chat }]
  })
}

/** Keeps a chat at the top of the history (the oldest beyond the limit are dropped). */
export function archive(history: SavedChat[], chat: Omit<SavedChat, 'id' | 'title' | 'savedAt'>) {
  const first = chat.conversation.turns.find((turn) => turn.role === 'user')
  const text =
    first?.role !== 'user'
      ? ''
      : typeof first.content === 'string'
        ? first.content
        : first.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
  const title = text.length > 60 ? `${text.slice(0, 60)}…` : text || 'Untitled chat'
  const id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  return saveHistory([{ id, title, savedAt: Date.now(), ...chat }, ...history])
}

/** Saves the history (up to its limit) and returns what was kept. */
export function saveHistory(history: SavedChat[]): SavedChat[] {
  const kept = history.slice(0, HISTORY_SIZE)
  write(HISTORY_KEY, JSON.stringify(kept))
  return kept
}

/** The relay token the user entered, if any. */
export function loadToken(): string {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? ''
  } catch {
    return ''
  }
}

export function saveToken(token: string): void {
  write(TOKEN_KEY, token === '' ? undefined : token)
}
