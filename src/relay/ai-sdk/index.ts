import { randomId, type Dialect, type DialectCall } from '../dialects.ts'
import { validateChatRequest } from '../validate-request.ts'
import { createUiStreamEncoder } from './encode.ts'
import { uiErrorResponse } from './errors.ts'
import { rewriteUiError } from './rewrite-field.ts'
import { translateUiRequest } from './translate-request.ts'

export {
  createUiStreamEncoder,
  finishReason,
  type UiFinishReason,
  type UiMessageMetadata,
  type UiStep,
  type UiStreamEncoder,
  type UiStreamEncoderOptions,
} from './encode.ts'
export { uiErrorPart, uiErrorResponse, type UiErrorPart } from './errors.ts'
export { rewriteUiError, rewriteUiField, type TurnOrigin } from './rewrite-field.ts'
export {
  translateUiRequest,
  UI_REQUEST_FIELDS,
  type RefusedUiRequest,
  type TranslatedUiRequest,
} from './translate-request.ts'

/**
 * `POST /v1/ai-sdk/chat`: the AI SDK's UI message stream (v1), so that `useChat` with a
 * `DefaultChatTransport` pointed at the relay works unchanged (DESIGN §12). It only streams; a
 * changed sealed turn is dropped, not refused (`useChat` resends what it was given).
 */
export const aiSdkDialect: Dialect = {
  parse(body, limits) {
    const translated = translateUiRequest(body)
    if (!translated.ok) return { ok: false, field: translated.field, message: translated.message }
    const checked = validateChatRequest(translated.request, limits)
    if (!checked.ok) return { ok: false, ...rewriteUiError(checked.error, translated.origins) }
    const { model, conversation, options } = checked.value
    const messageId = translated.continues?.id ?? randomId('msg_')
    const earlier = translated.continues?.earlier ?? []
    const call: DialectCall = {
      model,
      conversation,
      options,
      stream: true,
      notes: translated.notes,
      encoder: () => createUiStreamEncoder({ messageId, model, earlier }),
      respond: () => {
        throw new TypeError('a /v1/ai-sdk/chat answer always streams')
      },
    }
    return { ok: true, call }
  },
  error: uiErrorResponse,
  onChangedSeal: 'drop',
  streamHeaders: { 'x-vercel-ai-ui-message-stream': 'v1' },
}
