import type { ErrorKind } from '../../core/errors.ts'
import { jsonErrorResponder, type ErrorDetails, type ErrorResponder } from '../responses.ts'

/**
 * The UI message stream's `error` part, as this relay writes it: `errorText` is what the AI SDK
 * reads (its `useChat` sets `error` to `new Error(errorText)`); the other members, which its
 * schema lets through, say what kind of failure it was, for an app that reads the part itself.
 */
export type UiErrorPart = {
  type: 'error'
  errorText: string
  kind: ErrorKind
  /** Whether the same request may work later. */
  retryable?: boolean | undefined
  /** How long to wait before trying again, when the relay or the provider said. */
  retryAfterMs?: number | undefined
  /** The request field at fault, as a path of the request (`messages[2].parts[0].text`). */
  field?: string | undefined
}

/**
 * The `error` part of a failure, in one shape wherever it is sent: as the JSON body of a refusal
 * before any part (the `DefaultChatTransport` throws `new Error(body)` then), and as a part of a
 * stream that fails after its first.
 */
export function uiErrorPart(kind: ErrorKind, message: string, details: ErrorDetails = {}) {
  const part: UiErrorPart = { type: 'error', errorText: message, kind }
  if (details.retryable !== undefined) part.retryable = details.retryable
  if (details.retryAfterMs !== undefined) part.retryAfterMs = details.retryAfterMs
  if (details.field !== undefined) part.field = details.field
  return part
}

/**
 * A refusal of `POST /v1/ai-sdk/chat`: `status` with an {@link UiErrorPart} as its JSON body, and
 * `retry-after` when the wait is known.
 *
 * @example
 * ```ts
 * uiErrorResponse(429, 'rate-limit', 'rate limit reached for this client', { retryAfterMs: 3000 })
 * // 429, retry-after: 3, {"type":"error","errorText":"rate limit…","kind":"rate-limit",…}
 * ```
 */
export const uiErrorResponse: ErrorResponder = jsonErrorResponder((_, kind, message, details) =>
  uiErrorPart(kind, message, details),
)
