import type { Source } from '../../core/conversation.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'

/**
 * A stream's sources: what its candidates' `groundingMetadata` and `citationMetadata` cite, in
 * the order the stream gave them, each page and passage once (by url and quote).
 *
 * - Grounding: each `groundingSupports[]` entry cites the `groundingChunks` its
 *   `groundingChunkIndices` name, with its `segment.text` as the quote; a chunk no support names
 *   comes after, without a quote. A chunk is a `web` page (Google Search), a `retrievedContext`
 *   (a retrieval tool) or a `maps` place, each with `uri` and `title`.
 * - Citations: `citationSources[]` (the Gemini API's name on the wire) or `citations[]` (Vertex
 *   AI's), with `uri` and, on Vertex AI, `title`.
 *
 * `metadata` holds each candidate's metadata records in stream order (a stream may send them on
 * several chunks; repeats collapse).
 */
export function sourcesOf(metadata: readonly GeminiCandidateMetadata[]): Source[] {
  const sources = new SourceList()
  for (const { grounding, citation } of metadata) {
    if (grounding !== undefined) addGrounding(sources, grounding)
    if (citation !== undefined) addCitations(sources, citation)
  }
  return sources.list
}

/** The metadata records of one chunk's candidate. */
export type GeminiCandidateMetadata = {
  grounding?: JsonRecord | undefined
  citation?: JsonRecord | undefined
}

/** Sources in order, each url + quote once. */
class SourceList {
  readonly list: Source[] = []
  readonly #seen = new Set<string>()

  add(url: string | undefined, title: string | undefined, quote: string | undefined): void {
    if (url === undefined && title === undefined && quote === undefined) return
    const key = `${url ?? ''}\u0000${quote ?? ''}`
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    const source: Source = {}
    if (url !== undefined) source.url = url
    if (title !== undefined) source.title = title
    if (quote !== undefined) source.quote = quote
    this.list.push(source)
  }
}

function addGrounding(sources: SourceList, grounding: JsonRecord): void {
  // Supports name chunks by their place in the list, so every entry keeps its place.
  const list = grounding['groundingChunks']
  const chunks = (Array.isArray(list) ? list : []).map((chunk) =>
    isRecord(chunk) ? pageOf(chunk) : undefined,
  )
  const cited = new Set<number>()
  for (const support of listOf(grounding['groundingSupports'])) {
    const segment = support['segment']
    const quote = isRecord(segment) ? text(segment['text']) : undefined
    const indices = support['groundingChunkIndices']
    for (const index of Array.isArray(indices) ? indices : []) {
      if (typeof index !== 'number') continue
      const page = chunks[index]
      if (page === undefined) continue
      cited.add(index)
      sources.add(page.url, page.title, quote)
    }
  }
  chunks.forEach((page, index) => {
    if (page !== undefined && !cited.has(index)) sources.add(page.url, page.title, undefined)
  })
}

function addCitations(sources: SourceList, citation: JsonRecord): void {
  const entries = [...listOf(citation['citationSources']), ...listOf(citation['citations'])]
  for (const entry of entries) sources.add(text(entry['uri']), text(entry['title']), undefined)
}

/** A grounding chunk's page: its `web`, `retrievedContext` or `maps` record's uri and title. */
function pageOf(chunk: JsonRecord): { url?: string; title?: string } | undefined {
  for (const kind of ['web', 'retrievedContext', 'maps']) {
    const page = chunk[kind]
    if (!isRecord(page)) continue
    const url = text(page['uri'])
    const title = text(page['title'])
    if (url === undefined && title === undefined) continue
    return {
      ...(url === undefined ? {} : { url }),
      ...(title === undefined ? {} : { title }),
    }
  }
  return undefined
}

function listOf(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : []
}

/** A non-empty string, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
