import type { ErrorKind } from '../../core/errors.ts'
import {
  completionErrorBody,
  completionErrorResponse,
  type CompletionErrorBody,
} from '../completions/errors.ts'
import type { StreamFailure } from '../dialects.ts'
import type { ErrorResponder } from '../responses.ts'
import { statusFromKind } from '../status.ts'

/** The body of an error answered before the stream starts, in OpenAI's shape. */
export type ResponsesErrorBody = CompletionErrorBody

/**
 * An error answer of `/v1/responses` before its stream starts. The Responses API answers errors as
 * Chat Completions does: an HTTP status and `{ "error": { "message", "type", "code", "param" } }`
 * (`retry-after` when the wait is known), which the openai SDK raises as its typed errors; so it
 * is the same responder. After the first event the status is 200 already: the stream ends with
 * `response.failed` and an `error` event (below).
 */
export const responsesErrorResponse: ErrorResponder = completionErrorResponse

/** The `code` of a failed response's `error`: the values of openai 6.49's `ResponseError` that apply. */
export type ResponseErrorCode = 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt'

/** A failed response's `error`: what `response.failed` carries on its response. */
export type ResponseError = { code: ResponseErrorCode; message: string }

/** The `data` of the `error` event that ends a failed stream. */
export type ResponseErrorEvent = {
  type: 'error'
  sequence_number: number
  code: string | null
  message: string
  param: null
  /**
   * The same failure in OpenAI's error shape. The openai SDKs raise an `APIError` for any event
   * whose data has an `error` object: this is what makes a failure after the first event the
   * client's own error, thrown from its stream and from `finalResponse()`.
   */
  error: CompletionErrorBody['error']
}

/** The `error` of a failed response, for a failure of this kind. */
export function responseError(failure: StreamFailure): ResponseError {
  return { code: responseErrorCode(failure.kind), message: failure.message }
}

/** The `error` event that follows `response.failed`, numbered `sequence`. */
export function errorEvent(failure: StreamFailure, sequence: number): ResponseErrorEvent {
  const { error } = completionErrorBody(statusFromKind(failure.kind), failure.kind, failure.message)
  return {
    type: 'error',
    sequence_number: sequence,
    code: error.code,
    message: failure.message,
    param: null,
    error,
  }
}

function responseErrorCode(kind: ErrorKind): ResponseErrorCode {
  switch (kind) {
    case 'rate-limit':
      return 'rate_limit_exceeded'
    case 'invalid-request':
    case 'context-length':
    case 'content-filter':
      return 'invalid_prompt'
    case 'overloaded':
    case 'auth':
    case 'server':
    case 'network':
    case 'invalid-output':
    case 'timeout':
    case 'aborted':
      return 'server_error'
  }
}
