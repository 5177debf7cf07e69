import type { ErrorKind } from '../core/errors.ts'

/**
 * The HTTP status the relay answers with for an error of this kind. A provider's own auth failure
 * is the relay's fault, not the client's: 502, never 401.
 */
export function statusFromKind(kind: ErrorKind): number {
  switch (kind) {
    case 'rate-limit':
      return 429
    case 'overloaded':
      return 503
    case 'auth':
      return 502
    case 'invalid-request':
    case 'context-length':
    case 'content-filter':
      return 400
    case 'server':
    case 'network':
    case 'invalid-output':
      return 502
    case 'timeout':
      return 504
    case 'aborted':
      return 499
  }
}
