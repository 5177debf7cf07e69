import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { StopReasonNames, StreamEncoder, StreamFailure } from '../dialects.ts'
import { writeDelta } from '../write-delta.ts'
import { errorEvent, responseError, type ResponseError } from './errors.ts'
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
 * A Response object of the Responses API: the answer so far (or whole), then the request's
 * settings repeated. `store` is always false: the relay keeps nothing.
 */
export function responseObject(meta: ResponseMeta, state: ResponseState) {
  return {
    id: meta.id,
    object: 'response' as const,
    created_at: meta.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: incompleteDetails(state),
    output: state.output,
    usage: state.usage ?? null,
    ...responseSettings(meta),
  }
}

/** The members of a Response that repeat the request's settings. */
function responseSettings(meta: ResponseMeta) {
  const { echo } = meta
  return {
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: meta.model,
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
    metadata: echo.metadata,
  }
}

function incompleteDetails(state: Pick<ResponseState, 'incomplete'>) {
  return state.incomplete === undefined ? null : { reason: state.incomplete }
}

/**
 * Writes the JSON of one answer's Responses as `JSON.stringify(responseObject(meta, state))`
 * writes it (the encoder's tests compare them), with `output` given as its items' JSON, each made
 * once. The request's settings, which every Response of the answer repeats, are serialized once;
 * they come last, so that each Response is written around them.
 */
function responseWriter(
  meta: ResponseMeta,
): (state: Omit<ResponseState, 'output'>, output: string) => string {
  const head = `{"id":${JSON.stringify(meta.id)},"object":"response","created_at":${JSON.stringify(meta.createdAt)}`
  // `{"instructions":…}` without its opening brace.
  const settings = JSON.stringify(responseSettings(meta)).slice(1)
  return (state, output) =>
    `${head},"status":"${state.status}","background":false,"error":${JSON.stringify(state.error ?? null)},"incomplete_details":${JSON.stringify(incompleteDetails(state))},"output":[${output}],"usage":${JSON.stringify(state.usage ?? null)},${settings}`
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

/**
 * The text item being streamed, by the deltas it holds: a reasoning item's summary (thinking) or a
 * message (text), and its text so far.
 */
type Open = { type: 'thinking' | 'text'; id: string; index: number; text: string }

/**
 * Creates the encoder of one streamed answer as Responses API SSE text
 * (`event: <type>\ndata: <json>\n\n`). A pure state machine: it holds the next sequence number,
 * the items done so far (for the Response that ends the stream) and the text item being streamed,
 * and does no I/O.
 *
 * `response.created` and `response.in_progress` come before the first delta. Thinking streams as
 * the summary of a `reasoning` item of its own, closed when the text or a tool call starts. The end
 * closes the open item and adds the sealed items last, in another `reasoning` item (see
 * {@link sealedReasoningItem}), because the seal covers the answer whole, then
 * `response.completed` (or `.incomplete`); a failure is `response.failed` and an `error` event in
 * its place, and the stream ends without `response.completed`.
 *
 * Every event is JSON written around the values it holds, member for member as `JSON.stringify`
 * writes the event (the encoder's tests compare them): each text is serialized once, however many
 * events repeat it, and the request's settings once for every Response of the answer.
 *
 * @example
 * ```ts
 * const encode = createResponsesEncoder({ id: 'resp_1', createdAt, model: 'mock/echo', echo })
 * for await (const event of adapter.stream(conversation)) {
 *   write(event.type === 'done' ? encode.done(event.turn) : encode.delta(event))
 * }
 * ```
 */
export function createResponsesEncoder(meta: ResponseMeta): StreamEncoder<StreamFailure> {
  const ids = itemIds(meta.id)
  const response = responseWriter(meta)
  /** How many items are done. */
  let done = 0
  // The JSON of the done items, comma-separated: each made once, for its `output_item.done` and
  // again in the Response that ends the stream.
  let outputJson = ''
  let sequence = 0
  let started = false
  let open: Open | undefined
  /** How many message items were opened. */
  let messages = 0
  // The hot path: a delta of the open item is the same text around its sequence number and one
  // `JSON.stringify` of the delta's text, so nothing else is built or serialized per token.
  let deltaHead = ''
  let deltaMid = ''
  let deltaTail = ''

  /** An event whose members after its sequence number are `json` (without braces). */
  const event = (type: string, json: string): string =>
    // JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the event.
    `${frameHead(type)}${sequence++},${json}}\n\n`

  /** An item's `output_item.done`, for its JSON; the item joins the output. */
  const itemDone = (index: number, json: string): string => {
    done++
    outputJson = outputJson === '' ? json : `${outputJson},${json}`
    return event('response.output_item.done', `"output_index":${index},"item":${json}`)
  }

  const start = (): string => {
    if (started) return ''
    started = true
    const created = `"response":${response({ status: 'in_progress' }, '')}`
    return event('response.created', created) + event('response.in_progress', created)
  }

  // Item ids are relay-made (letters, digits and `_`): written as they are.
  const openItem = (type: Open['type']): string => {
    let out = close()
    const index = done
    if (type === 'thinking') {
      const id = ids(index, 'rs')
      const at = `"item_id":"${id}","output_index":${index},"summary_index":0`
      open = { type, id, index, text: '' }
      out +=
        reasoningAdded(id, index) +
        event(
          'response.reasoning_summary_part.added',
          `${at},"part":{"type":"summary_text","text":""}`,
        )
      deltaHead = frameHead('response.reasoning_summary_text.delta')
      deltaMid = `,${at},"delta":`
      deltaTail = '}\n\n'
    } else {
      const id = ids(index, 'msg')
      const at = `"item_id":"${id}","output_index":${index},"content_index":0`
      open = { type, id, index, text: '' }
      messages++
      out +=
        event(
          'response.output_item.added',
          `"output_index":${index},"item":{"id":"${id}","type":"message","role":"assistant","status":"in_progress","content":[]}`,
        ) +
        event(
          'response.content_part.added',
          `${at},"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}`,
        )
      deltaHead = frameHead('response.output_text.delta')
      deltaMid = `,${at},"delta":`
      deltaTail = ',"logprobs":[]}\n\n'
    }
    return out
  }

  /** A reasoning item's `output_item.added`: a summary item, or the sealed item. */
  const reasoningAdded = (id: string, index: number): string =>
    event(
      'response.output_item.added',
      `"output_index":${index},"item":{"id":"${id}","type":"reasoning","summary":[],"status":"in_progress"}`,
    )

  /**
   * The events that close the open item, which joins the output. `whole`: the item's text when
   * the caller has it made already (the done turn's).
   */
  const close = (whole?: string): string => {
    if (open === undefined) return ''
    const { type, id, index, text } = open
    open = undefined
    // The text goes out three times (its own `done`, its part's, its item's) and once more in the
    // Response at the end: it is serialized once, and each is written around it.
    const said = JSON.stringify(whole ?? text)
    if (type === 'thinking') {
      const at = `"item_id":"${id}","output_index":${index},"summary_index":0`
      const part = `{"type":"summary_text","text":${said}}`
      return (
        event('response.reasoning_summary_text.done', `${at},"text":${said}`) +
        event('response.reasoning_summary_part.done', `${at},"part":${part}`) +
        itemDone(
          index,
          `{"id":"${id}","type":"reasoning","summary":[${part}],"status":"completed"}`,
        )
      )
    }
    const at = `"item_id":"${id}","output_index":${index},"content_index":0`
    const part = `{"type":"output_text","text":${said},"annotations":[],"logprobs":[]}`
    return (
      event('response.output_text.done', `${at},"text":${said},"logprobs":[]`) +
      event('response.content_part.done', `${at},"part":${part}`) +
      itemDone(
        index,
        `{"id":"${id}","type":"message","role":"assistant","status":"completed","content":[${part}]}`,
      )
    )
  }

  const piece = (type: Open['type'], text: string): string => {
    if (text === '') return ''
    const before = open?.type === type ? '' : start() + openItem(type)
    open!.text += text
    return `${before}${deltaHead}${sequence++}${deltaMid}${JSON.stringify(text)}${deltaTail}`
  }

  const toolCall = (call: ToolCall): string => {
    let out = start() + close()
    const index = done
    const item = functionCallItem(ids(index, 'fc'), call, 'completed')
    const at = `"item_id":"${item.id}","output_index":${index}`
    const args = JSON.stringify(item.arguments)
    out += event(
      'response.output_item.added',
      `"output_index":${index},"item":${JSON.stringify({ ...item, arguments: '', status: 'in_progress' })}`,
    )
    out += event('response.function_call_arguments.delta', `${at},"delta":${args}`)
    out += event(
      'response.function_call_arguments.done',
      `${at},"name":${JSON.stringify(item.name)},"arguments":${args}`,
    )
    return out + itemDone(index, JSON.stringify(item))
  }

  return {
    delta: (delta) => writeDelta(delta, piece, toolCall),
    done(turn) {
      // The done turn is the fold of the deltas: the answer's only message item holds all of its
      // text, made already. The item's own, a concatenation of every delta, would be copied once
      // more to be serialized: 1-5% of the encoder's time for a 1,000-event answer (the bench).
      const whole = open?.type === 'text' && messages === 1 ? turn.text : undefined
      let out = start() + close(whole)
      const index = done
      const sealed = sealedReasoningItem(turn, ids(index, 'rs'))
      if (sealed !== undefined) {
        out += reasoningAdded(sealed.id, index) + itemDone(index, JSON.stringify(sealed))
      }
      const end = ending(turn.stopReason)
      const type = end.status === 'completed' ? 'response.completed' : 'response.incomplete'
      const completed = response({ ...end, usage: usageOf(turn.usage) }, outputJson)
      return `${out}${event(type, `"response":${completed}`)}`
    },
    error(failure) {
      let out = start()
      // The item cut short goes in the failed Response as it stood, marked incomplete.
      let output = outputJson
      if (open !== undefined) {
        const { type, id, text } = open
        const cut =
          type === 'thinking'
            ? reasoningItem(id, text, 'incomplete')
            : messageItem(id, text, 'incomplete')
        output = output === '' ? JSON.stringify(cut) : `${output},${JSON.stringify(cut)}`
        open = undefined
      }
      const failed = response({ status: 'failed', error: responseError(failure) }, output)
      out += event('response.failed', `"response":${failed}`)
      return `${out}event: error\ndata: ${JSON.stringify(errorEvent(failure, sequence++))}\n\n`
    },
  }
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
 * How an answer that stopped for each reason ends: `completed`, or `incomplete` with OpenAI's
 * reason for an answer cut at its token limit or by a content filter. A caller's abort still ends a
 * complete answer.
 */
const ENDINGS: StopReasonNames<Pick<ResponseState, 'status' | 'incomplete'>> = {
  stop: { status: 'completed' },
  'tool-calls': { status: 'completed' },
  aborted: { status: 'completed' },
  other: { status: 'completed' },
  length: { status: 'incomplete', incomplete: 'max_output_tokens' },
  refusal: { status: 'incomplete', incomplete: 'content_filter' },
}

/** How an answer that stopped for `reason` ends (see `ENDINGS`). */
function ending(reason: StopReason): Pick<ResponseState, 'status' | 'incomplete'> {
  return ENDINGS[reason]
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
