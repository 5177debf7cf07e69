import type { AssistantTurn, StopReason, Usage } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { StopReasonNames, StreamEncoder, StreamFailure } from '../dialects.ts'
import { writeDelta } from '../write-delta.ts'
import { statusFromKind } from '../status.ts'
import { messagesErrorBody } from './errors.ts'
import { sealedBlock } from './sealed-block.ts'

/** Anthropic's `stop_reason`. */
export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal'

/** Anthropic's `usage`, plus `cost` as the relay reports it on its other routes. */
export type MessagesUsage = {
  /** Input tokens not read from or written to the cache (Anthropic counts those apart). */
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  output_tokens: number
  output_tokens_details?: { thinking_tokens: number }
  /** What the call cost in US dollars, when the model's price is known; absent otherwise. */
  cost?: number
}

/** A content block of an answer, as the Messages API writes it. */
export type MessagesContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }

/** The non-streamed answer: Anthropic's `Message`. */
export type MessagesMessage = {
  /** `msg_…`, the message's id. */
  id: string
  type: 'message'
  role: 'assistant'
  /** The relay id the client asked for (`anthropic/claude-sonnet-4-5`). */
  model: string
  content: MessagesContentBlock[]
  stop_reason: MessagesStopReason
  stop_sequence: null
  usage: MessagesUsage
}

/** What the `message_start` of an answer and its non-streamed message say about it. */
export type MessagesMeta = Pick<MessagesMessage, 'id' | 'model'>

/**
 * The signature of a thinking block the answer shows: empty. The provider's real signatures (and
 * Gemini's and OpenAI's reasoning state, which has none of Anthropic's shape) are inside the
 * sealed items of the block that ends the answer; a visible block is for display, and the relay
 * never sends one upstream, so it carries nothing a client could pair with other text.
 */
const SHOWN = ''

/** The text and thinking blocks' delta event around its JSON text (see `deltaHead`). */
const DELTA_TAIL = '}}\n\n'

/**
 * Creates the encoder of one streamed answer as the Messages API's SSE events
 * (`event: <type>\ndata: <json>\n\n`). A pure state machine: it holds whether `message_start`
 * was sent, the index of the last block and whether it is open, and does no I/O.
 *
 * `message_start` comes before the first delta. Thinking and text stream as blocks of their own, a
 * new block each time the kind changes; each tool call is a `tool_use` block with its whole input
 * in one `input_json_delta`. The end closes the last block, adds the sealed block, then
 * `message_delta` and `message_stop`; a failure is an `error` event in its place (no
 * `message_stop` follows).
 *
 * @example
 * ```ts
 * const encode = createMessagesEncoder({ id: 'msg_1', model: 'mock/echo' })
 * for await (const event of adapter.stream(conversation)) {
 *   write(event.type === 'done' ? encode.done(event.turn) : encode.delta(event))
 * }
 * ```
 */
export function createMessagesEncoder(meta: MessagesMeta): StreamEncoder<StreamFailure> {
  let started = false
  let index = -1
  let open: 'text' | 'thinking' | undefined
  // The hot path: a text or thinking delta inside its block is this text, one `JSON.stringify` of
  // the delta's text and `DELTA_TAIL`. It changes only when a block opens.
  let head = ''

  const start = (): string => {
    if (started) return ''
    started = true
    const message = {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // Not known before the end: `message_delta` carries the counts (the SDKs take them there).
      usage: { input_tokens: 0, output_tokens: 0 },
    }
    return sse('message_start', { type: 'message_start', message })
  }
  const close = (): string => {
    if (open === undefined) return ''
    open = undefined
    return blockStop(index)
  }
  const openBlock = (kind: 'text' | 'thinking'): string => {
    const before = start() + close()
    index++
    open = kind
    head = deltaHead(index, kind)
    const block =
      kind === 'text' ? { type: 'text', text: '' } : { type: kind, thinking: '', signature: SHOWN }
    return before + blockStart(index, block)
  }

  const piece = (type: 'text' | 'thinking', text: string): string => {
    if (text === '') return ''
    return open === type
      ? `${head}${JSON.stringify(text)}${DELTA_TAIL}`
      : `${openBlock(type)}${head}${JSON.stringify(text)}${DELTA_TAIL}`
  }
  const toolCall = (call: ToolCall): string => start() + close() + toolUse(++index, call)

  return {
    delta: (event) => writeDelta(event, piece, toolCall),
    done(turn) {
      let out = start() + close()
      const sealed = sealedBlock(turn)
      if (sealed !== undefined) {
        // Whole, in one delta: the SDK's accumulator sets (not appends) a block's signature.
        index++
        out +=
          blockStart(index, { ...sealed, signature: '' }) +
          sse('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: sealed.signature },
          }) +
          blockStop(index)
      }
      const delta = { stop_reason: stopReasonOf(turn.stopReason), stop_sequence: null }
      return (
        out +
        sse('message_delta', { type: 'message_delta', delta, usage: usageOf(turn.usage) }) +
        sse('message_stop', { type: 'message_stop' })
      )
    },
    error(failure) {
      return sse('error', messagesErrorBody(statusFromKind(failure.kind), failure.message))
    },
  }
}

/**
 * The non-streamed `Message` of a turn: its thinking (one block), its text, its tool calls, and the
 * sealed block last when the turn is sealed.
 */
export function messageResponse(turn: AssistantTurn, meta: MessagesMeta): MessagesMessage {
  const content: MessagesContentBlock[] = []
  if (turn.thinking !== undefined && turn.thinking !== '')
    content.push({ type: 'thinking', thinking: turn.thinking, signature: SHOWN })
  if (turn.text !== '') content.push({ type: 'text', text: turn.text })
  for (const call of turn.toolCalls ?? []) content.push(toolUseBlock(call))
  const sealed = sealedBlock(turn)
  if (sealed !== undefined) content.push(sealed)
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: stopReasonOf(turn.stopReason),
    stop_sequence: null,
    usage: usageOf(turn.usage),
  }
}

/**
 * Anthropic's `stop_reason` for each stop reason. A caller's abort still ends a complete answer;
 * the relay does not say which stop sequence ended one (`stop_sequence` is always null).
 */
const STOP_REASONS: StopReasonNames<MessagesStopReason> = {
  stop: 'end_turn',
  aborted: 'end_turn',
  other: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  refusal: 'refusal',
}

/** Anthropic's `stop_reason` for a stop reason (see `STOP_REASONS`). */
export function stopReasonOf(reason: StopReason): MessagesStopReason {
  return STOP_REASONS[reason]
}

/**
 * Anthropic's `usage` for a turn's token counts: its input tokens apart from the cached ones (a
 * turn's `inputTokens` includes them), its thinking tokens when known, and the turn's `cost` in US
 * dollars when it has one. No price, no `cost` field: never a made-up 0.
 */
export function usageOf(usage: Usage): MessagesUsage {
  const read = usage.cacheReadTokens ?? 0
  const written = usage.cacheWriteTokens ?? 0
  const out: MessagesUsage = {
    input_tokens: Math.max(0, usage.inputTokens - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    output_tokens: usage.outputTokens,
  }
  if (usage.reasoningTokens !== undefined)
    out.output_tokens_details = { thinking_tokens: usage.reasoningTokens }
  if (usage.cost !== undefined) out.cost = usage.cost
  return out
}

function toolUseBlock(call: ToolCall): MessagesContentBlock {
  return { type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) }
}

/** A tool call as a block: its start with an empty input, the whole input as one delta, its stop. */
function toolUse(index: number, call: ToolCall): string {
  return (
    blockStart(index, { type: 'tool_use', id: call.id, name: call.name, input: {} }) +
    sse('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(inputOf(call)) },
    }) +
    blockStop(index)
  )
}

/** `?? {}`: an input of undefined would otherwise vanish from the JSON. */
function inputOf(call: ToolCall): unknown {
  return call.input ?? {}
}

function deltaHead(index: number, kind: 'text' | 'thinking'): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"${kind}_delta","${kind}":`
}

function blockStart(index: number, block: object): string {
  return sse('content_block_start', { type: 'content_block_start', index, content_block: block })
}

function blockStop(index: number): string {
  return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`
}

// JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the event.
function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}
