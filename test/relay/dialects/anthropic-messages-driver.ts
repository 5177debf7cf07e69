/** `POST /v1/messages` (Anthropic's Messages API) for the dialect conformance table. */
import { readSse } from '../sse-reader.ts'
import type { DialectDriver, DriverAnswer, DriverCall } from './driver.ts'

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
type Usage = {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
}
type Message = { type: 'message'; content: Block[]; stop_reason: string; usage: Usage }
type ErrorBody = { type: 'error'; error: { type: string; message: string } }
type Delta =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'input_json_delta'; partial_json: string }
type StreamEvent =
  | { type: 'message_start'; message: Message }
  | { type: 'content_block_start'; index: number; content_block: Block }
  | { type: 'content_block_delta'; index: number; delta: Delta }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: string }; usage: Usage }
  | { type: 'message_stop' }

export const anthropicMessagesDriver: DialectDriver = {
  name: '/v1/messages',
  path: '/v1/messages',
  nonStreaming: true,
  request(call) {
    const messages = call.turns.map((turn) => {
      switch (turn.role) {
        case 'user':
          return { role: 'user', content: turn.text }
        case 'assistant':
          // The content as the client got it: the sealed block rides in it.
          return { role: 'assistant', content: turn.answer.echo }
        case 'tool':
          return {
            role: 'user',
            content: turn.results.map((r) => ({
              type: 'tool_result',
              tool_use_id: r.id,
              content: r.output,
            })),
          }
      }
    })
    const body: Record<string, unknown> = {
      model: call.model,
      max_tokens: 4096,
      messages,
      stream: call.stream,
    }
    if (call.tools !== undefined)
      body['tools'] = call.tools.map(({ name, description, parameters }) => ({
        name,
        description,
        input_schema: parameters,
      }))
    if (call.thinking !== undefined)
      body['thinking'] = { type: call.thinking ? 'adaptive' : 'disabled' }
    return { body, headers: { 'anthropic-version': '2023-06-01' } }
  },
  auth: (token) => ({ 'x-api-key': token }),
  async read(response, call) {
    if (response.headers.get('content-type') === 'application/json') {
      const body = (await response.json()) as Message | ErrorBody
      if (body.type === 'error') {
        const { message } = body.error
        return { ok: false, status: response.status, message, afterFirstEvent: false }
      }
      if (call.stream) throw new Error('a streamed call was answered with JSON')
      return { ok: true, status: response.status, answer: answerOf(body.content, body.usage) }
    }
    return readStream(response, call)
  },
}

/**
 * Reads a stream as the SDK's accumulator does, checking Anthropic's framing on the way:
 * `message_start` first, blocks opened in order and closed before the next, deltas only to the
 * open block, `message_delta` then `message_stop` last; or an `error` event in their place.
 */
async function readStream(response: Response, call: DriverCall) {
  if (!call.stream) throw new Error('a call that does not stream was answered with a stream')
  const { events } = await readSse(response)
  const content: Block[] = []
  const json: string[] = []
  let open: number | undefined
  let usage: Usage | undefined
  for (const [index, sse] of events.entries()) {
    if (sse.event === 'error') {
      if (index !== events.length - 1) throw new Error('the error event was not the last')
      const { error } = JSON.parse(sse.data) as ErrorBody
      const afterFirstEvent = index > 0
      return {
        ok: false as const,
        status: response.status,
        message: error.message,
        afterFirstEvent,
      }
    }
    const event = JSON.parse(sse.data) as StreamEvent
    if (event.type !== sse.event) throw new Error(`event ${sse.event} holds a ${event.type}`)
    if ((index === 0) !== (event.type === 'message_start'))
      throw new Error(`${event.type} at ${index}: message_start must come first, once`)
    switch (event.type) {
      case 'message_start':
        break
      case 'content_block_start':
        if (open !== undefined || event.index !== content.length)
          throw new Error(`block ${event.index} started out of order`)
        content.push({ ...event.content_block })
        json.push('')
        open = event.index
        break
      case 'content_block_delta': {
        if (event.index !== open) throw new Error(`a delta to block ${event.index}, not open`)
        const block = content[event.index]!
        const { delta } = event
        if (delta.type === 'text_delta' && block.type === 'text') block.text += delta.text
        else if (delta.type === 'thinking_delta' && block.type === 'thinking')
          block.thinking += delta.thinking
        else if (delta.type === 'signature_delta' && block.type === 'thinking')
          block.signature = delta.signature
        else if (delta.type === 'input_json_delta' && block.type === 'tool_use')
          json[event.index] += delta.partial_json
        else throw new Error(`a ${delta.type} to a ${block.type} block`)
        break
      }
      case 'content_block_stop': {
        if (event.index !== open) throw new Error(`block ${event.index} stopped, not open`)
        const block = content[event.index]!
        if (block.type === 'tool_use') block.input = JSON.parse(json[event.index] || '{}')
        open = undefined
        break
      }
      case 'message_delta':
        if (open !== undefined) throw new Error('message_delta with a block open')
        usage = event.usage
        break
      case 'message_stop':
        if (index !== events.length - 1) throw new Error('message_stop was not the last event')
        break
    }
  }
  if (events.at(-1)?.event !== 'message_stop') throw new Error('the stream did not end')
  return { ok: true as const, status: response.status, answer: answerOf(content, usage) }
}

function answerOf(content: Block[], usage: Usage | undefined): DriverAnswer {
  let text = ''
  let thinking = ''
  const toolCalls: DriverAnswer['toolCalls'] = []
  for (const block of content) {
    if (block.type === 'text') text += block.text
    if (block.type === 'thinking') thinking += block.thinking
    if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, name: block.name, input: block.input })
  }
  return {
    text,
    thinking,
    toolCalls,
    // Anthropic counts cached input apart; the table counts all of it.
    usage:
      usage === undefined
        ? undefined
        : {
            inputTokens:
              usage.input_tokens +
              (usage.cache_read_input_tokens ?? 0) +
              (usage.cache_creation_input_tokens ?? 0),
            outputTokens: usage.output_tokens,
          },
    echo: content,
  }
}
