import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import { ThinkwireError, toThinkwireError, type ErrorKind } from '../../core/errors.ts'
import { httpError, isContextLengthMessage } from '../../kit/http-error.ts'
import { isRecord } from '../../kit/json.ts'
import { sdkTransportError } from '../../kit/sdk-error.ts'

const TRANSPORT_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError }

/**
 * Maps what the OpenAI SDK throws to a `ThinkwireError`: HTTP errors by status (with `retry-after`
 * or `retry-after-ms`), and error objects a server sends inside a 200 stream (OpenRouter, vLLM,
 * proxies), which have no status but may carry a numeric `code` or a named one.
 */
export function mapCompatibleError(error: unknown, provider: string): ThinkwireError {
  const transport = sdkTransportError(error, provider, TRANSPORT_ERRORS)
  if (transport !== undefined) return transport
  if (error instanceof APIError) {
    const code: unknown = error.code ?? (isRecord(error.error) ? error.error['code'] : undefined)
    const status = error.status ?? (typeof code === 'number' ? code : undefined)
    // A quota that ran out does not come back by waiting.
    const retryable = code === 'insufficient_quota' ? false : undefined
    const contextLength =
      code === 'context_length_exceeded' || isContextLengthMessage(error.message)
    if (status !== undefined) {
      return httpError({
        provider,
        status,
        message: error.message,
        headers: error.headers,
        kind: contextLength ? 'context-length' : undefined,
        retryable,
        cause: error,
      })
    }
    return new ThinkwireError({
      kind: contextLength ? 'context-length' : kindOfCode(code, error.message),
      retryable,
      message: `${provider}: ${error.message}`,
      provider,
      cause: error,
    })
  }
  return toThinkwireError(error, provider)
}

/** The kind a named error code says, for an error object in a stream (which has no status). */
function kindOfCode(code: unknown, message: string): ErrorKind {
  const name = typeof code === 'string' ? code : ''
  if (/rate_limit|too_many_requests/i.test(name)) return 'rate-limit'
  if (/overload|unavailable/i.test(name) || /overloaded/i.test(message)) return 'overloaded'
  if (/invalid|bad_request/i.test(name)) return 'invalid-request'
  return 'server'
}
