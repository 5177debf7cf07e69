/**
 * The one harness of the LangChain tests: LangChain's own fake streaming model, scripted and
 * recording what it received, and the shared contract's view of an adapter on it.
 */
import type { BaseMessage } from '@langchain/core/messages'
import { AIMessageChunk } from '@langchain/core/messages'
import { ChatGenerationChunk } from '@langchain/core/outputs'
import { FakeStreamingChatModel } from '@langchain/core/utils/testing'

/** One call the recording model received. */
export type RecordedCall = {
  messages: unknown[]
  signal: AbortSignal | undefined
  options: unknown
}

/** What a {@link RecordingChatModel} does on each call. */
export type Script = {
  /** Message chunks to stream. */
  chunks: AIMessageChunk[]
  /** Throw this after streaming the chunks. */
  failWith?: Error | undefined
  /** After the chunks, wait until the call's signal aborts. */
  stall?: boolean | undefined
}

/** Plain JSON of a LangChain message, for assertions on what a model received. */
export function plain(message: BaseMessage): unknown {
  const out: Record<string, unknown> = { type: message.getType(), content: message.content }
  if (Object.keys(message.additional_kwargs).length > 0)
    out['additional_kwargs'] = message.additional_kwargs
  if ('tool_calls' in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
    out['tool_calls'] = message.tool_calls
  if ('tool_call_id' in message) {
    out['tool_call_id'] = message.tool_call_id
    out['status'] = (message as { status?: unknown }).status
  }
  return out
}

/**
 * LangChain's own `FakeStreamingChatModel`, streaming exactly the given message chunks (tool-call
 * chunks included), recording what it received, and able to fail or stall part-way.
 */
export class RecordingChatModel extends FakeStreamingChatModel {
  readonly calls: RecordedCall[] = []
  readonly script: Script
  boundTools: unknown[] | undefined
  boundOptions: unknown
  constructor(script: Script) {
    super({ sleep: 0 })
    this.script = script
  }

  override bindTools(tools: unknown[], kwargs?: unknown) {
    this.boundTools = tools
    this.boundOptions = kwargs
    return this.withConfig({})
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
  ): AsyncGenerator<ChatGenerationChunk> {
    this.calls.push({ messages: messages.map(plain), signal: options.signal, options })
    for (const message of this.script.chunks) {
      yield new ChatGenerationChunk({
        message,
        text: typeof message.content === 'string' ? message.content : '',
      })
    }
    if (this.script.failWith !== undefined) throw this.script.failWith
    if (this.script.stall === true) {
      await new Promise<void>((resolve) => {
        if (options.signal === undefined) return
        if (options.signal.aborted) return resolve()
        options.signal.addEventListener('abort', () => resolve(), { once: true })
      })
    }
  }
}

export function chunk(fields: ConstructorParameters<typeof AIMessageChunk>[0]): AIMessageChunk {
  return new AIMessageChunk(fields)
}

/** A chunk that carries LangChain's `usage_metadata` (set after construction: its field type is too narrow to build it with). */
export function usageChunk(usage: Record<string, unknown>): AIMessageChunk {
  return Object.assign(new AIMessageChunk({ content: '' }), { usage_metadata: usage })
}
