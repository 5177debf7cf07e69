/**
 * How each dialect names the fields of `validateChatRequest`'s paths, to refuse a request in the
 * dialect's own terms: the paths of a turn, of the conversation and of the call options.
 */

/** A field path of `validateChatRequest` inside a turn: the turn's index, and the rest. */
const TURN_FIELD = /^conversation\.turns\[(\d+)\](.*)$/s

/**
 * A dialect's names for the fields of `validateChatRequest`, for a request whose turn `k` came from
 * `sources[k]`.
 */
export type FieldNames<Source> = {
  /** Where each turn came from in the request. */
  sources: readonly Source[]
  /**
   * A turn's field, by where the turn came from and the rest of its path (`.toolCalls[0].input`),
   * or undefined for one the dialect cannot place (named as the conversation).
   */
  turn(source: Source, rest: string): string | undefined
  /** The conversation as a whole: `messages`, `input`. */
  conversation: string
  /** The system prompt, when the dialect has a field of its own for it (`instructions`). */
  system?: string | undefined
  /**
   * The call options' names (`maxTokens` → `max_output_tokens`): a path inside an option keeps its
   * rest (`toolChoice.name` → `tool_choice.name`), save the `thinking` option's, named whole.
   */
  options: Readonly<Record<string, string>>
  /** A path the dialect names otherwise (`tools[0].parameters` → `tools[0].input_schema`). */
  other?: ((field: string) => string | undefined) | undefined
}

/** A field path of `validateChatRequest` as the dialect of `names` names it. */
export function dialectField<Source>(field: string, names: FieldNames<Source>): string {
  const turn = TURN_FIELD.exec(field)
  if (turn !== null) {
    const source = names.sources[Number(turn[1])]
    return (source === undefined ? undefined : names.turn(source, turn[2]!)) ?? names.conversation
  }
  if (field === 'conversation.system' && names.system !== undefined) return names.system
  if (field === 'conversation' || field.startsWith('conversation.')) return names.conversation
  const other = names.other?.(field)
  if (other !== undefined) return other
  const [, option = '', rest = ''] = /^([A-Za-z]+)(.*)$/s.exec(field) ?? []
  if (!Object.hasOwn(names.options, option)) return field
  // A thinking option is one field of the dialect's (an effort, a budget) whatever its path.
  return option === 'thinking' ? names.options[option]! : `${names.options[option]}${rest}`
}

/**
 * A refusal of `validateChatRequest` in a dialect's terms: its field as `rename` gives it, and its
 * message, which starts with the field, starting with the new name.
 */
export function renamedRefusal(
  error: { field: string; message: string },
  rename: (field: string) => string,
): { field: string; message: string } {
  const field = rename(error.field)
  const message = error.message.startsWith(error.field)
    ? `${field}${error.message.slice(error.field.length)}`
    : error.message
  return { field, message }
}
