import type {
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseInputMessageContentList,
} from 'openai/resources/responses/responses'
import type { AssistantTurn, ToolTurn, Turn, UserTurn } from '../../core/conversation.ts'
import { isRecord } from '../../kit/json.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'

/**
 * Encodes turns as Responses `input` items. A turn of this provider, model and thinking mode goes
 * back as its stored `output` items, in order and untouched, except reasoning items without
 * `encrypted_content` (with `store: false` the API cannot look them up by id and answers 404) and
 * a trailing reasoning item with nothing after it (the API refuses one without its follower).
 * Any other assistant turn becomes an assistant message and `function_call` items, without
 * reasoning; tool results become `function_call_output` items.
 */
export function encodeInput(turns: readonly Turn[], tag: ReplayTag): ResponseInputItem[] {
  const groups = encodeTurns<ResponseInputItem[]>(turns, tag, {
    user: (turn) => [{ role: 'user', content: userContent(turn) }],
    tool: toolOutputs,
    replay: (items) => replayItems(items.data),
    reencode,
  })
  return groups.flat()
}

function userContent(turn: UserTurn): string | ResponseInputMessageContentList {
  if (typeof turn.content === 'string') return turn.content
  return turn.content.map((part) => {
    if (part.type === 'text') return { type: 'input_text', text: part.text }
    const url = 'url' in part ? part.url : `data:${part.mediaType};base64,${part.data}`
    return { type: 'input_image', image_url: url, detail: 'auto' }
  })
}

function toolOutputs(turn: ToolTurn): ResponseInputItem[] {
  return turn.results.map((result) => {
    const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output)
    return {
      type: 'function_call_output',
      call_id: result.callId,
      // The Responses API has no error flag on a tool result: say it in the output.
      output: result.isError === true ? `Error: ${output}` : output,
    }
  })
}

function replayItems(data: readonly unknown[]): ResponseInputItem[] {
  const out: ResponseInputItem[] = []
  for (const item of data) {
    if (!isItem(item)) continue
    if (item.type === 'reasoning' && !hasEncryptedContent(item)) continue
    out.push(item)
  }
  // A reasoning item must be followed by what it produced; a turn cut short may end on one.
  while (out.at(-1)?.type === 'reasoning') out.pop()
  return out
}

/** A stored output item: a JSON object with a string `type`, sent back exactly as stored. */
function isItem(value: unknown): value is ResponseInputItem & { type: string } {
  return isRecord(value) && typeof value['type'] === 'string'
}

function hasEncryptedContent(item: object): boolean {
  return 'encrypted_content' in item && typeof item.encrypted_content === 'string'
}

function reencode(turn: AssistantTurn): ResponseInputItem[] {
  const out: ResponseInputItem[] = []
  if (turn.text !== '') out.push({ role: 'assistant', content: turn.text })
  for (const call of turn.toolCalls ?? []) {
    const item: ResponseFunctionToolCall = {
      type: 'function_call',
      call_id: call.id,
      name: call.name,
      arguments: JSON.stringify(call.input ?? {}),
    }
    out.push(item)
  }
  return out
}
