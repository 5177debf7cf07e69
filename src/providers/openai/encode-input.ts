import type {
  ResponseCompactionItemParam,
  ResponseCustomToolCall,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseInputMessageContentList,
} from 'openai/resources/responses/responses'
import type { AssistantTurn, ToolTurn, Turn, UserTurn } from '../../core/conversation.ts'
import { isRecord } from '../../kit/json.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'

/** How stored turns are replayed. */
export type EncodeOptions = {
  /**
   * Replay the encrypted items of earlier turns (reasoning and compaction items); false leaves
   * them out, after the API could not verify them. @defaultValue true
   */
  encrypted?: boolean | undefined
}

/**
 * Encodes turns as Responses `input` items. A turn of this provider, model and thinking mode goes
 * back as its stored `output` items, in order and untouched (a commentary message keeps its
 * `phase`, a compaction item goes as its input form), except reasoning items without
 * `encrypted_content` (with `store: false` the API cannot look them up by id and answers 404), with
 * what followed them sent without item ids or, for the hosted tools' records that cannot go
 * without one, left out (named in `warnings`), and a trailing reasoning item with nothing after
 * it (the API refuses one without its following item). Any other assistant turn becomes an assistant
 * message and tool call items, without reasoning or compaction. Tool results answer their call in
 * its own kind: `custom_tool_call_output` for a `custom_tool_call`, `function_call_output`
 * otherwise.
 */
export function encodeInput(
  turns: readonly Turn[],
  tag: ReplayTag,
  warnings: string[] = [],
  options: EncodeOptions = {},
): ResponseInputItem[] {
  const encrypted = options.encrypted ?? true
  /** Call ids of the custom tool calls sent so far, whose results are custom tool outputs. */
  const custom = new Set<string>()
  const noteCalls = (items: ResponseInputItem[]): ResponseInputItem[] => {
    for (const item of items) {
      if (item.type === 'custom_tool_call' && typeof item.call_id === 'string')
        custom.add(item.call_id)
    }
    return items
  }
  const groups = encodeTurns<ResponseInputItem[]>(turns, tag, {
    user: (turn) => [{ role: 'user', content: userContent(turn) }],
    tool: (turn) => toolOutputs(turn, custom),
    replay: (items) => noteCalls(replayItems(items.data, encrypted, warnings)),
    reencode: (turn) => noteCalls(reencode(turn)),
  })
  return withoutUnansweredCalls(groups.flat(), warnings)
}

/** Calls the model asks the caller to run with a tool of the API's (not a function of its own). */
export const CLIENT_RUN_CALLS: ReadonlySet<string> = new Set([
  'computer_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
])

/**
 * `input` without the calls of the API's client-run tools (computer use, shell, apply_patch) that
 * no `<type>_output` item answers, and without the reasoning just before such a call, each named
 * in `warnings`. thinkwire hands these calls to no one, so they stay unanswered, and the API
 * refuses the whole request for one ("No tool output found for computer call ...").
 */
function withoutUnansweredCalls(
  input: ResponseInputItem[],
  warnings: string[],
): ResponseInputItem[] {
  const answered = new Set<string>()
  for (const item of input) {
    const { type, call_id: id } = item as { type?: unknown; call_id?: unknown }
    if (typeof type === 'string' && type.endsWith('_output')) answered.add(`${type} ${String(id)}`)
  }
  const out: ResponseInputItem[] = []
  for (const item of input) {
    const { type, call_id: id } = item as { type?: unknown; call_id?: unknown }
    if (
      typeof type !== 'string' ||
      !CLIENT_RUN_CALLS.has(type) ||
      answered.has(`${type}_output ${String(id)}`)
    ) {
      out.push(item)
      continue
    }
    // What the model reasoned to make the call goes with it: a reasoning item needs what followed it.
    while (out.at(-1)?.type === 'reasoning') out.pop()
    warnings.push(
      `${type} ${String(id)} left out: no output answers it, and the API refuses a call without one`,
    )
  }
  return out
}

function userContent(turn: UserTurn): string | ResponseInputMessageContentList {
  if (typeof turn.content === 'string') return turn.content
  return turn.content.map((part) => {
    if (part.type === 'text') return { type: 'input_text', text: part.text }
    const url = 'url' in part ? part.url : `data:${part.mediaType};base64,${part.data}`
    return { type: 'input_image', image_url: url, detail: 'auto' }
  })
}

function toolOutputs(turn: ToolTurn, custom: ReadonlySet<string>): ResponseInputItem[] {
  return turn.results.map((result): ResponseInputItem => {
    const text = typeof result.output === 'string' ? result.output : JSON.stringify(result.output)
    // The Responses API has no error flag on a tool result: say it in the output.
    const output = result.isError === true ? `Error: ${text}` : text
    const type = custom.has(result.callId) ? 'custom_tool_call_output' : 'function_call_output'
    return { type, call_id: result.callId, output }
  })
}

/**
 * A stored turn's items as input, in order; without its reasoning and compaction items unless
 * `encrypted`. What a reasoning item produced is bound to it by item id: once the reasoning item
 * is left out, the API refuses what follows it with its id ("Item 'fc_...' of type
 * 'function_call' was provided without its required 'reasoning' item", and the same of a
 * `web_search_call`), up to the next reasoning item. What may go without an id goes without it (a
 * call is paired with its output by `call_id`); a hosted tool's record, which the API takes only
 * with its id, is left out and named in `warnings`: the answer after it still carries what the
 * tool found.
 */
function replayItems(
  data: readonly unknown[],
  encrypted: boolean,
  warnings: string[],
): ResponseInputItem[] {
  const out: ResponseInputItem[] = []
  /** The last reasoning item was left out: what follows it goes without its id. */
  let unbound = false
  for (const item of data) {
    if (!isItem(item)) continue
    if (item.type === 'reasoning') {
      unbound = !encrypted || !hasEncryptedContent(item)
      if (!unbound) out.push(item)
      continue
    }
    if (item.type === 'compaction') {
      const compaction = compactionInput(item)
      if (encrypted && compaction !== undefined) out.push(compaction)
      continue
    }
    if (unbound && ID_REQUIRED.has(item.type)) {
      const id = 'id' in item ? String(item.id) : '(no id)'
      warnings.push(
        `${item.type} ${id} left out: the reasoning item it followed is not sent, and the API takes it only with that reasoning item (its id is required)`,
      )
      continue
    }
    out.push(unbound ? withoutId(item) : item)
  }
  // A reasoning item must be followed by what it produced; a turn cut short may end on one.
  while (out.at(-1)?.type === 'reasoning') out.pop()
  return out
}

/**
 * Item types whose input form takes no id (the SDK's `ResponseInputItem` has it optional): what
 * follows a reasoning item left out goes without it.
 */
const ID_OPTIONAL: ReadonlySet<string> = new Set([
  'message',
  'function_call',
  'custom_tool_call',
  'tool_search_call',
  'tool_search_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
])

/**
 * Item types whose input form requires their id (the SDK's `ResponseInputItem`): the records of
 * the API's hosted tools, which are bound to the reasoning item before them and refused without
 * it, and cannot drop the id that binds them.
 */
const ID_REQUIRED: ReadonlySet<string> = new Set([
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'computer_call',
  'local_shell_call',
  'local_shell_call_output',
  'program',
  'program_output',
])

/** `item` without its `id`, where its type may go without one; any other item as it is. */
function withoutId(item: StoredItem): StoredItem {
  if (!ID_OPTIONAL.has(item.type) || !('id' in item)) return item
  const copy: Record<string, unknown> = { ...item }
  delete copy['id']
  return isItem(copy) ? copy : item
}

/**
 * A compaction item as input: its type, id and encrypted summary. The output item may carry more
 * (`created_by`) than the input item takes, and the API refuses a field it does not know. Nothing
 * for one without its encrypted content, which it would refuse too.
 */
function compactionInput(item: StoredItem): ResponseCompactionItemParam | undefined {
  if (!('encrypted_content' in item) || typeof item.encrypted_content !== 'string') return undefined
  const out: ResponseCompactionItemParam = {
    type: 'compaction',
    encrypted_content: item.encrypted_content,
  }
  if ('id' in item && typeof item.id === 'string') out.id = item.id
  return out
}

/** A stored output item: a JSON object with a string `type`, sent back as stored. */
type StoredItem = ResponseInputItem & { type: string }

function isItem(value: unknown): value is StoredItem {
  return isRecord(value) && typeof value['type'] === 'string'
}

function hasEncryptedContent(item: object): boolean {
  return 'encrypted_content' in item && typeof item.encrypted_content === 'string'
}

/**
 * A turn from elsewhere: its text as an assistant message and its calls as tool call items. A
 * call whose input is a string is a custom tool call (its raw input); function call arguments are
 * a JSON object, which a string is not.
 */
function reencode(turn: AssistantTurn): ResponseInputItem[] {
  const out: ResponseInputItem[] = []
  if (turn.text !== '') out.push({ role: 'assistant', content: turn.text })
  for (const call of turn.toolCalls ?? []) {
    const { id: call_id, name, input } = call
    const item: ResponseFunctionToolCall | ResponseCustomToolCall =
      typeof input === 'string'
        ? { type: 'custom_tool_call', call_id, name, input }
        : { type: 'function_call', call_id, name, arguments: JSON.stringify(input ?? {}) }
    out.push(item)
  }
  return out
}
