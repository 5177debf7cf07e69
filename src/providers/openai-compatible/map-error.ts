import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai'
import {
  abortedError,
  isThinkwireError,
  kindFromStatus,
  retryAfterMsFromHeaders,
  ThinkwireError,
  toThinkwireError,
  type ErrorKind,
} from '../../core/errors.ts'

const CONTEXT_LENGTH =
  /context[_ ]length|maximum context length|context window|prompt is too long|too many tokens/i

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
    const code = error.code ?? codeOf(error.error)
    const status = error.status ?? (typeof code === 'number' ? code : undefined)
    const kind = kindOf(status, code, error.message)
    return new ThinkwireError({
      kind,
      // A quota that ran out does not come back by waiting.
      retryable: code === 'insufficient_quota' ? false : undefined,
      message: `${provider}: ${error.message}`,
      status,
      retryAfterMs: retryAfterMsFromHeaders(error.headers),
      provider,
      cause: error,
    })
  }
  return toThinkwireError(error, provider)
}

function codeOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null && 'code' in body ? body.code : undefined
}

function kindOf(status: number | undefined, code: unknown, message: string): ErrorKind {
  if (CONTEXT_LENGTH.test(message) || code === 'context_length_exceeded') return 'context-length'
  if (status !== undefined) return kindFromStatus(status)
  const name = typeof code === 'string' ? code : ''
  if (/rate_limit|too_many_requests/i.test(name)) return 'rate-limit'
  if (/overload|unavailable/i.test(name) || /overloaded/i.test(message)) return 'overloaded'
  if (/invalid|bad_request/i.test(name)) return 'invalid-request'
  return 'server'
}
