import type { Source } from '../../core/conversation.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'

/**
 * What a message cites, in the order of its blocks: the pages of each `web_search_tool_result`
 * (url and title), the page of each `web_fetch_tool_result` (its url, and the fetched document's
 * title), and each citation of a text block (`web_search_result_location`: url, title and
 * the cited text; `char_location`, `page_location`, `content_block_location`: the document's title
 * and the cited text; `search_result_location`: its source when that is a web address, its title
 * and the cited text). A source already given (the same url and quote) is given once. The blocks
 * themselves are only read.
 */
export function mapSources(content: readonly unknown[]): Source[] {
  const sources: Source[] = []
  const seen = new Set<string>()
  const add = (source: Source | undefined): void => {
    if (source === undefined) return
    const key = JSON.stringify([source.url ?? null, source.quote ?? null])
    if (seen.has(key)) return
    seen.add(key)
    sources.push(source)
  }
  for (const block of content) {
    if (!isRecord(block)) continue
    if (block['type'] === 'web_search_tool_result') {
      // `content` is the list of results, or an error object when the search failed.
      const results = block['content']
      if (Array.isArray(results)) for (const result of results) add(searchResult(result))
    } else if (block['type'] === 'web_fetch_tool_result') {
      // `content` is the fetched page, or an error object when the fetch failed.
      add(fetchResult(block['content']))
    } else if (block['type'] === 'text') {
      const citations = block['citations']
      if (Array.isArray(citations)) for (const citation of citations) add(citationSource(citation))
    }
  }
  return sources
}

function searchResult(result: unknown): Source | undefined {
  if (!isRecord(result) || result['type'] !== 'web_search_result') return undefined
  return sourceOf(text(result, 'url'), text(result, 'title'), undefined)
}

function fetchResult(result: unknown): Source | undefined {
  if (!isRecord(result) || result['type'] !== 'web_fetch_result') return undefined
  const url = text(result, 'url')
  if (url === undefined) return undefined
  const document = result['content']
  return sourceOf(url, isRecord(document) ? text(document, 'title') : undefined, undefined)
}

/** Any citation, by its fields: every citation type the API has names them alike. */
function citationSource(citation: unknown): Source | undefined {
  if (!isRecord(citation)) return undefined
  const where = text(citation, 'source')
  const url =
    text(citation, 'url') ?? (where !== undefined && isWebAddress(where) ? where : undefined)
  const title = text(citation, 'title') ?? text(citation, 'document_title')
  return sourceOf(url, title, text(citation, 'cited_text'))
}

/** A source with only the fields that are set; undefined when none is. */
function sourceOf(
  url: string | undefined,
  title: string | undefined,
  quote: string | undefined,
): Source | undefined {
  if (url === undefined && title === undefined && quote === undefined) return undefined
  const out: Source = {}
  if (url !== undefined) out.url = url
  if (title !== undefined) out.title = title
  if (quote !== undefined) out.quote = quote
  return out
}

/** A non-empty string field. */
function text(record: JsonRecord, key: string): string | undefined {
  const value = record[key]
  return typeof value === 'string' && value !== '' ? value : undefined
}

function isWebAddress(value: string): boolean {
  return /^https?:\/\//i.test(value)
}
