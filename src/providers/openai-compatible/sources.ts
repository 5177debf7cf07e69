import type { Source } from '../../core/conversation.ts'
import { isRecord } from '../../kit/json.ts'

/** Collects what an answer cites, from wherever a Chat Completions server puts it. */
export type SourceCollector = {
  /**
   * A delta's `annotations` (OpenAI search models, OpenRouter web search): each `url_citation`
   * gives its url and title, and OpenRouter's `content` as the quote.
   */
  addAnnotations(annotations: unknown): void
  /** A chunk's `search_results` (Perplexity): url and title of each result. */
  addSearchResults(results: unknown): void
  /** A chunk's `citations` (Perplexity): a list of urls. */
  addCitations(urls: unknown): void
  /** The sources so far, in the order first given. */
  sources(): Source[]
}

/**
 * A {@link SourceCollector}. Servers repeat their citations (Perplexity sends the whole list on
 * every chunk), so a source is kept once per url and quote; a repeat only fills in a title the
 * first one lacked.
 */
export function createSourceCollector(): SourceCollector {
  const sources: Source[] = []
  const byKey = new Map<string, Source>()

  const add = (url: unknown, title: unknown, quote: unknown) => {
    const source: Source = {}
    if (typeof url === 'string' && url !== '') source.url = url
    if (typeof title === 'string' && title !== '') source.title = title
    if (typeof quote === 'string' && quote !== '') source.quote = quote
    if (source.url === undefined && source.quote === undefined) return
    const key = JSON.stringify([source.url ?? null, source.quote ?? null])
    const seen = byKey.get(key)
    if (seen === undefined) {
      byKey.set(key, source)
      sources.push(source)
    } else if (seen.title === undefined && source.title !== undefined) seen.title = source.title
  }

  return {
    addAnnotations(annotations) {
      if (!Array.isArray(annotations)) return
      for (const annotation of annotations) {
        if (!isRecord(annotation) || annotation['type'] !== 'url_citation') continue
        const citation = isRecord(annotation['url_citation']) ? annotation['url_citation'] : {}
        add(citation['url'], citation['title'], citation['content'])
      }
    },
    addSearchResults(results) {
      if (!Array.isArray(results)) return
      for (const result of results)
        if (isRecord(result)) add(result['url'], result['title'], undefined)
    },
    addCitations(urls) {
      if (!Array.isArray(urls)) return
      for (const url of urls) add(url, undefined, undefined)
    },
    sources: () => sources.map((source) => ({ ...source })),
  }
}
