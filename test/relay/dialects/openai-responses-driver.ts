/** `POST /v1/responses` (OpenAI Responses) for the dialect conformance table. */
import { readSse } from '../sse-reader.ts'
import type { DialectDriver, DriverAnswer } from './driver.ts'

type OutputItem =
  | { type: 'message'; id: string; content: { type: string; text?: string }[] }
  | { type: 'reasoning'; id: string; summary: { text: string }[]; encrypted_content?: string }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string }
type Usage = { input_tokens: number; output_tokens: number }
type Response = {
  output: OutputItem[]
  usage: Usage | null
  status: string
  error: { message: string } | null
}
type Data = {
  type: string
  sequence_number: number
  output_index?: number
  item_id?: string
  item?: OutputItem
  delta?: string
  response?: Response
  message?: string
}

/** The events that open every stream, before the first one that carries the answer. */
const OPENING = new Set(['response.created', 'response.in_progress'])

export const responsesDriver: DialectDriver = {
  name: '/v1/responses',
  path: '/v1/responses',
  nonStreaming: true,
  request(call) {
    const input = call.turns.flatMap((turn): unknown[] => {
      switch (turn.role) {
        case 'user':
          return [{ role: 'user', content: turn.text }]
        case 'assistant':
          // The Response's output items, as a client keeps them and sends them back.
          return turn.answer.echo as unknown[]
        case 'tool':
          return turn.results.map((r) => ({
            type: 'function_call_output',
            call_id: r.id,
            output: r.output,
          }))
      }
    })
    const body: Record<string, unknown> = {
      model: call.model,
      input,
      stream: call.stream,
      store: false,
      include: ['reasoning.encrypted_content'],
    }
    if (call.tools !== undefined)
      body['tools'] = call.tools.map((tool) => ({ type: 'function', ...tool, strict: false }))
    if (call.thinking !== undefined)
      body['reasoning'] = { effort: call.thinking ? 'high' : 'none', summary: 'auto' }
    return { body }
  },
  auth: (token) => ({ authorization: `Bearer ${token}` }),
  async read(response, call) {
    if (response.headers.get('content-type') === 'application/json') {
      // A Response has `error: null`; an error answer is `{ error }` with its status.
      const body = (await response.json()) as Response
      if (!response.ok)
        return {
          ok: false,
          status: response.status,
          message: body.error!.message,
          afterFirstEvent: false,
        }
      if (call.stream) throw new Error('a streamed call was answered with JSON')
      return { ok: true, status: response.status, answer: answerOf(body) }
    }
    const { events } = await readSse(response)
    const output: OutputItem[] = []
    let text = ''
    let thinking = ''
    let carried = false
    for (const [index, event] of events.entries()) {
      const data = JSON.parse(event.data) as Data
      // The framing every Responses client reads: the event's name is its type, numbered in order.
      if (data.type !== event.event) throw new Error(`${event.event} carries ${data.type}`)
      if (data.sequence_number !== index) throw new Error(`event ${index} is numbered otherwise`)
      if (index === 0 && data.type !== 'response.created')
        throw new Error(`the stream starts with ${data.type}`)
      if (data.type === 'response.failed') {
        const error = JSON.parse(events.at(-1)!.data) as Data
        if (index !== events.length - 2 || error.type !== 'error')
          throw new Error('response.failed is not followed by a last error event')
        if (data.response?.error?.message !== error.message)
          throw new Error('response.failed and the error event disagree')
        return {
          ok: false,
          status: response.status,
          message: error.message!,
          afterFirstEvent: carried,
        }
      }
      if (!OPENING.has(data.type)) carried = true
      switch (data.type) {
        case 'response.output_item.added':
          if (data.output_index !== output.length) throw new Error('an item was added out of order')
          output.push(data.item!)
          break
        case 'response.output_item.done':
          if (output[data.output_index!]?.id !== data.item!.id)
            throw new Error('an item was done that was not added')
          output[data.output_index!] = data.item!
          break
        case 'response.output_text.delta':
        case 'response.reasoning_summary_text.delta': {
          const item = output[data.output_index!]
          if (item === undefined || item.id !== data.item_id)
            throw new Error(`a delta names an item that is not open: ${data.item_id}`)
          if (data.type === 'response.output_text.delta') text += data.delta
          else thinking += data.delta
          break
        }
        case 'response.completed':
        case 'response.incomplete': {
          if (index !== events.length - 1) throw new Error(`${data.type} was not the last event`)
          const final = data.response!
          if (JSON.stringify(final.output) !== JSON.stringify(output))
            throw new Error('the final Response’s output is not the items streamed')
          const answer = answerOf(final)
          if (answer.text !== text || answer.thinking !== thinking)
            throw new Error('the deltas do not add up to the final output')
          return { ok: true, status: response.status, answer }
        }
      }
    }
    throw new Error('the stream ended without response.completed or response.failed')
  },
}

function answerOf(response: Response): DriverAnswer {
  let text = ''
  let thinking = ''
  const toolCalls: DriverAnswer['toolCalls'] = []
  for (const item of response.output) {
    if (item.type === 'message') for (const part of item.content) text += part.text ?? ''
    if (item.type === 'reasoning') for (const part of item.summary) thinking += part.text
    if (item.type === 'function_call')
      toolCalls.push({ id: item.call_id, name: item.name, input: JSON.parse(item.arguments) })
  }
  return {
    text,
    thinking,
    toolCalls,
    usage:
      response.usage === null
        ? undefined
        : { inputTokens: response.usage.input_tokens, outputTokens: response.usage.output_tokens },
    echo: response.output,
  }
}
