import { dialectField } from '../field-names.ts'

/**
 * Where a turn came from: its message, and the part of each entry of its list (a user turn's
 * `content`, an assistant turn's `toolCalls`, a tool turn's `results`).
 */
export type TurnOrigin = {
  /** `messages[i]` */
  at: string
  /** The first text part of the turn's step, for a field of its joined `text`. */
  text?: string | undefined
  entries: string[]
}

const ENTRY_FIELD = /^\.(content|toolCalls|results)\[(\d+)\](.*)$/s

/** The fields of a turn's entries, by the request's names: `toolCalls[j].id` → `toolCallId`. */
const ENTRY_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  content: { '.text': '.text', '.url': '.url', '.data': '.url', '.mediaType': '.mediaType' },
  toolCalls: { '.id': '.toolCallId', '.input': '.input' },
  results: { '.callId': '.toolCallId', '.output': '.output' },
}

/**
 * The request's field for a field path of `validateChatRequest`: `conversation.turns[k]…` becomes
 * the message (and part) turn `k` came from (`origins`), with the turn's field names turned back
 * into the UI message's (`content[j]` → `parts[p]`, `toolCalls[j].id` → `parts[p].toolCallId`,
 * `items` → `metadata.thinkwire`). The call options keep their names. Paths it does not know are
 * returned as they are.
 */
export function rewriteUiField(field: string, origins: readonly TurnOrigin[]): string {
  // The call options keep their names: the app's `body` holds them as `/v1/chat` does.
  return dialectField(field, {
    sources: origins,
    turn: messageField,
    conversation: 'messages',
    options: {},
  })
}

/** The field of the message (and part) a turn came from, for the rest of the turn's path. */
function messageField(origin: TurnOrigin, rest: string): string {
  const entry = ENTRY_FIELD.exec(rest)
  if (entry !== null) {
    const [, list, j, tail] = entry
    const base = origin.entries[Number(j)] ?? `${origin.at}.parts`
    const names = ENTRY_NAMES[list!]!
    const name = Object.keys(names).find((key) => tail === key || tail!.startsWith(`${key}.`))
    return name === undefined ? base : `${base}${names[name]}${tail!.slice(name.length)}`
  }
  if (rest === '.content' || rest === '.toolCalls' || rest === '.results')
    return `${origin.at}.parts`
  if (rest === '.text') return origin.text ?? `${origin.at}.parts`
  if (rest === '.thinking' || rest.startsWith('.items')) return `${origin.at}.metadata.thinkwire`
  if (rest === '.role') return `${origin.at}.role`
  return origin.at
}
