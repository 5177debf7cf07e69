import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import {
  abortedError,
  isThinkwireError,
  ThinkwireError,
  toThinkwireError,
  type ErrorKind,
} from '../../core/errors.ts'
import { httpError, isContextLengthMessage } from '../../kit/http-error.ts'
import { isRecord } from '../../kit/json.ts'

/**
 * Maps what the OpenAI SDK throws to a `ThinkwireError`: HTTP errors by status (with `retry-after`
 * or `retry-after-ms`), and error objects a server sends inside a 200 stream (OpenRouter, vLLM,
 * proxies), which have no status but may carry a numeric `code` or a named one.
 */
export function mapCompatibleError(error: unknown, provider: string): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (error instanceof APIUserAbortError) return abortedError(provider, error)
  if (error instanceof APIConnectionTimeoutError)
    return new ThinkwireError({
      kind: 'timeout',
      message: `${provider}: the request timed out`,
      provider,
      cause: error,
    })
  if (error instanceof APIConnectionError)
    return new ThinkwireError({
      kind: 'network',
      message: `${provider}: ${error.message}`,
      provider,
      cause: error,
    })
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
