import {
  kindFromStatus,
  ThinkwireError,
  toThinkwireError,
  isThinkwireError,
  type ErrorKind,
} from '../../core/errors.ts'
import { isRecord, type JsonRecord } from './record.ts'

/**
 * Maps what the Gemini SDK throws to a `ThinkwireError`. The SDK's `ApiError` carries the HTTP
 * status and, as its message, the JSON error body (`{ error: { code, message, status, details } }`),
 * also for an error object sent in the middle of a stream. A 429's `google.rpc.RetryInfo`
 * `retryDelay` (e.g. `"7s"`) becomes `retryAfterMs`.
 */
export function mapGeminiError(error: unknown, provider: string): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (isApiError(error)) {
    const body = errorBody(error.message)
    const message = typeof body?.['message'] === 'string' ? body['message'] : error.message
    const grpc = typeof body?.['status'] === 'string' ? ` ${body['status']}` : ''
    return new ThinkwireError({
      kind: kindOf(error.status, message, body),
      message: `${provider}: ${message} (HTTP ${error.status}${grpc})`,
      status: error.status,
      retryAfterMs: retryDelayMs(body),
      provider,
      cause: error,
    })
  }
  if (error instanceof Error && error.message.startsWith('Incomplete JSON segment')) {
    return new ThinkwireError({
      kind: 'network',
      message: `${provider}: the stream was cut off in the middle of a chunk`,
      provider,
      cause: error,
    })
  }
  return toThinkwireError(error, provider)
}

function isApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error &&
    error.name === 'ApiError' &&
    'status' in error &&
    typeof error.status === 'number'
  )
}

/** The `error` object of the JSON inside the SDK's message, if there is one. */
function errorBody(message: string): JsonRecord | undefined {
  const start = message.indexOf('{')
  if (start < 0) return undefined
  try {
    const parsed: unknown = JSON.parse(message.slice(start))
    return isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined
  } catch {
    return undefined
  }
}

function kindOf(status: number, message: string, body: JsonRecord | undefined): ErrorKind {
  if (status === 400 && /input token count|exceeds the maximum number of tokens/i.test(message))
    return 'context-length'
  if (status === 400 && details(body).some((d) => d['reason'] === 'API_KEY_INVALID')) return 'auth'
  if (status === 504) return 'timeout'
  return kindFromStatus(status)
}

function details(body: JsonRecord | undefined): JsonRecord[] {
  const list = body?.['details']
  return Array.isArray(list) ? list.filter(isRecord) : []
}

/** `RetryInfo.retryDelay` (a protobuf duration such as `"34.4s"`) in milliseconds. */
function retryDelayMs(body: JsonRecord | undefined): number | undefined {
  for (const detail of details(body)) {
    const type = detail['@type']
    const delay = detail['retryDelay']
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo')) continue
    if (typeof delay !== 'string') continue
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())
    if (match !== null) return Math.round(Number(match[1]) * 1000)
  }
  return undefined
}
