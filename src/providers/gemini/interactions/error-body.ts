import { isRecord } from '../../../kit/json.ts'
import { streamError } from './map-error.ts'

/** How much of a body's start is kept while it may still be a JSON error body. */
const MAX_HEAD_CHARS = 1024 * 1024

/**
 * A `readEventStream` `inspect` hook that watches the start of the body: a body whose first
 * character other than whitespace is `{` is not Server-Sent Events but a JSON error body sent in
 * place of them (a proxy, or the API itself). It is gathered until it parses, and its error throws
 * (see `streamError`). Any other body is left alone after its first characters.
 */
export function createErrorBodyCheck(provider: string): (text: string) => void {
  let head: string | undefined = ''
  return (text) => {
    if (head === undefined) return
    head += text
    const first = head.trimStart()
    if (first === '') return
    if (!first.startsWith('{')) {
      head = undefined
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(first)
    } catch {
      if (head.length > MAX_HEAD_CHARS) head = undefined
      return
    }
    head = undefined
    if (isRecord(parsed) && isRecord(parsed['error'])) throw streamError(parsed['error'], provider)
  }
}
