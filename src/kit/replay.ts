import type { Thinking } from '../core/adapter.ts'
import type {
  AssistantTurn,
  OpaqueItems,
  ToolTurn,
  Turn,
  UserPart,
  UserTurn,
} from '../core/conversation.ts'

/** Who made a turn's items: the adapter's provider and model, and the thinking mode of the call. */
export type ReplayTag = { provider: string; model: string; thinkingMode: string }

/**
 * The thinking mode as a stable string, for the items tag: `'default'` when not set, the level,
 * or `'budget-N'`.
 */
export function thinkingModeOf(thinking: Thinking | undefined): string {
  if (thinking === undefined) return 'default'
  if (typeof thinking === 'string') return thinking
  return `budget-${thinking.budgetTokens}`
}

/** True when `items` were made by the same provider, model and thinking mode as `tag`. */
export function matchesTag(items: OpaqueItems | undefined, tag: ReplayTag): items is OpaqueItems {
  return (
    items !== undefined &&
    items.provider === tag.provider &&
    items.model === tag.model &&
    items.thinkingMode === tag.thinkingMode
  )
}

/** How an adapter encodes each kind of turn. */
export type TurnEncoder<T> = {
  user(turn: UserTurn, index: number): T
  tool(turn: ToolTurn, index: number): T
  /** A turn this adapter made with the same model and thinking mode: send `items.data` verbatim. */
  replay(items: OpaqueItems, turn: AssistantTurn, index: number): T
  /** Any other assistant turn: re-encode `text` and `toolCalls`, without reasoning. */
  reencode(turn: AssistantTurn, index: number): T
}

/**
 * Encodes turns under the replay policy: an assistant turn whose items carry `tag` is replayed
 * verbatim, every other assistant turn is re-encoded from its normalized fields. The turns are
 * first made into a conversation every provider accepts (see {@link sendableTurns}), so any
 * conversation a helper can produce (a question whose answer was stopped before it began, say)
 * encodes to a valid request. `index` is the turn's place in `turns`.
 */
export function encodeTurns<T>(
  turns: readonly Turn[],
  tag: ReplayTag,
  encoder: TurnEncoder<T>,
): T[] {
  const out: T[] = []
  for (const [turn, i] of sendableTurns(turns)) {
    if (turn.role === 'user') out.push(encoder.user(turn, i))
    else if (turn.role === 'tool') out.push(encoder.tool(turn, i))
    else if (matchesTag(turn.items, tag)) out.push(encoder.replay(turn.items, turn, i))
    else out.push(encoder.reencode(turn, i))
  }
  return out
}

/**
 * The turns as a provider takes them, each with its index in `turns`: an assistant turn that says
 * nothing (no text, no tool calls, no items: an answer stopped before its first word) is left
 * out; user turns that then follow each other are sent as one (their texts a paragraph apart, or
 * their parts one after the other); and a tool call that the next turn does not answer is answered
 * as not given (an error result), since providers refuse two user turns in a row, an empty
 * assistant turn, and a call without a result.
 */
export function sendableTurns(turns: readonly Turn[]): [Turn, number][] {
  const out: [Turn, number][] = []
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!
    if (turn.role === 'assistant' && isEmpty(turn)) continue
    const last = out.at(-1)
    if (last !== undefined && last[0].role === 'assistant') {
      const answered = withEveryCallAnswered(last[0], turn)
      if (answered !== turn) {
        if (turn.role === 'tool') {
          out.push([answered, i])
          continue
        }
        out.push([answered, last[1]])
      }
    }
    if (turn.role === 'user' && out.at(-1)?.[0].role === 'user') {
      const previous = out.at(-1)!
      previous[0] = joinUserTurns(previous[0] as UserTurn, turn)
      continue
    }
    out.push([turn, i])
  }
  return out
}

const NOT_GIVEN = 'No result was given for this call.'

/**
 * `next` when it answers every call of `turn` (or `turn` made none); else the tool turn that
 * does: `next`'s results with an error result for each call it leaves out.
 */
function withEveryCallAnswered(turn: AssistantTurn, next: Turn): Turn {
  const calls = turn.toolCalls ?? []
  if (calls.length === 0) return next
  const given = next.role === 'tool' ? next.results : []
  const ids = new Set(given.map((result) => result.callId))
  const missing = calls.filter((call) => !ids.has(call.id))
  if (missing.length === 0) return next
  const results = missing.map((call) => ({
    callId: call.id,
    name: call.name,
    output: NOT_GIVEN,
    isError: true,
  }))
  return { role: 'tool', results: [...given, ...results] }
}

function isEmpty(turn: AssistantTurn): boolean {
  return turn.text === '' && (turn.toolCalls ?? []).length === 0 && turn.items === undefined
}

function joinUserTurns(first: UserTurn, second: UserTurn): UserTurn {
  if (typeof first.content === 'string' && typeof second.content === 'string') {
    return { role: 'user', content: `${first.content}\n\n${second.content}` }
  }
  const parts = (content: UserTurn['content']): UserPart[] =>
    typeof content === 'string' ? [{ type: 'text', text: content }] : content
  return { role: 'user', content: [...parts(first.content), ...parts(second.content)] }
}
