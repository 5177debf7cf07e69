import type { Conversation } from '../../src/index.ts'

/** What the demo remembers between visits. */
export type Saved = {
  model: string | undefined
  thinking: ThinkingLevel
  conversation: Conversation
  /** Per turn index: timings of that assistant turn (null for other turns). */
  stats: (AnswerStats | null)[]
  /**
   * A question sent whose answer had not come (saved as it is sent, since the conversation takes
   * it in only with its answer): after a reload it is shown as interrupted, to be sent again.
   */
  pending?: string | undefined
}

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high' | 'max'
export const THINKING_LEVELS: readonly ThinkingLevel[] = ['off', 'low', 'medium', 'high', 'max']

/** Timings of one answer, measured in the browser. */
export type AnswerStats = {
  /** From send to the first thinking or text. */
  ttftMs?: number | undefined
  /** Of `ttftMs`: the relay's own work before the model call (its `server-timing`). */
  relayMs?: number | undefined
  /** Of `ttftMs`: the model's time to its first event. */
  modelMs?: number | undefined
  /** From the first thinking to the first text (or the end). */
  thoughtMs?: number | undefined
}

const KEY = 'thinkwire-demo:v1'
const HISTORY_KEY = 'thinkwire-demo:history:v1'
const TOKEN_KEY = 'thinkwire-demo:token'
const SETTINGS_KEY = 'thinkwire-demo:settings:v1'
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
  const { model, thinking, pending } = data
  return {
    model: typeof model === 'string' ? model : undefined,
    thinking: THINKING_LEVELS.find((level) => level === thinking) ?? empty.thinking,
    ...chatOf(data),
    pending: typeof pending === 'string' && pending !== '' ? pending : undefined,
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

/** The model and thinking level picked, in either mode (durable or stateless). */
export type Settings = Pick<Saved, 'model' | 'thinking'>

/** The picked model and thinking level (read from the stateless chat's record when none was saved). */
export function loadSettings(): Settings {
  let data: unknown
  try {
    data = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null')
  } catch {
    data = null
  }
  if (!isRecord(data)) {
    const { model, thinking } = load()
    return { model, thinking }
  }
  const { model, thinking } = data
  return {
    model: typeof model === 'string' ? model : undefined,
    thinking: THINKING_LEVELS.find((level) => level === thinking) ?? empty.thinking,
  }
}

export function saveSettings(settings: Settings): void {
  write(SETTINGS_KEY, JSON.stringify(settings))
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

/** Timings of the answers of durable conversations, by conversation id (the relay keeps the rest). */
const TIMINGS_KEY = 'thinkwire-demo:timings:v1'
/** Conversations whose timings are kept, the most recently timed last. */
const TIMINGS_SIZE = 50

function readTimings(): Record<string, (AnswerStats | null)[]> {
  let data: unknown
  try {
    data = JSON.parse(localStorage.getItem(TIMINGS_KEY) ?? '{}')
  } catch {
    return {}
  }
  if (!isRecord(data)) return {}
  const all: Record<string, (AnswerStats | null)[]> = {}
  for (const [id, stats] of Object.entries(data)) {
    if (Array.isArray(stats)) all[id] = stats.map((s) => (isRecord(s) ? s : null))
  }
  return all
}

/** The timings this browser measured for a durable conversation's answers, per turn index. */
export function loadTimings(id: string): (AnswerStats | null)[] {
  return readTimings()[id] ?? []
}

export function saveTimings(id: string, stats: (AnswerStats | null)[]): void {
  const { [id]: _, ...rest } = readTimings()
  const kept = Object.entries(rest).slice(-(TIMINGS_SIZE - 1))
  write(TIMINGS_KEY, JSON.stringify(Object.fromEntries([...kept, [id, stats]])))
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
