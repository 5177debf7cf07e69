import type { AssistantTurn, Conversation, ToolResult, UserTurn } from '../../core/conversation.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import type { CompatibleReasoning, ReasoningField } from './reasoning.ts'
import type { AssembledCall } from './tool-calls.ts'

/** One Chat Completions message, as sent. */
export type Message = JsonRecord

/**
 * The `messages` of a request. An assistant turn this server and model made under the same
 * thinking mode is sent back as the message stored in its items, verbatim (with the reasoning
 * fields the server needs); any other is rebuilt from its text and tool calls, without reasoning.
 * Where the server requires reasoning fields on such a turn, they are sent empty.
 */
export function encodeMessages(
  conversation: Conversation,
  tag: ReplayTag,
  reasoning: CompatibleReasoning,
): Message[] {
  const messages: Message[] = []
  if (conversation.system !== undefined && conversation.system !== '')
    messages.push({ role: 'system', content: conversation.system })
  const encoded = encodeTurns<Message[]>(conversation.turns, tag, {
    user: (turn) => [encodeUser(turn)],
    tool: (turn) => turn.results.map(encodeToolResult),
    replay: (items, turn) => {
      const message = items.data[0]
      return isRecord(message) && message['role'] === 'assistant'
        ? [message]
        : [reencode(turn, reasoning)]
    },
    reencode: (turn) => [reencode(turn, reasoning)],
  })
  for (const group of encoded) messages.push(...group)
  return messages
}

/**
 * The assistant message of a finished turn, as the server will want it back: the answer (without
 * inline reasoning), the tool calls with their arguments exactly as streamed (and the
 * `extra_content` the server put on each, such as Gemini's thought signature), and the reasoning
 * fields this server needs on such a turn.
 */
export function assistantMessage(
  turn: { text: string; calls: AssembledCall[] },
  reasoningFields: { reasoning: string; reasoningDetails: JsonRecord[] },
  reasoning: CompatibleReasoning,
): Message {
  const hasCalls = turn.calls.length > 0
  const message: Message = {
    role: 'assistant',
    content: turn.text === '' && hasCalls ? null : turn.text,
  }
  if (hasCalls)
    message['tool_calls'] = turn.calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
      ...(call.extraContent === undefined ? {} : { extra_content: call.extraContent }),
    }))
  for (const field of fieldsFor(reasoning, hasCalls)) {
    message[field] =
      field === 'reasoning_details' ? reasoningFields.reasoningDetails : reasoningFields.reasoning
  }
  return message
}

function fieldsFor(reasoning: CompatibleReasoning, hasCalls: boolean): readonly ReasoningField[] {
  if (reasoning.sendBackOn === 'tool-calls' && !hasCalls) return []
  return reasoning.sendBack ?? []
}

function encodeUser(turn: UserTurn): Message {
  if (typeof turn.content === 'string') return { role: 'user', content: turn.content }
  return {
    role: 'user',
    content: turn.content.map((part) => {
      if (part.type === 'text') return { type: 'text', text: part.text }
      const url = 'data' in part ? `data:${part.mediaType};base64,${part.data}` : part.url
      return { type: 'image_url', image_url: { url } }
    }),
  }
}

/** Chat Completions has no error flag on a tool result: a failure says so in its content. */
function encodeToolResult(result: ToolResult): Message {
  const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output)
  return {
    role: 'tool',
    tool_call_id: result.callId,
    content: result.isError === true ? `Error: ${output}` : output,
  }
}

function reencode(turn: AssistantTurn, reasoning: CompatibleReasoning): Message {
  const calls = (turn.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
  }))
  const message = assistantMessage(
    { text: turn.text, calls },
    { reasoning: '', reasoningDetails: [] },
    reasoning.required === true ? reasoning : { ...reasoning, sendBack: [] },
  )
  return message
}
