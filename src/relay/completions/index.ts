export { translateCompletionRequest, type TranslatedRequest } from './translate-request.ts'
export { rewriteField } from './rewrite-field.ts'
export {
  completionResponse,
  createCompletionEncoder,
  finishReason,
  usageOf,
  type CompletionEncoderOptions,
  type CompletionMeta,
  type CompletionUsage,
  type FinishReason,
} from './encode-completion.ts'
export {
  decodeReasoningDetails,
  encodeReasoningDetails,
  type ReasoningDetail,
  type SealedTurnRecord,
} from './reasoning-details.ts'
export {
  completionErrorBody,
  completionErrorResponse,
  errorTypeOf,
  type CompletionErrorBody,
  type CompletionErrorType,
} from './errors.ts'
