import { assertNever } from '../../core/assert-never.ts'
import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { StreamDelta } from '../dialects.ts'
import { errorEvent, responseError, type ResponseError, type StreamFailure } from './errors.ts'
import { sealedReasoningItem, type ReasoningItem } from './sealed-reasoning.ts'

/**
 * The settings of a request that its Response repeats (`instructions`, `tools`, `tool_choice`, ...),
 * as the client sent them or OpenAI's defaults.
 */
export type ResponseEcho = {
  instructions: string | null
  max_output_tokens: number | null
  temperature: number | null
  tool_choice: unknown
  tools: unknown[]
  reasoning: { effort: string | null; summary: string | null }
  text: { format: unknown }
  metadata: { [key: string]: unknown }
}

/** What every event of one answer repeats about its Response. */
export type ResponseMeta = {
  /** `resp_…`: its item ids are made from it. */
  id: string
  /** Unix time in seconds. */
  createdAt: number
  /** The relay id the client asked for (`anthropic/claude-sonnet-4-5`). */
  model: string
  echo: ResponseEcho
}

/** An `output_text` part of a message item. */
export type OutputText = { type: 'output_text'; text: string; annotations: []; logprobs: [] }

/** An assistant `message` output item. */
export type MessageItem = {
  id: string
  type: 'message'
  role: 'assistant'
  status: 'in_progress' | 'completed' | 'incomplete'
  content: OutputText[]
}

/** A `function_call` output item: `call_id` is the tool call's id, `arguments` its JSON input. */
export type FunctionCallItem = {
  id: string
  type: 'function_call'
  call_id: string
  name: string
  arguments: string
  status: 'in_progress' | 'completed'
}

/** An item of a Response's `output`. */
export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem

/** A Response's `status`. */
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed'

/** OpenAI's `usage` of a Response, plus `cost` as the Chat Completions endpoint reports it. */
export type ResponseUsage = {
  input_tokens: number
  input_tokens_details: { cached_tokens: number }
  output_tokens: number
  output_tokens_details: { reasoning_tokens: number }
  total_tokens: number
  /** What the call cost in US dollars, when the model's price is known; absent otherwise. */
  cost?: number
}

/** How a Response stands: what its `status`, `output` and `usage` say. */
type ResponseState = {
  status: ResponseStatus
  output: readonly OutputItem[]
  usage?: ResponseUsage | undefined
  error?: ResponseError | undefined
  incomplete?: 'max_output_tokens' | 'content_filter' | undefined
}

/**
 * A Response object of the Responses API: the answer so far (or whole), with the request's
 * settings repeated. `store` is always false: the relay keeps nothing.
 */
export function responseObject(meta: ResponseMeta, state: ResponseState) {
  const { echo } = meta
  return {
    id: meta.id,
    object: 'response' as const,
    created_at: meta.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete === undefined ? null : { reason: state.incomplete },
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: meta.model,
    output: state.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: echo.reasoning,
    store: false,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: null,
    truncation: 'disabled' as const,
    usage: state.usage ?? null,
    metadata: echo.metadata,
  }
}

/** The non-streamed Response of a turn: the same output items a stream of it ends with. */
export function responseBody(turn: AssistantTurn, meta: ResponseMeta) {
  const ids = itemIds(meta.id)
  const output: OutputItem[] = []
  if (turn.thinking !== undefined && turn.thinking !== '') {
    output.push(reasoningItem(ids(output.length, 'rs'), turn.thinking, 'completed'))
  }
  if (turn.text !== '') output.push(messageItem(ids(output.length, 'msg'), turn.text, 'completed'))
  for (const call of turn.toolCalls ?? []) {
    output.push(functionCallItem(ids(output.length, 'fc'), call, 'completed'))
  }
  const sealed = sealedReasoningItem(turn, ids(output.length, 'rs'))
  if (sealed !== undefined) output.push(sealed)
  return responseObject(meta, { ...ending(turn.stopReason), output, usage: usageOf(turn.usage) })
}

/** Writes one answer as Responses API SSE text (`event: <type>\ndata: <json>\n\n`). */
export type ResponsesEncoder = {
  /** The events of one delta (after `response.created` and `response.in_progress`, for the first). */
  delta(event: StreamDelta): string
  /** Closes the open item, adds the sealed one, then `response.completed` (or `.incomplete`). */
  done(turn: AssistantTurn): string
  /** `response.failed`, then an `error` event: the stream ends without `response.completed`. */
  error(failure: StreamFailure): string
}

/** The text item being streamed: a reasoning summary or a message. */
type Open = { type: 'reasoning' | 'message'; id: string; index: number; pieces: string[] }

/**
 * Creates the encoder of one streamed answer. A pure state machine: it holds the next sequence
 * number, the items done so far (for the Response that ends the stream) and the text item being
 * streamed, and does no I/O.
 *
 * Thinking streams as the summary of a `reasoning` item of its own, closed when the text or a
 * tool call starts; the sealed items come last, in another `reasoning` item (see
 * {@link sealedReasoningItem}), once the answer is complete, because the seal covers it whole.
 *
 * @example
 * ```ts
 * const encode = createResponsesEncoder({ id: 'resp_1', createdAt, model: 'mock/echo', echo })
 * for await (const event of adapter.stream(conversation)) {
 *   write(event.type === 'done' ? encode.done(event.turn) : encode.delta(event))
 * }
 * ```
 */
export function createResponsesEncoder(meta: ResponseMeta): ResponsesEncoder {
  const ids = itemIds(meta.id)
  const output: OutputItem[] = []
  // Each done item's JSON, made once for its `output_item.done` and used again in the Response
  // that ends the stream (a sealed record or a long answer would be serialized twice otherwise).
  const outputJson: string[] = []
  let sequence = 0
  let started = false
  let open: Open | undefined
  // The hot path: a delta of the open item is the same text around its sequence number and one
  // `JSON.stringify` of the delta's text, so nothing else is built or serialized per token.
  let deltaHead = ''
  let deltaMid = ''
  let deltaTail = ''

  const event = (type: string, fields: object): string =>
    // JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the event.
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`
  /** An event whose fields after its sequence number are `json` (members, without braces). */
  const eventOf = (type: string, json: string): string =>
    `${frameHead(type)}${sequence++},${json}}\n\n`

  /** An item's `output_item.done`; the item joins the output. */
  const itemDone = (index: number, item: OutputItem, json = JSON.stringify(item)): string => {
    output.push(item)
    outputJson.push(json)
    return eventOf('response.output_item.done', `"output_index":${index},"item":${json}`)
  }

  const start = (): string => {
    if (started) return ''
    started = true
    const response = responseObject(meta, { status: 'in_progress', output: [] })
    return event('response.created', { response }) + event('response.in_progress', { response })
  }

  const openItem = (type: Open['type']): string => {
    let out = close()
    const index = output.length
    if (type === 'reasoning') {
      const id = ids(index, 'rs')
      open = { type, id, index, pieces: [] }
      out += event('response.output_item.added', {
        output_index: index,
        item: { id, type: 'reasoning', summary: [], status: 'in_progress' },
      })
      out += event('response.reasoning_summary_part.added', {
        item_id: id,
        output_index: index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      })
      deltaHead = frameHead('response.reasoning_summary_text.delta')
      deltaMid = `,"item_id":"${id}","output_index":${index},"summary_index":0,"delta":`
      deltaTail = '}\n\n'
    } else {
      const id = ids(index, 'msg')
      open = { type, id, index, pieces: [] }
      out += event('response.output_item.added', {
        output_index: index,
        item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      })
      out += event('response.content_part.added', {
        item_id: id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      })
      deltaHead = frameHead('response.output_text.delta')
      deltaMid = `,"item_id":"${id}","output_index":${index},"content_index":0,"delta":`
      deltaTail = ',"logprobs":[]}\n\n'
    }
    return out
  }

  /** The events that close the open item, which joins the output. */
  const close = (): string => {
    if (open === undefined) return ''
    const { type, id, index, pieces } = open
    open = undefined
    const text = pieces.join('')
    // The text goes out three times (its own `done`, its part's, its item's) and once more in the
    // Response at the end: it is serialized once, and each is written around it, member for
    // member as `JSON.stringify` writes the item (the encoder's tests compare them).
    const said = JSON.stringify(text)
    const item = JSON.stringify(id)
    if (type === 'reasoning') {
      const at = `"item_id":${item},"output_index":${index},"summary_index":0`
      const part = `{"type":"summary_text","text":${said}}`
      return (
        eventOf('response.reasoning_summary_text.done', `${at},"text":${said}`) +
        eventOf('response.reasoning_summary_part.done', `${at},"part":${part}`) +
        itemDone(
          index,
          reasoningItem(id, text, 'completed'),
          `{"id":${item},"type":"reasoning","summary":[${part}],"status":"completed"}`,
        )
      )
    }
    const at = `"item_id":${item},"output_index":${index},"content_index":0`
    const part = `{"type":"output_text","text":${said},"annotations":[],"logprobs":[]}`
    return (
      eventOf('response.output_text.done', `${at},"text":${said},"logprobs":[]`) +
      eventOf('response.content_part.done', `${at},"part":${part}`) +
      itemDone(
        index,
        messageItem(id, text, 'completed'),
        `{"id":${item},"type":"message","role":"assistant","status":"completed","content":[${part}]}`,
      )
    )
  }

  const piece = (type: Open['type'], text: string): string => {
    if (text === '') return ''
    const before = open?.type === type ? '' : start() + openItem(type)
    open!.pieces.push(text)
    return `${before}${deltaHead}${sequence++}${deltaMid}${JSON.stringify(text)}${deltaTail}`
  }

  const toolCall = (call: ToolCall): string => {
    let out = start() + close()
    const index = output.length
    const id = ids(index, 'fc')
    const item = functionCallItem(id, call, 'completed')
    out += event('response.output_item.added', {
      output_index: index,
      item: { ...item, arguments: '', status: 'in_progress' },
    })
    const at = { item_id: id, output_index: index }
    out += event('response.function_call_arguments.delta', { ...at, delta: item.arguments })
    out += event('response.function_call_arguments.done', {
      ...at,
      name: item.name,
      arguments: item.arguments,
    })
    return out + itemDone(index, item)
  }

  return {
    delta(delta) {
      switch (delta.type) {
        case 'thinking':
          return piece('reasoning', delta.text)
        case 'text':
          return piece('message', delta.text)
        case 'tool-call':
          return toolCall(delta.call)
        default:
          return assertNever(delta)
      }
    },
    done(turn) {
      let out = start() + close()
      const index = output.length
      const sealed = sealedReasoningItem(turn, ids(index, 'rs'))
      if (sealed !== undefined) {
        const { encrypted_content: _record, ...opened } = sealed
        out += event('response.output_item.added', {
          output_index: index,
          item: { ...opened, status: 'in_progress' },
        })
        out += itemDone(index, sealed)
      }
      const end = ending(turn.stopReason)
      const response = responseObject(meta, { ...end, output: [], usage: usageOf(turn.usage) })
      const type = end.status === 'completed' ? 'response.completed' : 'response.incomplete'
      return out + eventOf(type, `"response":${withOutput(JSON.stringify(response), outputJson)}`)
    },
    error(failure) {
      let out = start()
      // The item cut short goes in the failed Response as it stood, marked incomplete.
      const cut: OutputItem[] = []
      if (open !== undefined) {
        const text = open.pieces.join('')
        cut.push(
          open.type === 'reasoning'
            ? reasoningItem(open.id, text, 'incomplete')
            : messageItem(open.id, text, 'incomplete'),
        )
        open = undefined
      }
      const response = responseObject(meta, {
        status: 'failed',
        output: [...output, ...cut],
        error: responseError(failure),
      })
      out += event('response.failed', { response })
      const failed = errorEvent(failure, sequence++)
      return `${out}event: error\ndata: ${JSON.stringify(failed)}\n\n`
    },
  }
}

const NO_OUTPUT = '"output":[]'

/**
 * The JSON of a Response made with no output, with `items` (each an output item's JSON) as its
 * output, in its place. The first `"output":[]` is the Response's own: every member before it is
 * the relay's, and client text in them is inside JSON strings, whose quotes are escaped.
 */
function withOutput(json: string, items: readonly string[]): string {
  const at = json.indexOf(NO_OUTPUT)
  return `${json.slice(0, at)}"output":[${items.join(',')}]${json.slice(at + NO_OUTPUT.length)}`
}

/** The start of a delta event's frame, up to its sequence number. */
function frameHead(type: string): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":`
}

/** Item ids made from the response's: `msg_<response>_<output index>`. */
function itemIds(responseId: string): (index: number, prefix: 'rs' | 'msg' | 'fc') => string {
  const suffix = responseId.replace(/^resp_/, '')
  return (index, prefix) => `${prefix}_${suffix}_${index}`
}

function reasoningItem(id: string, text: string, status: ReasoningItem['status']): ReasoningItem {
  return { id, type: 'reasoning', summary: [{ type: 'summary_text', text }], status }
}

function messageItem(id: string, text: string, status: MessageItem['status']): MessageItem {
  return {
    id,
    type: 'message',
    role: 'assistant',
    status,
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  }
}

function functionCallItem(
  id: string,
  call: ToolCall,
  status: FunctionCallItem['status'],
): FunctionCallItem {
  return {
    id,
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    // `?? null`: an input of undefined would otherwise make the arguments vanish from the JSON.
    arguments: JSON.stringify(call.input ?? null),
    status,
  }
}

/**
 * How an answer that stopped for `reason` ends: `completed`, or `incomplete` with OpenAI's reason
 * for an answer cut at its token limit or by a content filter. A caller's abort still ends a
 * complete answer.
 */
function ending(reason: StopReason): Pick<ResponseState, 'status' | 'incomplete'> {
  switch (reason) {
    case 'stop':
    case 'tool-calls':
    case 'aborted':
    case 'other':
      return { status: 'completed' }
    case 'length':
      return { status: 'incomplete', incomplete: 'max_output_tokens' }
    case 'refusal':
      return { status: 'incomplete', incomplete: 'content_filter' }
    default:
      return assertNever(reason)
  }
}

/**
 * OpenAI's `usage` of a Response for a turn's token counts, with the turn's `cost` in US dollars
 * when it has one. No price, no `cost` field: never a made-up 0.
 */
export function usageOf(usage: Usage): ResponseUsage {
  const out: ResponseUsage = {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  }
  if (usage.cost !== undefined) out.cost = usage.cost
  return out
}
