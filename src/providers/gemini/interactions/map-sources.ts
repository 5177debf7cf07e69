import type { Source } from '../../../core/conversation.ts'
import { isRecord, type JsonRecord } from '../../../kit/json.ts'

/** A citation as the stream gave it, with the text it was made on (for the quote). */
export type Citation = { annotation: JsonRecord; text: () => string }

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * A stream's sources: what its text annotations cite, in the order the stream gave them, each page
 * and passage once (by url and quote). A `url_citation` (Google Search, URL context) is a page
 * with its title; a `place_citation` (Google Maps) a place, named; a `file_citation` (file search)
 * a document. The quote is the span of the text the annotation covers: `start_index` and
 * `end_index` count bytes of its UTF-8 text, not characters.
 */
export function sourcesOf(citations: readonly Citation[]): Source[] {
  const sources: Source[] = []
  const seen = new Set<string>()
  // Each text is encoded once, however many citations point into it.
  const bytesOf = new Map<string, Uint8Array>()
  for (const { annotation, text } of citations) {
    const source = sourceOf(annotation)
    if (source === undefined) continue
    const value = text()
    let bytes = bytesOf.get(value)
    if (bytes === undefined) bytesOf.set(value, (bytes = encoder.encode(value)))
    const quote = quoteOf(annotation, bytes)
    const key = `${source.url ?? source.title ?? ''}\u0000${quote ?? ''}`
    if (seen.has(key)) continue
    seen.add(key)
    sources.push(quote === undefined ? source : { ...source, quote })
  }
  return sources
}

/** The page, place or document an annotation cites, or undefined for any other annotation. */
function sourceOf(annotation: JsonRecord): Source | undefined {
  let url: string | undefined
  let title: string | undefined
  switch (annotation['type']) {
    case 'url_citation':
      url = nonEmpty(annotation['url'])
      title = nonEmpty(annotation['title'])
      break
    case 'place_citation':
      url = nonEmpty(annotation['url'])
      title = nonEmpty(annotation['name'])
      break
    case 'file_citation':
      url = nonEmpty(annotation['document_uri'])
      title = nonEmpty(annotation['file_name']) ?? nonEmpty(annotation['source'])
      break
    default:
      return undefined
  }
  if (url === undefined && title === undefined) return undefined
  return { ...(url === undefined ? {} : { url }), ...(title === undefined ? {} : { title }) }
}

function quoteOf(annotation: JsonRecord, bytes: Uint8Array): string | undefined {
  const start = annotation['start_index']
  const end = annotation['end_index']
  if (typeof start !== 'number' || typeof end !== 'number') return undefined
  if (!(start >= 0 && end > start && end <= bytes.length)) return undefined
  return nonEmpty(decoder.decode(bytes.subarray(start, end)).trim())
}

/** A non-empty string, or undefined. */
function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** The annotations of a delta or a content item, as records. */
export function annotationsOf(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : []
}
