import { parseDialect, randomId, type Dialect } from '../dialects.ts'
import { createUiStreamEncoder } from './encode.ts'
import { uiErrorResponse } from './errors.ts'
import { rewriteUiField } from './rewrite-field.ts'
import { translateUiRequest } from './translate-request.ts'

/**
 * `POST /v1/ai-sdk/chat`: the AI SDK's UI message stream (v1), so that `useChat` with a
 * `DefaultChatTransport` pointed at the relay works unchanged (DESIGN §12). It only streams; a
 * changed sealed turn is dropped, not refused (`useChat` resends what it was given).
 */
export const aiSdkDialect: Dialect = {
  parse: parseDialect({
    translate: translateUiRequest,
    rename: (field, { origins }) => rewriteUiField(field, origins),
    // The answer goes on with the message it continues, after its steps so far.
    meta: ({ continues }, model) => ({
      messageId: continues?.id ?? randomId('msg_'),
      model,
      earlier: continues?.earlier ?? [],
    }),
    encoder: createUiStreamEncoder,
  }),
  error: uiErrorResponse,
  onChangedSeal: 'drop',
  streamHeaders: { 'x-vercel-ai-ui-message-stream': 'v1' },
}

export {
  createUiStreamEncoder,
  finishReason,
  type UiFinishReason,
  type UiMessageMetadata,
  type UiStep,
  type UiStreamEncoderOptions,
} from './encode.ts'
export { uiErrorPart, uiErrorResponse, type UiErrorPart } from './errors.ts'
export { rewriteUiField, type TurnOrigin } from './rewrite-field.ts'
export {
  translateUiRequest,
  UI_REQUEST_FIELDS,
  type TranslatedUiRequest,
} from './translate-request.ts'
