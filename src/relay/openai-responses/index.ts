import { parseDialect, randomId, type Dialect } from '../dialects.ts'
import { createResponsesEncoder, responseBody, type ResponseMeta } from './encode.ts'
import { responsesErrorResponse } from './errors.ts'
import { rewriteResponsesField } from './rewrite-field.ts'
import { translateResponsesRequest } from './translate-request.ts'

/**
 * `POST /v1/responses`: OpenAI's Responses API, for the `openai` SDK's `responses.create()` and
 * `responses.stream()`, the OpenAI Agents SDK and any other Responses client (DESIGN §12). The
 * relay is stateless: `store` is answered false, and what needs a stored response is refused.
 */
export const responsesDialect: Dialect = {
  parse: parseDialect({
    translate: translateResponsesRequest,
    rename: (field, { sources }) => rewriteResponsesField(field, sources),
    meta: ({ echo }, model): ResponseMeta => ({
      id: randomId('resp_'),
      createdAt: Math.floor(Date.now() / 1000),
      model,
      echo,
    }),
    encoder: createResponsesEncoder,
    body: responseBody,
  }),
  error: responsesErrorResponse,
  // A Responses client sends back what it was given and cannot repair a 400.
  onChangedSeal: 'drop',
  onForeignItems: 'drop',
}

export {
  createResponsesEncoder,
  responseBody,
  responseObject,
  usageOf,
  type FunctionCallItem,
  type MessageItem,
  type OutputItem,
  type OutputText,
  type ResponseEcho,
  type ResponseMeta,
  type ResponseStatus,
  type ResponseUsage,
} from './encode.ts'
export {
  errorEvent,
  responseError,
  responsesErrorResponse,
  type ResponseError,
  type ResponseErrorCode,
  type ResponseErrorEvent,
  type ResponsesErrorBody,
} from './errors.ts'
export {
  readSealedContent,
  sealedReasoningItem,
  SEALED_PREFIX,
  SEALED_TURN_PREFIX,
  type ReasoningItem,
  type SealedContent,
} from './sealed-reasoning.ts'
export {
  RESPONSES_FIELDS,
  translateResponsesRequest,
  type TranslatedResponsesRequest,
} from './translate-request.ts'
export { translateInput, type TranslatedInput, type TurnSource } from './translate-input.ts'
export { rewriteResponsesField } from './rewrite-field.ts'
