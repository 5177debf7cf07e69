import type { CallOptions } from '../../core/adapter.ts'
import type { AssistantTurn, ToolTurn, Turn, UserTurn } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import { validateChatRequest, type RequestLimits } from '../validate-request.ts'
import { DEFAULT_MAX_STEPS } from '../../core/tool-loop.ts'
import {
  array,
  describe,
  fail,
  integer,
  Invalid,
  isRecord,
  own,
  string,
  validation,
  type JsonRecord,
  type Validation,
} from '../validate-json.ts'

/** A checked `POST .../messages` or `.../regenerate` body. */
export type MessageRequest = {
  model: string
  /** The user or tool turn a message adds; none for a regenerate. */
  turn: UserTurn | ToolTurn | undefined
  options: CallOptions
  /** The relay's server tools the model may call (DESIGN §13). */
  serverTools: string[]
  /** Most model calls of its loop. */
  maxSteps: number
}

/** The most `maxSteps` a message may ask for. */
export const MAX_STEPS_LIMIT = 100

/** How big one conversation may grow. */
export type ConversationSizeLimits = {
  /** Most turns stored. */
  turns: number
  /** Most bytes of stored turns (their JSON, items included). */
  bytes: number
}

const TURN_FIELD = /^conversation\.turns\[\d+\]/
const PLACEHOLDER: UserTurn = { role: 'user', content: '.' }

/**
 * Checks a message (`{ model, turn, ...call options }`) or a regenerate (`{ model, ...call
 * options }`) with the relay's own request validator, so both take exactly what `POST /v1/chat`
 * takes besides the conversation. After a stored turn with tool calls, the new turn must be a
 * tool turn answering every one of them, and a tool turn is taken only there (the rule
 * `parseConversation` holds every conversation to).
 */
export function validateMessageRequest(
  body: unknown,
  limits: RequestLimits,
  stored: readonly Turn[],
  kind: 'message' | 'regenerate',
  serverToolNames: readonly string[] = [],
): Validation<MessageRequest> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    if (Object.hasOwn(body, 'conversation')) {
      fail('conversation', 'is kept by the relay: send only the new turn')
    }
    const {
      turn: turnIn,
      serverTools: namesIn,
      maxSteps: stepsIn,
      ...rest
    } = body as JsonRecord & { turn?: unknown; serverTools?: unknown; maxSteps?: unknown }
    const serverTools = serverToolsOf(namesIn, serverToolNames)
    const maxSteps =
      stepsIn === undefined ? DEFAULT_MAX_STEPS : integer(stepsIn, 'maxSteps', 1, MAX_STEPS_LIMIT)
    let context: unknown[] = [PLACEHOLDER]
    if (kind === 'regenerate') {
      if (turnIn !== undefined) fail('turn', 'is not accepted by regenerate')
    } else {
      if (!isRecord(turnIn)) fail('turn', `must be a user or tool turn, got ${describe(turnIn)}`)
      const role = own(turnIn, 'role')
      if (role !== 'user' && role !== 'tool') {
        fail('turn.role', `must be 'user' | 'tool', got ${describe(role)}`)
      }
      // Checked after the stored turn that asked for tools, if the last did: the conversation's
      // own rule then says whether the new turn answers every call (and a tool turn needs one).
      const last = stored.at(-1)
      const asked = last?.role === 'assistant' && (last.toolCalls?.length ?? 0) > 0
      context = asked ? [displayTurn(last), turnIn] : [turnIn]
    }
    const checked = validateChatRequest({ ...rest, conversation: { turns: context } }, limits)
    if (!checked.ok) {
      const { field, message } = checked.error
      // The turn was checked as the conversation's last: name it as the client sent it.
      throw new Invalid(field.replace(TURN_FIELD, 'turn'), message.slice(field.length + 1))
    }
    const { model, conversation, options } = checked.value
    // A client tool of a server tool's name would make its calls the relay's to answer.
    options.tools?.forEach(({ name }, i) => {
      if (serverTools.includes(name))
        fail(`tools[${i}].name`, `${describe(name)} is a server tool named in serverTools`)
    })
    const added = conversation.turns.at(-1)
    const turn = kind === 'message' && added?.role !== 'assistant' ? added : undefined
    return { model, turn, options, serverTools, maxSteps }
  })
}

/** `serverTools`: names of the relay's server tools, each once; none when absent. */
function serverToolsOf(value: unknown, known: readonly string[]): string[] {
  if (value === undefined) return []
  const names = array(value, 'serverTools').map((name, i) => string(name, `serverTools[${i}]`))
  names.forEach((name, i) => {
    if (!known.includes(name)) {
      const offered = known.length === 0 ? 'none' : known.join(', ')
      fail(
        `serverTools[${i}]`,
        `${describe(name)} is not a server tool of this relay (it has: ${offered})`,
      )
    }
    if (names.indexOf(name) !== i) fail(`serverTools[${i}]`, `names ${describe(name)} again`)
  })
  return names
}

/** A checked `POST .../edit` body: a message's, and the index of the user turn it edits. */
export type EditRequest = MessageRequest & { turn: UserTurn; at: number }

/**
 * Checks an edit (`{ turn: <index>, content, model, ...call options }`, DESIGN §14): `turn` names
 * a user turn of the active path (`path`), and the rest is what a message with a user turn of
 * that `content` takes, checked by {@link validateMessageRequest}.
 */
export function validateEditRequest(
  body: unknown,
  limits: RequestLimits,
  path: readonly Turn[],
  serverToolNames: readonly string[] = [],
): Validation<EditRequest> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    const {
      turn: index,
      content,
      ...rest
    } = body as JsonRecord & {
      turn?: unknown
      content?: unknown
    }
    if (!path.some((turn) => turn.role === 'user')) fail('turn', 'names no turn: there is none yet')
    const at = integer(index, 'turn', 0, path.length - 1)
    const role = path[at]!.role
    if (role !== 'user') {
      fail('turn', `must be the index of a user turn on the active path: turn ${at} is ${role}`)
    }
    if (content === undefined) fail('content', 'is required: the new text (or parts) of the turn')
    const asked = { ...rest, turn: { role: 'user', content } }
    const checked = validateMessageRequest(asked, limits, [], 'message', serverToolNames)
    if (!checked.ok) {
      const { field, message } = checked.error
      // The content was checked as a turn's: name it as the client sent it.
      const named = field.replace(/^turn(\.content)?/, 'content')
      throw new Invalid(named, message.slice(field.length + 1))
    }
    return { ...checked.value, turn: checked.value.turn as UserTurn, at }
  })
}

/** A checked `POST .../branch` body: `{ turn, index }`, each in range of the active path. */
export function validateBranchRequest(
  body: unknown,
  versions: (turn: number) => number,
  pathLength: number,
): Validation<{ turn: number; index: number }> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    for (const key of Object.keys(body)) {
      if (key !== 'turn' && key !== 'index') {
        fail(describe(key).slice(1, -1), 'is not a known field (known: turn, index)')
      }
    }
    if (pathLength === 0) fail('turn', 'names no turn: there is none yet')
    const turn = integer(own(body, 'turn'), 'turn', 0, pathLength - 1)
    const count = versions(turn)
    if (count < 2) fail('turn', `names turn ${turn}, which has no other version`)
    const index = integer(own(body, 'index'), 'index', 0, count - 1)
    return { turn, index }
  })
}

/** The most characters of a title given by a rename. */
export const RENAMED_TITLE_CHARS = 200

/** A checked `PATCH .../:id` body: `{ title }`, a string of 1 to 200 characters, on one line. */
export function validateRename(body: unknown): Validation<{ title: string }> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    for (const key of Object.keys(body)) {
      if (key !== 'title') fail(describe(key).slice(1, -1), 'is not a known field (known: title)')
    }
    const title = string(own(body, 'title'), 'title').replace(/\s+/g, ' ').trim()
    if (title === '') fail('title', 'must not be empty')
    if (title.length > RENAMED_TITLE_CHARS) {
      fail('title', `must be at most ${RENAMED_TITLE_CHARS} characters, got ${title.length}`)
    }
    return { title }
  })
}

/** Whether a message body sends a tool turn (to tell a loop's client results from a new message). */
export function sendsToolTurn(body: unknown): boolean {
  return isRecord(body) && isRecord(body['turn']) && own(body['turn'], 'role') === 'tool'
}

/**
 * A tool turn sent while a loop waits answers exactly the calls it waits on from its client: every
 * one of them, and none of its server tools' (nothing a client sends can answer, or approve, a
 * server tool's call).
 */
export function checkClientResults(
  request: MessageRequest,
  waiting: readonly ToolCall[],
): Validation<MessageRequest> {
  return validation(() => {
    const { turn } = request
    if (turn?.role !== 'tool') fail('turn.role', "must be 'tool' while the agent waits on tools")
    const ids = new Set(waiting.map((call) => call.id))
    turn.results.forEach(({ callId }, j) => {
      if (!ids.has(callId)) {
        const why = `${describe(callId)} is not a call the client answers (the relay answers its server tools' calls)`
        fail(`turn.results[${j}].callId`, why)
      }
    })
    const missing = waiting.find(({ id }) => !turn.results.some((result) => result.callId === id))
    if (missing !== undefined) {
      fail(
        'turn.results',
        `must answer every call the agent waits on: ${describe(missing.id)} (${missing.name}) has none`,
      )
    }
    return request
  })
}

/** The most characters of a denial's reason. */
const REASON_CHARS = 2000

/** A checked `POST .../approvals/:approvalId` body: `{ approve, reason? }`. */
export function validateApproval(
  body: unknown,
): Validation<{ approve: boolean; reason?: string | undefined }> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    for (const key of Object.keys(body)) {
      if (key !== 'approve' && key !== 'reason') {
        fail(describe(key).slice(1, -1), 'is not a known field (known: approve, reason)')
      }
    }
    const approve = own(body, 'approve')
    if (typeof approve !== 'boolean') fail('approve', `must be a boolean, got ${describe(approve)}`)
    const reason = own(body, 'reason')
    if (reason === undefined) return { approve }
    const text = string(reason, 'reason')
    if (text.length > REASON_CHARS) fail('reason', `must be at most ${REASON_CHARS} characters`)
    return { approve, reason: text }
  })
}

/** A checked `POST /v1/conversations` body: `{ system? }`. */
export function validateCreateRequest(body: unknown): Validation<{ system?: string | undefined }> {
  return validation(() => {
    if (!isRecord(body)) fail('body', `must be a JSON object, got ${describe(body)}`)
    for (const key of Object.keys(body)) {
      if (key !== 'system') fail(describe(key).slice(1, -1), 'is not a known field (known: system)')
    }
    const system = own(body, 'system')
    if (system === undefined || system === '') return {}
    if (typeof system !== 'string') fail('system', `must be a string, got ${describe(system)}`)
    return { system }
  })
}

/**
 * What a regenerate answers: the turns up to the last user turn, and whether turns after it are
 * replaced (its answer, or every step of an agent's loop), once the new answer is complete. Null
 * when there is no user turn to answer.
 */
export function regenerateBase(
  stored: readonly Turn[],
): { turns: readonly Turn[]; replaces: boolean } | null {
  const last = stored.findLastIndex((turn) => turn.role === 'user')
  if (last === -1) return null
  return { turns: stored.slice(0, last + 1), replaces: last < stored.length - 1 }
}

/** The bytes a stored answer of `outputTokens` tokens may take: about 4 a token, as estimates count. */
export const answerBytesOf = (outputTokens: number): number => outputTokens * 4

/**
 * Why adding `added` to what is stored would pass a size limit, naming it; or null. `added` counts
 * its turns and bytes, and `answerTokens`, the output its answer may produce: its room is kept
 * before the call (see {@link answerBytesOf}), so an answer never takes a conversation past its
 * limit, and the refusal says so when that room is what does not fit.
 */
export function sizeRefusal(
  stored: { turns: number; bytes: number },
  added: { turns: number; bytes: number; answerTokens?: number | undefined },
  limits: ConversationSizeLimits,
): { limit: 'turns' | 'bytes'; message: string } | null {
  if (stored.turns + added.turns > limits.turns) {
    return {
      limit: 'turns',
      message: `this conversation holds at most ${limits.turns} turns (CONVERSATION_MAX_TURNS)`,
    }
  }
  const answer = added.answerTokens ?? 0
  if (stored.bytes + added.bytes + answerBytesOf(answer) > limits.bytes) {
    const noRoom =
      stored.bytes + added.bytes <= limits.bytes
        ? `, which leaves no room for an answer of up to ${answer} tokens: ask for fewer with maxTokens`
        : ''
    return {
      limit: 'bytes',
      message: `this conversation holds at most ${limits.bytes} bytes (CONVERSATION_MAX_BYTES)${noRoom}`,
    }
  }
  return null
}

/** A turn as a browser sees it in this mode: the provider's items never leave the server. */
export function displayTurn(turn: AssistantTurn): AssistantTurn
export function displayTurn(turn: Turn): Turn
export function displayTurn(turn: Turn): Turn {
  if (turn.role !== 'assistant' || turn.items === undefined) return turn
  const { items: _items, ...shown } = turn
  return shown
}

/**
 * A stored turn as a model call sends it: without the thinking time the relay keeps with an
 * answer for the browser (see `ShownAssistantTurn`), which is no provider's business.
 */
export function modelTurn(turn: Turn): Turn {
  if (turn.role !== 'assistant' || !('thinkingMs' in turn)) return turn
  const { thinkingMs: _thinkingMs, ...sent } = turn
  return sent
}

/** Longest title, in characters. */
const TITLE_CHARS = 80

/** The conversation's title: its first user text, on one line and clipped; null before it. */
export function titleOf(turns: readonly Turn[]): string | null {
  for (const turn of turns) {
    if (turn.role !== 'user') continue
    const text =
      typeof turn.content === 'string'
        ? turn.content
        : turn.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
    const line = text.replace(/\s+/g, ' ').trim()
    if (line === '') continue
    return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line
  }
  return null
}
