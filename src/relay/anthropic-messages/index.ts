import { parseDialect, randomId, type Dialect } from '../dialects.ts'
import { createMessagesEncoder, messageResponse } from './encode.ts'
import { messagesErrorResponse } from './errors.ts'
import { rewriteField } from './rewrite-field.ts'
import { translateMessagesRequest } from './translate-request.ts'

/**
 * `POST /v1/messages`: Anthropic's Messages API, for any Anthropic client (DESIGN §12). The relay
 * token comes as the client's API key, in `x-api-key`, or in `authorization: Bearer`. An answer
 * sealed by the relay ends with a thinking block whose signature is the sealed turn: sent back
 * with the message, it is checked and replayed; changed, it is dropped (a plain Anthropic client
 * cannot repair a 400).
 */
export const messagesDialect: Dialect = {
  parse: parseDialect({
    translate: translateMessagesRequest,
    rename: (field, { sources }) => rewriteField(field, sources),
    meta: (_, model) => ({ id: randomId('msg_'), model }),
    encoder: createMessagesEncoder,
    body: messageResponse,
  }),
  error: messagesErrorResponse,
  onChangedSeal: 'drop',
  tokenHeader: 'x-api-key',
}

export {
  createMessagesEncoder,
  messageResponse,
  stopReasonOf,
  usageOf,
  type MessagesContentBlock,
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
export { rewriteField } from './rewrite-field.ts'
export {
  MESSAGES_FIELDS,
  translateMessagesRequest,
  type TranslatedMessagesRequest,
} from './translate-request.ts'
export type { TurnSource } from './translate-messages.ts'
