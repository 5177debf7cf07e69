import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import { ThinkwireError, toThinkwireError, type ErrorKind } from '../../core/errors.ts'
import { httpError } from '../../kit/http-error.ts'
import { isRecord } from '../../kit/json.ts'
import { sdkTransportError } from '../../kit/sdk-error.ts'

const TRANSPORT_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError }

const PROVIDER = 'openai'

const POLICY = /policy|safety|content[_ ]filter|flagged/i

/**
 * The kind an OpenAI error `code` means, or undefined when the code says nothing the status does
 * not. Codes come from HTTP error bodies, `error` stream events and failed responses alike.
 */
export function kindFromCode(code: string | null | undefined, message = ''): ErrorKind | undefined {
  if (code === null || code === undefined || code === '') return undefined
  if (code === 'context_length_exceeded') return 'context-length'
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 'rate-limit'
  if (code === 'server_error') return 'server'
  if (code === 'vector_store_timeout') return 'timeout'
  if (code === 'invalid_api_key' || code === 'invalid_authentication') return 'auth'
  if (POLICY.test(code) || (code === 'invalid_prompt' && POLICY.test(message)))
    return 'content-filter'
  if (code.startsWith('invalid_') || code.includes('image') || code === 'model_not_found')
    return 'invalid-request'
  return undefined
}

/**
 * A `ThinkwireError` for an error reported inside the stream (an `error` event or a failed
 * response): by its `code`, a server error when the code is unknown. `insufficient_quota` is a
 * rate limit that waiting does not lift, so it is not retryable.
 */
export function streamError(
  code: string | null | undefined,
  message: string,
  cause?: unknown,
): ThinkwireError {
  const kind = kindFromCode(code, message) ?? 'server'
  return new ThinkwireError({
    kind,
    message: `${PROVIDER}: ${code ?? 'error'}: ${message}`,
    retryable: code === 'insufficient_quota' ? false : undefined,
    provider: PROVIDER,
    cause,
  })
}

/**
 * Maps anything the OpenAI SDK throws to a `ThinkwireError`: HTTP errors by status refined by the
 * body's `code`, errors inside the stream by `code`, connection failures to `network`, an abort to
 * `aborted`. `retry-after` becomes `retryAfterMs`. The SDK error is kept as `cause`.
 */
export function mapOpenaiError(error: unknown): ThinkwireError {
  const transport = sdkTransportError(error, PROVIDER, TRANSPORT_ERRORS)
  if (transport !== undefined) return transport
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined
    const code = typeof error.code === 'string' ? error.code : (error.type ?? undefined)
    if (status === undefined) return streamError(code, apiMessage(error), error)
    // With a status, the body's `type` is only a broad category (`server_error` on a 408 or 503,
    // `invalid_request_error` on a 401): only a specific `code` says more than the status does.
    const specific = typeof error.code === 'string' ? error.code : undefined
    return httpError({
      provider: PROVIDER,
      status,
      message: error.message,
      headers: error.headers,
      kind: kindFromCode(specific, error.message),
      retryable: code === 'insufficient_quota' ? false : undefined,
      cause: error,
    })
  }
  return toThinkwireError(error, PROVIDER)
}

function apiMessage(error: APIError): string {
  const body: unknown = error.error
  return isRecord(body) && typeof body['message'] === 'string' ? body['message'] : error.message
}
