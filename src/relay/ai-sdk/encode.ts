import type { StopReason, Usage } from '../../core/conversation.ts'
import type { WireError } from '../../core/wire.ts'
import type { ToolCall } from '../../core/events.ts'
import type { StopReasonNames, StreamEncoder } from '../dialects.ts'
import { writeDelta } from '../write-delta.ts'
import { encodeSealedTurn } from '../sealed-turn.ts'
import { uiErrorPart } from './errors.ts'

/**
 * One step of an assistant UI message (one model call, between a `start-step` and its
 * `finish-step`), as the relay records it in the message's metadata.
 */
export type UiStep = {
  /** The relay model id that answered it (`anthropic/claude-sonnet-4-5`). */
  model: string
  /** Its token counts, and its cost when the model's price is known. */
  usage: Usage
  /**
   * The sealed turn (base64url; see `encodeSealedTurn`): what the relay verifies and replays when
   * the message comes back. Absent when the relay has no seal keys.
   */
  sealed?: string | undefined
}

/**
 * The `metadata` of an assistant UI message the relay answered, sent in the `finish` part's
 * `messageMetadata`. `steps[k]` is the k-th step of the message (its k-th `step-start` part); null
 * for a step the relay has no record of (one that failed, or another server's).
 */
export type UiMessageMetadata = { thinkwire: { steps: (UiStep | null)[] } }

/** The AI SDK's `finishReason` of a `finish` part. */
export type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'other'

/** Options of {@link createUiStreamEncoder}. */
export type UiStreamEncoderOptions = {
  /** The assistant message the answer writes: the one it continues, or a new one. */
  messageId: string
  /** The relay model id the client asked for. */
  model: string
  /** The steps of the message before this answer's, kept in its metadata (see {@link UiMessageMetadata}). */
  earlier: readonly (UiStep | null)[]
}

const DONE = 'data: [DONE]\n\n'

/**
 * Creates the encoder of one streamed answer as the AI SDK's UI message stream (SSE `data:` lines
 * of JSON parts). A pure state machine: it holds whether the message was started, which text or
 * reasoning part is open, and how many parts it opened; it does no I/O.
 *
 * Each delta's parts open the message, its step and a text or reasoning part as needed. The end
 * closes the open part and the step, then `finish` with the message's metadata, then `[DONE]`; a
 * failure is an `error` part in its place, then `[DONE]`, as the AI SDK's own servers end a failed
 * stream.
 *
 * @example
 * ```ts
 * const encode = createUiStreamEncoder({ messageId: 'msg_1', model: 'mock/echo', earlier: [] })
 * for await (const event of adapter.stream(conversation)) {
 *   write(event.type === 'done' ? encode.done(event.turn) : encode.delta(event))
 * }
 * ```
 */
export function createUiStreamEncoder(options: UiStreamEncoderOptions): StreamEncoder<WireError> {
  const { messageId, model, earlier } = options
  let started = false
  /** The part being streamed, by the deltas it holds: a text part, or a reasoning part. */
  let open: 'text' | 'thinking' | undefined
  let openId = ''
  let parts = 0
  // The hot path: a delta of the open part is this text, one `JSON.stringify` of the delta's text,
  // and `}` with the frame's end; nothing else is built per token.
  let head = ''

  const start = (): string => {
    if (started) return ''
    started = true
    return sse({ type: 'start', messageId }) + sse({ type: 'start-step' })
  }
  const close = (): string => {
    if (open === undefined) return ''
    const out = sse({ type: `${partOf(open)}-end`, id: openId })
    open = undefined
    return out
  }
  const piece = (type: 'text' | 'thinking', text: string): string => {
    if (text === '') return ''
    if (open === type) return `${head}${JSON.stringify(text)}}\n\n`
    let out = start() + close()
    const kind = partOf(type)
    open = type
    openId = `${kind}-${parts++}`
    head = `data: {"type":"${kind}-delta","id":"${openId}","delta":`
    out += sse({ type: `${kind}-start`, id: openId })
    return `${out}${head}${JSON.stringify(text)}}\n\n`
  }
  const toolCall = ({ id, name, input }: ToolCall): string =>
    start() + close() + sse({ type: 'tool-input-available', toolCallId: id, toolName: name, input })

  return {
    delta: (event) => writeDelta(event, piece, toolCall),
    done(turn) {
      const step: UiStep = { model, usage: turn.usage }
      const sealed = encodeSealedTurn(turn)
      if (sealed !== undefined) step.sealed = sealed
      const messageMetadata: UiMessageMetadata = { thinkwire: { steps: [...earlier, step] } }
      const finish = {
        type: 'finish',
        finishReason: finishReason(turn.stopReason),
        messageMetadata,
      }
      return `${start()}${close()}${sse({ type: 'finish-step' })}${sse(finish)}${DONE}`
    },
    error(failure) {
      const part = uiErrorPart(failure.kind, failure.message, {
        retryable: failure.retryable,
        retryAfterMs: failure.retryAfterMs,
      })
      return sse(part) + DONE
    },
  }
}

/** The AI SDK's finish reason for each stop reason. A caller's abort ends a complete answer. */
const FINISH_REASONS: StopReasonNames<UiFinishReason> = {
  stop: 'stop',
  aborted: 'stop',
  length: 'length',
  'tool-calls': 'tool-calls',
  refusal: 'content-filter',
  other: 'other',
}

/** The AI SDK's finish reason for a stop reason (see `FINISH_REASONS`). */
export function finishReason(reason: StopReason): UiFinishReason {
  return FINISH_REASONS[reason]
}

/** The kind of UI part that streams deltas of `type`. */
function partOf(type: 'text' | 'thinking'): 'text' | 'reasoning' {
  return type === 'thinking' ? 'reasoning' : 'text'
}

// JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the part.
function sse(part: object): string {
  return `data: ${JSON.stringify(part)}\n\n`
}
