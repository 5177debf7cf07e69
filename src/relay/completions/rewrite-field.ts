import { dialectField } from '../field-names.ts'

const RESULT_FIELD = /^\.results\[(\d+)\](.*)$/s
const CALL_FIELD = /^\.toolCalls\[(\d+)\](.*)$/s
const IMAGE_FIELD = /^\.content\[(\d+)\]\.(?:url|data|mediaType)$/
const TOOL_FIELD = /^tools\[(\d+)\]\.(name|description|parameters)(.*)$/s
/** A path inside a JSON format but its type: `responseFormat.name`, `.schema.required[0]`. */
const SCHEMA_FIELD = /^responseFormat(\.(?!type$).+)$/s

/** `/v1/chat` call options and the Chat Completions fields they came from. */
const OPTION_FIELDS: Readonly<Record<string, string>> = {
  maxTokens: 'max_completion_tokens',
  toolChoice: 'tool_choice',
  responseFormat: 'response_format',
  thinking: 'reasoning_effort',
  stop: 'stop',
  temperature: 'temperature',
}

/**
 * The Chat Completions field for a field path of `validateChatRequest`: `conversation.turns[k]…`
 * becomes `messages[i]…` of the message turn `k` came from (`messageOfTurn`), with the turn's
 * field names turned back into OpenAI's (`text` → `content`, `toolCalls[j].input` →
 * `tool_calls[j].function.arguments`, a tool turn's `results[j]` → the j-th tool message), and
 * the call options take their OpenAI names (`maxTokens` → `max_completion_tokens`). Paths it does
 * not know are returned as they are.
 */
export function rewriteField(field: string, messageOfTurn: readonly number[]): string {
  return dialectField(field, {
    sources: messageOfTurn,
    turn: messageField,
    conversation: 'messages',
    options: OPTION_FIELDS,
    other: nestedField,
  })
}

/** The paths of a tool, a tool choice and a JSON schema, which Chat Completions nests. */
function nestedField(field: string): string | undefined {
  const tool = TOOL_FIELD.exec(field)
  if (tool !== null) return `tools[${tool[1]}].function.${tool[2]}${tool[3]}`
  if (field === 'toolChoice.name') return 'tool_choice.function.name'
  const schema = SCHEMA_FIELD.exec(field)
  return schema === null ? undefined : `response_format.json_schema${schema[1]}`
}

/** The field of message `i` for the rest of a turn's path (`.text`, `.toolCalls[0].input`, …). */
function messageField(i: number, rest: string): string {
  const at = `messages[${i}]`
  const result = RESULT_FIELD.exec(rest)
  if (result !== null) {
    // A tool turn's results are its consecutive tool messages, in order.
    const tail = result[2]!
    const of = `messages[${i + Number(result[1])}]`
    if (tail === '.callId' || tail === '.name') return `${of}.tool_call_id`
    if (tail.startsWith('.output')) return `${of}.content`
    return of
  }
  const call = CALL_FIELD.exec(rest)
  if (call !== null) {
    const of = `${at}.tool_calls[${call[1]}]`
    const tail = call[2]!
    if (tail === '.id' || tail === '') return `${of}${tail}`
    if (tail === '.name') return `${of}.function.name`
    return `${of}.function.arguments`
  }
  const image = IMAGE_FIELD.exec(rest)
  if (image !== null) return `${at}.content[${image[1]}].image_url.url`
  if (rest === '.text') return `${at}.content`
  if (rest === '.toolCalls') return `${at}.tool_calls`
  if (rest === '.thinking' || rest.startsWith('.items')) return `${at}.reasoning_details`
  if (rest === '.role' || rest.startsWith('.content')) return `${at}${rest}`
  return at
}
