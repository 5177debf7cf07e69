import type { Source } from '../../core/conversation.ts'
import { isRecord } from '../../kit/json.ts'

/** An annotation announced by `response.output_text.annotation.added`, where it belongs. */
export type StreamedAnnotation = { outputIndex: number; contentIndex: number; annotation: unknown }

/**
 * What the answer cites, in order: the citations (`url_citation`, `file_citation`,
 * `container_file_citation`) on the `output_text` parts of the turn's message items, then any
 * streamed annotation the items do not hold (a message cut short before its item completed), with
 * the text of its completed item (by `output_index`) when there is one. A URL citation's quote is
 * the span of the text it annotates; a file citation marks a single position, so it has no quote
 * and its file name is its title. Sources are de-duplicated by address (a file's name standing in
 * for the URL it lacks) plus quote. Undefined when nothing is cited.
 */
export function collectSources(
  items: readonly unknown[],
  streamed: readonly StreamedAnnotation[],
  doneItems: readonly unknown[],
): Source[] | undefined {
  const cited: [annotation: unknown, text: string | undefined][] = []
  const seen = new Set<string>()
  for (const item of items) {
    for (const part of textParts(item)) {
      for (const annotation of part.annotations) {
        cited.push([annotation, part.text])
        seen.add(identity(annotation))
      }
    }
  }
  for (const { outputIndex, contentIndex, annotation } of streamed) {
    if (seen.has(identity(annotation))) continue
    cited.push([annotation, textParts(doneItems[outputIndex])[contentIndex]?.text])
  }
  const sources: Source[] = []
  const keys = new Set<string>()
  for (const [annotation, text] of cited) {
    const source = sourceOf(annotation, text)
    if (source === undefined) continue
    const key = JSON.stringify([source.url ?? source.title, source.quote])
    if (keys.has(key)) continue
    keys.add(key)
    sources.push(source)
  }
  return sources.length === 0 ? undefined : sources
}

/** What tells one annotation from another, whatever the order of its fields. */
function identity(annotation: unknown): string {
  if (!isRecord(annotation)) return JSON.stringify(annotation)
  const keys = ['type', 'url', 'file_id', 'container_id', 'start_index', 'end_index', 'index']
  return JSON.stringify(keys.map((key) => annotation[key]))
}

type TextPart = { text: string | undefined; annotations: readonly unknown[] }

/** The `output_text` parts of a message item, in order (other parts as empty ones, to keep indices). */
function textParts(item: unknown): TextPart[] {
  if (!isRecord(item) || item['type'] !== 'message' || !Array.isArray(item['content'])) return []
  return item['content'].map((part: unknown): TextPart => {
    if (!isRecord(part) || part['type'] !== 'output_text')
      return { text: undefined, annotations: [] }
    const text = typeof part['text'] === 'string' ? part['text'] : undefined
    const annotations = Array.isArray(part['annotations']) ? part['annotations'] : []
    return { text, annotations }
  })
}

/** The source one citation names, or undefined for an annotation that cites nothing. */
function sourceOf(annotation: unknown, text: string | undefined): Source | undefined {
  if (!isRecord(annotation)) return undefined
  const type = annotation['type']
  const quote = () => span(text, annotation['start_index'], annotation['end_index'])
  if (type === 'url_citation') {
    const url = stringOf(annotation['url'])
    return url === undefined
      ? undefined
      : defined({ url, title: stringOf(annotation['title']), quote: quote() })
  }
  if (type !== 'file_citation' && type !== 'container_file_citation') return undefined
  const title = stringOf(annotation['filename'])
  if (title === undefined) return undefined
  return defined({ title, quote: type === 'file_citation' ? undefined : quote() })
}

/** `source` without its undefined fields, so the turn serializes as it reads. */
function defined(source: Source): Source {
  const out: Source = {}
  if (source.url !== undefined) out.url = source.url
  if (source.title !== undefined) out.title = source.title
  if (source.quote !== undefined) out.quote = source.quote
  return out
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

const SURROGATE = /[\uD800-\uDFFF]/

/**
 * `text` from `start` to `end`, counted in Unicode code points (the API's indices are positions
 * in the text as its Python backend counts them, not UTF-16 units); undefined when the indices do
 * not mark a span of it.
 */
function span(text: string | undefined, from: unknown, to: unknown): string | undefined {
  if (text === undefined || typeof from !== 'number' || typeof to !== 'number') return undefined
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to <= from) return undefined
  if (!SURROGATE.test(text)) return to > text.length ? undefined : text.slice(from, to)
  const chars = Array.from(text)
  return to > chars.length ? undefined : chars.slice(from, to).join('')
}
