/** `POST /v1/chat/completions` (OpenAI Chat Completions) for the dialect conformance table. */
import { readSse } from '../sse-reader.ts'
import type { DialectDriver, DriverAnswer } from './driver.ts'

type Call = { id: string; type: 'function'; function: { name: string; arguments: string } }
type Message = {
  role: 'assistant'
  content: string | null
  reasoning_content?: string
  tool_calls?: Call[]
  reasoning_details?: unknown[]
}
type Usage = { prompt_tokens: number; completion_tokens: number }
type Chunk = {
  choices: {
    delta: Partial<Message> & { tool_calls?: (Partial<Call> & { index: number })[] }
    finish_reason: string | null
  }[]
  usage?: Usage
  error?: { message: string }
}

export const completionsDriver: DialectDriver = {
  name: '/v1/chat/completions',
  path: '/v1/chat/completions',
  nonStreaming: true,
  request(call) {
    const messages = call.turns.flatMap((turn): unknown[] => {
      switch (turn.role) {
        case 'user':
          return [{ role: 'user', content: turn.text }]
        case 'assistant':
          return [turn.answer.echo]
        case 'tool':
          return turn.results.map((r) => ({ role: 'tool', tool_call_id: r.id, content: r.output }))
      }
    })
    const body: Record<string, unknown> = { model: call.model, messages, stream: call.stream }
    if (call.stream) body['stream_options'] = { include_usage: true }
    if (call.tools !== undefined)
      body['tools'] = call.tools.map((tool) => ({ type: 'function', function: tool }))
    if (call.thinking !== undefined) body['reasoning_effort'] = call.thinking ? 'high' : 'none'
    return { body }
  },
  auth: (token) => ({ authorization: `Bearer ${token}` }),
  async read(response, call) {
    if (response.headers.get('content-type') === 'application/json') {
      const body = (await response.json()) as {
        error?: { message: string }
        choices?: { message: Message }[]
        usage?: Usage
      }
      if (body.error !== undefined)
        return {
          ok: false,
          status: response.status,
          message: body.error.message,
          afterFirstEvent: false,
        }
      if (call.stream) throw new Error('a streamed call was answered with JSON')
      return {
        ok: true,
        status: response.status,
        answer: answerOf(body.choices![0]!.message, body.usage),
      }
    }
    const { events } = await readSse(response)
    const chunks: Chunk[] = []
    for (const [index, event] of events.entries()) {
      if (event.data === '[DONE]') {
        if (index !== events.length - 1) throw new Error('[DONE] was not the last event')
        continue
      }
      const chunk = JSON.parse(event.data) as Chunk
      if (chunk.error !== undefined) {
        const afterFirstEvent = index > 0
        return { ok: false, status: response.status, message: chunk.error.message, afterFirstEvent }
      }
      chunks.push(chunk)
    }
    if (events.at(-1)?.data !== '[DONE]') throw new Error('the stream did not end with [DONE]')
    const message: Message = { role: 'assistant', content: '' }
    const calls: Call[] = []
    let usage: Usage | undefined
    for (const chunk of chunks) {
      if (chunk.usage !== undefined) usage = chunk.usage
      const delta = chunk.choices[0]?.delta
      if (delta === undefined) continue
      if (delta.content != null) message.content += delta.content
      if (delta.reasoning_content !== undefined)
        message.reasoning_content = (message.reasoning_content ?? '') + delta.reasoning_content
      for (const part of delta.tool_calls ?? []) {
        const known = calls[part.index]
        if (known === undefined) calls[part.index] = part as Call
        else known.function.arguments += part.function?.arguments ?? ''
      }
      if (delta.reasoning_details !== undefined) message.reasoning_details = delta.reasoning_details
    }
    if (calls.length > 0) message.tool_calls = calls
    return { ok: true, status: response.status, answer: answerOf(message, usage) }
  },
}

function answerOf(message: Message, usage: Usage | undefined): DriverAnswer {
  return {
    text: message.content ?? '',
    thinking: message.reasoning_content ?? '',
    toolCalls: (message.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      input: JSON.parse(c.function.arguments) as unknown,
    })),
    usage:
      usage === undefined
        ? undefined
        : { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
    echo: message,
  }
}
