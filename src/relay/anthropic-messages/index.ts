import { randomId, type Dialect, type DialectCall } from '../dialects.ts'
import { jsonResponse, withRetryAfter } from '../responses.ts'
import { validateChatRequest } from '../validate-request.ts'
import { createMessagesEncoder, messageResponse } from './encode.ts'
import { messagesErrorResponse } from './errors.ts'
import { rewriteError } from './rewrite-field.ts'
import { translateMessagesRequest } from './translate-request.ts'

export {
  createMessagesEncoder,
  messageResponse,
  stopReasonOf,
  usageOf,
  type MessagesContentBlock,
  type MessagesEncoder,
  type MessagesFailure,
  type MessagesMessage,
  type MessagesMeta,
  type MessagesStopReason,
  type MessagesUsage,
} from './encode.ts'
export {
  anthropicStatus,
  messagesErrorBody,
  messagesErrorResponse,
  type MessagesErrorBody,
  type MessagesErrorType,
} from './errors.ts'
export { isSealedSignature, sealedBlock, sealedRecordOf, type SealedBlock } from './sealed-block.ts'
export { rewriteError, rewriteField } from './rewrite-field.ts'
export {
  MESSAGES_FIELDS,
  translateMessagesRequest,
  type FieldUse,
  type RefusedMessagesRequest,
  type TranslatedMessagesRequest,
} from './translate-request.ts'
export type { TurnSource } from './translate-messages.ts'

/**
 * `POST /v1/messages`: Anthropic's Messages API, for any Anthropic client (DESIGN §12). The relay
 * token comes as the client's API key, in `x-api-key`, or in `authorization: Bearer`. An answer
 * sealed by the relay ends with a thinking block whose signature is the sealed turn: sent back
 * with the message, it is checked and replayed; changed, it is dropped (a plain Anthropic client
 * cannot repair a 400).
 */
export const messagesDialect: Dialect = {
  parse(body, limits) {
    const translated = translateMessagesRequest(body)
    if (!translated.ok) return { ok: false, field: translated.field, message: translated.message }
    const checked = validateChatRequest(translated.request, limits)
    if (!checked.ok) return { ok: false, ...rewriteError(checked.error, translated.sources) }
    const { model, conversation, options } = checked.value
    const meta = { id: randomId('msg_'), model }
    const call: DialectCall = {
      model,
      conversation,
      options,
      stream: translated.stream,
      notes: translated.notes,
      encoder() {
        const encode = createMessagesEncoder(meta)
        return {
          delta: (event) => encode.delta(event),
          done: (turn) => encode.done(turn),
          error: (failure) => encode.error({ kind: failure.kind, message: failure.message }),
        }
      },
      respond: (turn) => jsonResponse(200, messageResponse(turn, meta)),
    }
    return { ok: true, call }
  },
  error(status, kind, message, details = {}, headers = {}) {
    const out = withRetryAfter(headers, details.retryAfterMs)
    return messagesErrorResponse(status, kind, message, details.field, out)
  },
  onChangedSeal: 'drop',
  tokenHeader: 'x-api-key',
}
