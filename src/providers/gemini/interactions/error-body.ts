import { isRecord } from '../../../kit/json.ts'
import { watchJsonHead } from '../error-chunk.ts'
import { streamError } from './map-error.ts'

/**
 * A `readEventStream` `inspect` hook that watches the start of the body: a body whose first
 * character other than whitespace is `{` is not Server-Sent Events but a JSON error body sent in
 * place of them (a proxy, or the API itself). It is gathered until it parses, and its error throws
 * (see `streamError`). Any other body is left alone after its first characters.
 */
export function createErrorBodyCheck(provider: string): (text: string) => void {
  return watchJsonHead((parsed) => {
    if (isRecord(parsed) && isRecord(parsed['error'])) throw streamError(parsed['error'], provider)
  })
}
