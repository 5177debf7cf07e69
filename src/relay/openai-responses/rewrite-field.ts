import type { TurnSource } from './translate-input.ts'
import { dialectField } from '../field-names.ts'

const PART_FIELD = /^\.(?:results|toolCalls)\[(\d+)\](.*)$/s
const IMAGE_FIELD = /^\.content\[(\d+)\]\.(?:url|data|mediaType)$/

/** `/v1/chat` call options and the Responses fields they came from. */
const OPTION_FIELDS: Readonly<Record<string, string>> = {
  maxTokens: 'max_output_tokens',
  toolChoice: 'tool_choice',
  responseFormat: 'text.format',
  thinking: 'reasoning.effort',
  temperature: 'temperature',
}

/**
 * The Responses field for a field path of `validateChatRequest`: `conversation.turns[k]…` becomes
 * the input item turn `k` came from (`sources`), with the turn's field names turned back into the
 * item's (`text` → `content` of its message, `toolCalls[j].input` → `arguments` of its j-th
 * `function_call`, a tool turn's `results[j]` → its j-th `function_call_output`, `items` →
 * `encrypted_content` of its sealed reasoning item); the system prompt is `instructions`, and the
 * call options take their Responses names (`maxTokens` → `max_output_tokens`). Tools have the same
 * shape on both sides. Paths it does not know are returned as they are.
 */
export function rewriteResponsesField(field: string, sources: readonly TurnSource[]): string {
  return dialectField(field, {
    sources,
    turn: turnField,
    conversation: 'input',
    system: 'instructions',
    options: OPTION_FIELDS,
  })
}

/** The field of a turn's input item for the rest of its path (`.text`, `.toolCalls[0].input`, …). */
function turnField(source: TurnSource, rest: string): string | undefined {
  // A user turn of an `input` given as a string has no item: `input` is its text.
  if (source.at < 0) return undefined
  const at = `input[${source.at}]`
  const part = PART_FIELD.exec(rest)
  if (part !== null) {
    const index = source.parts?.[Number(part[1])]
    if (index === undefined) return at
    const of = `input[${index}]`
    const tail = part[2]!
    if (tail === '.callId' || tail === '.id' || tail === '.name') {
      return tail === '.name' && rest.startsWith('.toolCalls') ? `${of}.name` : `${of}.call_id`
    }
    if (tail.startsWith('.output')) return `${of}.output`
    if (tail.startsWith('.input')) return `${of}.arguments`
    return of
  }
  const image = IMAGE_FIELD.exec(rest)
  if (image !== null) return `${at}.content[${image[1]}].image_url`
  if (rest === '.text') return `input[${source.text ?? source.at}].content`
  if (rest === '.thinking' || rest.startsWith('.items'))
    return `input[${source.sealed ?? source.at}].encrypted_content`
  if (rest === '.role' || rest.startsWith('.content')) return `${at}${rest}`
  return at
}
