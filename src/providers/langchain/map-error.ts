import {
  isThinkwireError,
  ThinkwireError,
  toThinkwireError,
  type ErrorKind,
} from '../../core/errors.ts'
import { kindFromStatus, retryAfterMsFromHeaders } from '../../kit/http-error.ts'
import { isRecord } from '../../kit/json.ts'

/** LangChain's own error codes (`lc_error_code`) that say what went wrong. */
const CODES: Readonly<Record<string, ErrorKind>> = {
  MODEL_RATE_LIMIT: 'rate-limit',
  MODEL_AUTHENTICATION: 'auth',
  MODEL_NOT_FOUND: 'invalid-request',
  INVALID_PROMPT_INPUT: 'invalid-request',
  INVALID_TOOL_RESULTS: 'invalid-request',
  MESSAGE_COERCION_FAILURE: 'invalid-request',
}

/**
 * Maps what a LangChain model throws to a `ThinkwireError`: by the HTTP status the integration's
 * SDK error carries (`status` or `response.status`, with `retry-after`), else by LangChain's
 * `lc_error_code`, else as any error.
 */
export function mapLangChainError(error: unknown, provider: string): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (!(error instanceof Error)) return toThinkwireError(error, provider)
  const fields: Record<string, unknown> = { ...error }
  const response = isRecord(fields['response']) ? fields['response'] : undefined
  const status = [fields['status'], response?.['status']].find(
    (value): value is number => typeof value === 'number' && value >= 400 && value < 600,
  )
  const code =
    typeof fields['lc_error_code'] === 'string' ? CODES[fields['lc_error_code']] : undefined
  const kind = status === undefined ? code : kindFromStatus(status)
  if (kind === undefined) return toThinkwireError(error, provider)
  const headers = [fields['headers'], response?.['headers']].find(hasGet)
  return new ThinkwireError({
    kind,
    message: `${provider}: ${error.message}`,
    status,
    retryAfterMs: retryAfterMsFromHeaders(headers),
    provider,
    cause: error,
  })
}

function hasGet(value: unknown): value is { get(name: string): string | null } {
  return isRecord(value) && typeof value['get'] === 'function'
}
