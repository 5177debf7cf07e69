import { assertNever } from '../../core/assert-never.ts'
import type { StopReason, Usage } from '../../core/conversation.ts'
import type { WireError } from '../../core/wire.ts'
import type { StreamEncoder } from '../dialects.ts'
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
  let open: 'text' | 'reasoning' | undefined
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
    const out = sse({ type: `${open}-end`, id: openId })
    open = undefined
    return out
  }
  const piece = (kind: 'text' | 'reasoning', text: string): string => {
    if (text === '') return ''
    if (open === kind) return `${head}${JSON.stringify(text)}}\n\n`
    let out = start() + close()
    open = kind
    openId = `${kind}-${parts++}`
    head = `data: {"type":"${kind}-delta","id":"${openId}","delta":`
    out += sse({ type: `${kind}-start`, id: openId })
    return `${out}${head}${JSON.stringify(text)}}\n\n`
  }

  return {
    delta(event) {
      switch (event.type) {
        case 'thinking':
          return piece('reasoning', event.text)
        case 'text':
          return piece('text', event.text)
        case 'tool-call': {
          const { id, name, input } = event.call
          return (
            start() +
            close() +
            sse({ type: 'tool-input-available', toolCallId: id, toolName: name, input })
          )
        }
        default:
          return assertNever(event)
      }
    },
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

/** The AI SDK's finish reason for a stop reason. A caller's abort still ends a complete answer. */
export function finishReason(reason: StopReason): UiFinishReason {
  switch (reason) {
    case 'stop':
    case 'aborted':
      return 'stop'
    case 'length':
      return 'length'
    case 'tool-calls':
      return 'tool-calls'
    case 'refusal':
      return 'content-filter'
    case 'other':
      return 'other'
    default:
      return assertNever(reason)
  }
}

// JSON.stringify escapes CR and LF inside strings, so one `data:` line always holds the part.
function sse(part: object): string {
  return `data: ${JSON.stringify(part)}\n\n`
}
