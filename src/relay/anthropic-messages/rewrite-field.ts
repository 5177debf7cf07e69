import type { TurnSource } from './translate-messages.ts'
import { dialectField } from '../field-names.ts'

/** A part, result or tool call of a turn: `.content[j]`, `.results[j]`, `.toolCalls[j]`. */
const ENTRY_FIELD = /^\.(content|results|toolCalls)\[(\d+)\](.*)$/s
const TOOL_FIELD = /^tools\[(\d+)\]\.parameters(.*)$/s

/** `/v1/chat` call options and the Messages API fields they came from. */
const OPTION_FIELDS: Readonly<Record<string, string>> = {
  maxTokens: 'max_tokens',
  toolChoice: 'tool_choice',
  responseFormat: 'output_config.format',
  thinking: 'thinking',
  stop: 'stop_sequences',
  temperature: 'temperature',
  cache: 'cache_control',
}

/** The names of an entry's fields, by the kind of entry, as the Messages API names them. */
const ENTRY_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // A user turn's part: a text block, or an image block's source.
  content: {
    '.text': '.text',
    '.url': '.source.url',
    '.data': '.source.data',
    '.mediaType': '.source.media_type',
  },
  // A tool turn's result: a `tool_result` block.
  results: {
    '.callId': '.tool_use_id',
    '.name': '.tool_use_id',
    '.output': '.content',
    '.isError': '.is_error',
  },
  // An assistant turn's tool call: a `tool_use` block.
  toolCalls: { '.id': '.id', '.name': '.name', '.input': '.input' },
}

/**
 * The Messages API field for a field path of `validateChatRequest`: `conversation.turns[k]…`
 * becomes `messages[i]…` of the message turn `k` came from (`sources[k]`), down to the content
 * block of a part, result or tool call (`content[j].mediaType` → `content[b].source.media_type`,
 * `results[j].output` → `content[b].content`), a turn's text or reasoning state naming the message's
 * `content` (or its sealed block); the system prompt is `system`, and the call options take their
 * Anthropic names (`maxTokens` → `max_tokens`, `tools[i].parameters` → `tools[i].input_schema`,
 * `thinking.budgetTokens` → `thinking.budget_tokens`). Paths it does not know are returned as
 * they are.
 */
export function rewriteField(field: string, sources: readonly TurnSource[]): string {
  return dialectField(field, {
    sources,
    turn: messageField,
    conversation: 'messages',
    system: 'system',
    options: OPTION_FIELDS,
    other: otherField,
  })
}

/** The paths the Messages API names otherwise: a tool's schema, a thinking budget, a format. */
function otherField(field: string): string | undefined {
  const tool = TOOL_FIELD.exec(field)
  if (tool !== null) return `tools[${tool[1]}].input_schema${tool[2]}`
  if (field === 'thinking.budgetTokens') return 'thinking.budget_tokens'
  if (field === 'responseFormat.type') return 'output_config.format'
  return undefined
}

/** The field of the message a turn came from, for the rest of the turn's path. */
function messageField(source: TurnSource, rest: string): string {
  const at = `messages[${source.message}]`
  if (rest === '' || rest === '.role') return `${at}${rest}`
  const entry = ENTRY_FIELD.exec(rest)
  if (entry !== null) {
    const [, kind = '', j = '', tail = ''] = entry
    const block = source.blocks[Number(j)]
    // A string content has no blocks: its one text is the content itself.
    if (block === undefined) return `${at}.content`
    const name = ENTRY_NAMES[kind]?.[tail]
    return `${at}.content[${block}]${name ?? ''}`
  }
  if ((rest === '.thinking' || rest.startsWith('.items')) && source.sealed !== undefined)
    return `${at}.content[${source.sealed}].signature`
  return `${at}.content`
}
