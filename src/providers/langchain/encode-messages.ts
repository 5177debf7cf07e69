import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages'
import type { AssistantTurn, Conversation, UserTurn } from '../../core/conversation.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'
import { isRecord } from '../../kit/json.ts'

/** The record of a turn, kept as its items. */
export type LangChainTurnRecord = {
  text: string
  /** The reasoning the model exposed, sent back to the same model. */
  reasoning?: string | undefined
  toolCalls?: { id: string; name: string; args: unknown }[] | undefined
  /** The message as the integration assembled it, sent back to the same model as it was. */
  message?: NativeMessage | undefined
}

/** What a LangChain integration keeps on its message and reads back on replay, as plain JSON. */
export type NativeMessage = {
  /** Provider-native content blocks (signed thinking, reasoning, tool-use blocks, ...). */
  content?: unknown[] | undefined
  additional_kwargs?: { [key: string]: unknown } | undefined
  response_metadata?: { [key: string]: unknown } | undefined
}

/**
 * LangChain messages for a conversation. A turn this model made under the same thinking mode is
 * rebuilt from its record: the integration's own content blocks, `additional_kwargs` and
 * `response_metadata` when it kept them (so signatures and encrypted reasoning go back as they
 * came), else its reasoning as `additional_kwargs.reasoning_content`, where LangChain
 * integrations keep it. Any other assistant turn is rebuilt from its text and tool calls alone.
 */
export function encodeMessages(conversation: Conversation, tag: ReplayTag): BaseMessage[] {
  const messages: BaseMessage[] = []
  if (conversation.system !== undefined && conversation.system !== '')
    messages.push(new SystemMessage(conversation.system))
  const encoded = encodeTurns<BaseMessage[]>(conversation.turns, tag, {
    user: (turn) => [encodeUser(turn)],
    tool: (turn) =>
      turn.results.map(
        (result) =>
          new ToolMessage({
            content:
              typeof result.output === 'string' ? result.output : JSON.stringify(result.output),
            tool_call_id: result.callId,
            name: result.name,
            status: result.isError === true ? 'error' : 'success',
          }),
      ),
    replay: (items, turn) => {
      const record = items.data[0]
      return [isTurnRecord(record) ? fromRecord(record) : reencode(turn)]
    },
    reencode: (turn) => [reencode(turn)],
  })
  for (const group of encoded) messages.push(...group)
  return messages
}

function encodeUser(turn: UserTurn): HumanMessage {
  if (typeof turn.content === 'string') return new HumanMessage(turn.content)
  return new HumanMessage({
    content: turn.content.map((part) => {
      if (part.type === 'text') return { type: 'text', text: part.text }
      const url = 'data' in part ? `data:${part.mediaType};base64,${part.data}` : part.url
      return { type: 'image_url', image_url: { url } }
    }),
  })
}

function toolCallsOf(calls: { id: string; name: string; args: unknown }[]) {
  return calls.map((call) => ({
    id: call.id,
    name: call.name,
    args: isRecord(call.args) ? call.args : { input: call.args },
    type: 'tool_call' as const,
  }))
}

function fromRecord(record: LangChainTurnRecord): AIMessage {
  const native = record.message
  const kwargs =
    native?.additional_kwargs ??
    (record.reasoning === undefined ? {} : { reasoning_content: record.reasoning })
  return new AIMessage({
    content: (native?.content as AIMessage['content'] | undefined) ?? record.text,
    tool_calls: toolCallsOf(record.toolCalls ?? []),
    additional_kwargs: kwargs,
    response_metadata: native?.response_metadata ?? {},
  })
}

function reencode(turn: AssistantTurn): AIMessage {
  const calls = (turn.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    args: call.input,
  }))
  return new AIMessage({ content: turn.text, tool_calls: toolCallsOf(calls) })
}

function isTurnRecord(value: unknown): value is LangChainTurnRecord {
  return (
    isRecord(value) &&
    typeof value['text'] === 'string' &&
    (value['reasoning'] === undefined || typeof value['reasoning'] === 'string') &&
    (value['toolCalls'] === undefined || Array.isArray(value['toolCalls'])) &&
    (value['message'] === undefined || isNativeMessage(value['message']))
  )
}

function isNativeMessage(value: unknown): value is NativeMessage {
  return (
    isRecord(value) &&
    (value['content'] === undefined || Array.isArray(value['content'])) &&
    (value['additional_kwargs'] === undefined || isRecord(value['additional_kwargs'])) &&
    (value['response_metadata'] === undefined || isRecord(value['response_metadata']))
  )
}
