/**
 * A LangChain chat model as an upstream: LangChain's own `FakeStreamingChatModel`, streaming
 * scripted message chunks (tool-call chunks included), recording what it was sent, and able to
 * fail or stall part-way. Its request is the messages as plain JSON plus the tools bound to it.
 */
import type { BaseMessage } from '@langchain/core/messages'
import { AIMessageChunk } from '@langchain/core/messages'
import { ChatGenerationChunk } from '@langchain/core/outputs'
import { FakeStreamingChatModel } from '@langchain/core/utils/testing'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { isJson, objects, stringField } from './wire.ts'

/** What the model does on each call. */
export type LangChainScript = {
  chunks: () => AIMessageChunk[]
  /** Throw this after streaming the chunks. */
  failWith?: Error | undefined
  /** After the chunks, wait until the call's signal aborts. */
  stall?: boolean | undefined
}

/** One call the model received. */
export type LangChainCall = {
  messages: unknown[]
  tools: unknown[] | undefined
  signal: AbortSignal | undefined
}

function plain(message: BaseMessage): unknown {
  const out: Record<string, unknown> = { type: message.getType(), content: message.content }
  if (Object.keys(message.additional_kwargs).length > 0)
    out['additional_kwargs'] = message.additional_kwargs
  if ('tool_calls' in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
    out['tool_calls'] = message.tool_calls
  if ('tool_call_id' in message) out['tool_call_id'] = message.tool_call_id
  return out
}

/** A fake LangChain chat model that plays `script` and records every call. */
export class ScriptedChatModel extends FakeStreamingChatModel {
  readonly calls: LangChainCall[] = []
  readonly script: LangChainScript
  bound: unknown[] | undefined

  constructor(script: LangChainScript) {
    super({ sleep: 0 })
    this.script = script
  }

  override bindTools(tools: unknown[]) {
    this.bound = tools
    return this.withConfig({})
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
  ): AsyncGenerator<ChatGenerationChunk> {
    this.calls.push({ messages: messages.map(plain), tools: this.bound, signal: options.signal })
    for (const message of this.script.chunks()) {
      yield new ChatGenerationChunk({
        message,
        text: typeof message.content === 'string' ? message.content : '',
      })
    }
    if (this.script.failWith !== undefined) throw this.script.failWith
    if (this.script.stall === true) {
      await new Promise<void>((resolve) => {
        const signal = options.signal
        if (signal === undefined) return
        if (signal.aborted) return resolve()
        signal.addEventListener('abort', () => resolve(), { once: true })
      })
    }
  }
}

/** The tool call the answer streams. */
export const langchainToolCall = { name: 'get_weather', input: { city: 'Graz' } }

/** What the answer streams as thinking and as text. */
export const langchainStreamed = { thinking: 'Graz … Werkzeug 🧮', text: 'Es ist kühl in Graz.' }

/** Reasoning in `additional_kwargs` and in a content block, text, a tool call in two chunks, usage. */
export function langchainAnswer(): AIMessageChunk[] {
  const usage = Object.assign(new AIMessageChunk({ content: '' }), {
    usage_metadata: {
      input_tokens: 12,
      output_tokens: 9,
      total_tokens: 21,
      output_token_details: { reasoning: 5 },
    },
  })
  return [
    new AIMessageChunk({ content: '', additional_kwargs: { reasoning_content: 'Graz … ' } }),
    // Reasoning as a standard content block, as newer integrations send it.
    new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'Werkzeug 🧮' }] }),
    new AIMessageChunk({ content: 'Es ist kühl ' }),
    new AIMessageChunk({ content: 'in Graz.' }),
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [
        {
          id: 'call_lc_contract',
          name: 'get_weather',
          args: '{"city":',
          index: 0,
          type: 'tool_call_chunk',
        },
      ],
    }),
    new AIMessageChunk({
      content: '',
      tool_call_chunks: [{ args: ' "Graz"}', index: 0, type: 'tool_call_chunk' }],
    }),
    usage,
  ]
}

/** Reasoning, then the end the integration reports for the output limit (`finish_reason`). */
export function langchainCutShort(): AIMessageChunk[] {
  return [
    new AIMessageChunk({ content: '', additional_kwargs: { reasoning_content: 'Graz … lange ' } }),
    new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'denken 🧠' }] }),
    new AIMessageChunk({ content: '', response_metadata: { finish_reason: 'length' } }),
  ]
}

/**
 * The reasoning a turn keeps in its record, which reaches the model only on replay: the pieces of
 * the integration's own message (its `reasoning_content` and reasoning blocks) when the record
 * kept it, else the record's joined reasoning.
 */
export function langchainMarkers(turn: AssistantTurn): string[] {
  const record = objects(turn.items?.data)[0] ?? {}
  const message = record['message']
  if (isJson(message)) {
    const kwargs = message['additional_kwargs']
    const pieces = objects(message['content']).flatMap((block) => {
      const text = stringField(block, 'reasoning') ?? stringField(block, 'thinking')
      return text === undefined ? [] : [text]
    })
    const content = isJson(kwargs) ? stringField(kwargs, 'reasoning_content') : undefined
    return content === undefined ? pieces : [content, ...pieces]
  }
  const reasoning = stringField(record, 'reasoning')
  return reasoning === undefined ? [] : [reasoning]
}

/**
 * What LangChain chat models (and the APIs behind them) refuse: a tool message whose
 * `tool_call_id` is not a call of the AI message before it (only tool messages between), an AI
 * tool call without an id, a name or object args, and a message of an unknown type.
 */
export function langchainRequestProblems(request: unknown): string[] {
  if (!isJson(request) || !Array.isArray(request['messages'])) return ['no messages were sent']
  const problems: string[] = []
  let open = new Set<unknown>()
  objects(request['messages']).forEach((message, i) => {
    const at = `messages[${i}]`
    const type = message['type']
    if (!['system', 'human', 'ai', 'tool'].includes(String(type)))
      problems.push(`${at} has type ${String(type)}`)
    if (type === 'tool') {
      if (!open.delete(message['tool_call_id']))
        problems.push(`${at} answers ${String(message['tool_call_id'])}, no open call before it`)
      return
    }
    open = new Set()
    objects(message['tool_calls']).forEach((call, j) => {
      if (
        typeof call['id'] !== 'string' ||
        typeof call['name'] !== 'string' ||
        !isJson(call['args'])
      )
        problems.push(`${at}.tool_calls[${j}] needs an id, a name and object args`)
      open.add(call['id'])
    })
  })
  return problems
}
