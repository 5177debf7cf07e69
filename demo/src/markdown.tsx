import DOMPurify from 'dompurify'
import { Marked } from 'marked'
import { memo, useEffect, useRef, useState, type MouseEvent } from 'react'
import { closeMarks } from './close-marks.ts'

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)

/**
 * GitHub-flavoured markdown (tables included), with raw HTML shown as the text it is: a model
 * that writes `<script>` or `<img onerror>` gets those characters on screen, never markup.
 */
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text, block }) {
      return block === true ? `<p>${escapeHtml(text)}</p>` : escapeHtml(text)
    },
  },
})

// Then DOMPurify, the browser's standard sanitizer, as the second wall: whatever markup marked
// makes, no script, event handler or `javascript:` URL survives it. Links open in a new tab.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName !== 'A') return
  node.setAttribute('target', '_blank')
  node.setAttribute('rel', 'noopener noreferrer')
})

/** The button each code block gets: added after sanitizing, so it is the page's own markup. */
const COPY_BUTTON = '<button type="button" class="copy secondary" data-copy>Copy</button>'

function render(source: string): string {
  return DOMPurify.sanitize(marked.parse(source, { async: false }))
    .replaceAll('<pre>', `<div class="code-block">${COPY_BUTTON}<pre>`)
    .replaceAll('</pre>', '</pre></div>')
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/

/**
 * Splits markdown into top-level blocks at blank lines outside code fences, where the next line
 * starts a new block (not an indented continuation). While an answer streams, only its last
 * block changes: the others keep their text, so they are neither parsed nor rendered again.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = []
  let current: string[] = []
  let fence: string | undefined
  let blank = false
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      // A closing fence: the same character, at least as long, and nothing after it.
      const closes =
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        line.trim() === marker
      if (closes) {
        fence = undefined
      }
      current.push(line)
      continue
    }
    if (line.trim() === '') {
      blank = current.length > 0
      current.push(line)
      continue
    }
    if (blank && !/^\s/.test(line)) {
      blocks.push(current.join('\n'))
      current = []
    }
    blank = false
    if (marker !== undefined) fence = marker
    current.push(line)
  }
  if (current.length > 0) blocks.push(current.join('\n'))
  return blocks
}

/** One block, parsed and rendered again only when its text changes. */
const Block = memo(function Block({ source }: { source: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: render(source) }} />
})

/** How long a copy button says "Copied". */
const COPIED_MS = 2000

/**
 * An answer's markdown, rendered safely as it streams (about once per frame, as `useChat`
 * batches): lists, tables, code and inline code, each code block with a Copy button. Text that
 * may stop mid-way (`cut`: still streaming, or stopped) shows no raw marks: an unfinished code
 * fence renders as code up to the end of the text so far, an open `**`, `*` or code span as if
 * closed there.
 */
export function Markdown({ text, cut = false }: { text: string; cut?: boolean | undefined }) {
  const blocks = splitBlocks(text)
  const last = blocks.length - 1
  if (cut && last >= 0) blocks[last] = closeMarks(blocks[last]!)
  const [said, setSaid] = useState('')
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  // One handler for every code block's button (a button is a click for the keyboard too).
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    if (!(event.target instanceof Element)) return
    const button = event.target.closest('button[data-copy]')
    const code = button?.parentElement?.querySelector('pre code')
    if (button === null || button === undefined || code === null || code === undefined) return
    const done = (message: string) => {
      button.textContent = message
      setSaid(message)
      clearTimeout(timer.current)
      timer.current = setTimeout(() => {
        button.textContent = 'Copy'
        setSaid('')
      }, COPIED_MS)
    }
    // Without a clipboard (a page not served over https or from localhost) it says it failed.
    Promise.resolve(code.textContent ?? '')
      .then((copied) => navigator.clipboard.writeText(copied))
      .then(
        () => done('Copied'),
        () => done('Copy failed'),
      )
  }
  return (
    <div className="markdown" onClick={onClick}>
      {blocks.map((source, i) => (
        <Block key={i} source={source} />
      ))}
      <span className="sr-only" role="status">
        {said}
      </span>
    </div>
  )
}
