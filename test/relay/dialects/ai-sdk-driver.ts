/**
 * `POST /v1/ai-sdk/chat` (the AI SDK's UI message stream) for the dialect conformance table, read
 * as `useChat` reads it: the `DefaultChatTransport` parses and checks every part against the AI
 * SDK's schema, and `readUIMessageStream` folds them into the message, going on with the last
 * assistant message as the client does after a tool's output.
 */
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import type { UiMessageMetadata } from '../../../src/relay/ai-sdk/index.ts'
import type { DialectDriver, DriverAnswer, DriverCall } from './driver.ts'

type Part = UIMessage['parts'][number]
type ToolPart = Extract<Part, { toolCallId: string }>

export const aiSdkDriver: DialectDriver = {
  name: '/v1/ai-sdk/chat',
  path: '/v1/ai-sdk/chat',
  nonStreaming: false,
  request(call) {
    if (!call.stream) throw new Error('/v1/ai-sdk/chat always streams')
    const messages = messagesOf(call)
    const last = messages.at(-1)
    const body: Record<string, unknown> = {
      id: 'conformance',
      messages,
      trigger: 'submit-message',
      model: call.model,
    }
    // After a tool's output, the client names the assistant message it goes on with.
    if (last?.role === 'assistant') body['messageId'] = last.id
    if (call.tools !== undefined) body['tools'] = call.tools
    if (call.thinking !== undefined) body['thinking'] = call.thinking ? 'high' : 'off'
    return { body }
  },
  auth: (token) => ({ authorization: `Bearer ${token}` }),
  async read(response, call) {
    if (response.headers.get('content-type') === 'application/json') {
      const part = (await response.json()) as { type: string; errorText: string }
      if (part.type !== 'error') throw new Error(`a refusal's body was a ${part.type} part`)
      return { ok: false, status: response.status, message: part.errorText, afterFirstEvent: false }
    }
    if (response.headers.get('x-vercel-ai-ui-message-stream') !== 'v1')
      throw new Error('a UI message stream without its x-vercel-ai-ui-message-stream header')
    const raw = await response.text()
    if (!raw.endsWith('data: [DONE]\n\n')) throw new Error('the stream did not end with [DONE]')
    const parts = await clientParts(raw)
    const failed = parts.findIndex((part) => part.type === 'error')
    if (failed !== -1) {
      const { errorText } = parts[failed] as Extract<UIMessageChunk, { type: 'error' }>
      return { ok: false, status: response.status, message: errorText, afterFirstEvent: failed > 0 }
    }
    if (parts.at(-1)?.type !== 'finish') throw new Error('the stream did not end with finish')
    const continued = messagesOf(call).at(-1)
    const message = await messageOf(parts, continued?.role === 'assistant' ? continued : undefined)
    return { ok: true, status: response.status, answer: answerOf(message) }
  },
}

/** The UI messages a client holds for `call`'s turns. */
function messagesOf(call: DriverCall): UIMessage[] {
  const messages: UIMessage[] = []
  call.turns.forEach((turn, i) => {
    switch (turn.role) {
      case 'user':
        messages.push({ id: `u${i}`, role: 'user', parts: [{ type: 'text', text: turn.text }] })
        break
      case 'assistant': {
        const echo = structuredClone(turn.answer.echo as UIMessage)
        // An answer after a tool's output goes on with the message the call was in: the client
        // holds one message, the later one.
        const last = messages.at(-1)
        if (last?.role === 'assistant' && last.id === echo.id) messages[messages.length - 1] = echo
        else messages.push(echo)
        break
      }
      case 'tool': {
        // `addToolOutput`: each result goes into its call's part.
        const last = messages.at(-1)
        if (last?.role !== 'assistant') throw new Error('tool results follow an assistant turn')
        for (const result of turn.results) {
          const part = last.parts.find(
            (p): p is ToolPart => 'toolCallId' in p && p.toolCallId === result.id,
          )
          if (part === undefined) throw new Error(`no tool part for call ${result.id}`)
          Object.assign(part, { state: 'output-available', output: result.output })
        }
        break
      }
    }
  })
  return messages
}

/** The parts the AI SDK's transport reads from `raw`, each checked against its schema. */
async function clientParts(raw: string): Promise<UIMessageChunk[]> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: 'http://relay.test/v1/ai-sdk/chat',
    fetch: async () => new Response(raw, { headers: { 'content-type': 'text/event-stream' } }),
  })
  const stream = await transport.sendMessages({
    chatId: 'conformance',
    messages: [],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  })
  const parts: UIMessageChunk[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

/** The message the client shows once `parts` are folded in, going on with `continued`. */
async function messageOf(parts: UIMessageChunk[], continued: UIMessage | undefined) {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
  let message: UIMessage | undefined
  const read = readUIMessageStream<UIMessage>({
    stream,
    terminateOnError: true,
    ...(continued === undefined ? {} : { message: continued }),
  })
  for await (const snapshot of read) message = snapshot
  if (message === undefined) throw new Error('the stream made no message')
  return message
}

/** This answer's step (the message's last) in the table's terms; the whole message is the echo. */
function answerOf(message: UIMessage): DriverAnswer {
  const start = message.parts.findLastIndex((part) => part.type === 'step-start')
  let text = ''
  let thinking = ''
  const toolCalls: DriverAnswer['toolCalls'] = []
  for (const part of message.parts.slice(start + 1)) {
    if (part.type === 'text') text += part.text
    else if (part.type === 'reasoning') thinking += part.text
    else if ('toolCallId' in part) {
      const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length)
      toolCalls.push({ id: part.toolCallId, name, input: part.input })
    }
  }
  const step = (message.metadata as UiMessageMetadata | undefined)?.thinkwire.steps.at(-1)
  const usage =
    step == null
      ? undefined
      : { inputTokens: step.usage.inputTokens, outputTokens: step.usage.outputTokens }
  return { text, thinking, toolCalls, usage, echo: message }
}
