/** A line that opens or closes a code fence, and its marker. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/
/** A letter or a digit: a `*` right after one opens no emphasis (`2*3`, `snake*case`). */
const WORD = /[\p{L}\p{N}]/u
const SPACE = /\s/

/**
 * Closes what a cut-off answer leaves open in its last block, so that it renders as it was meant
 * rather than as raw marks: a code fence, an inline code span, a `**` or a `*` (closed at the end
 * of the text so far, innermost first). A mark with nothing after it yet is left out. For the last
 * block of an answer that is still streaming or was stopped; a complete answer renders as written.
 */
export function closeMarks(block: string): string {
  const lines = block.split('\n')
  let fence: string | undefined
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1]
    if (marker === undefined) continue
    if (fence === undefined) fence = marker
    // A closing fence: the same character, at least as long, and nothing after it.
    else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      fence = undefined
    }
  }
  if (fence !== undefined) return `${block}\n${fence}`
  // Inline marks do not run across lines in what models write: the last line is the one cut.
  const last = lines.length - 1
  lines[last] = closeLine(lines[last] ?? '')
  return lines.join('\n')
}

/** The line with its open code span and emphasis closed, and a dangling mark at its end left out. */
function closeLine(line: string): string {
  /** Emphasis runs opened and not closed yet: how many `*` each has left. */
  const open: number[] = []
  /** The open code span: where its backticks start, and how many there are. */
  let code: { at: number; size: number } | undefined
  /** A run of `*` at the very end that neither opens nor closes anything. */
  let dangling: number | undefined
  for (let i = 0; i < line.length;) {
    const char = line[i]
    if (char === '\\') {
      i += 2
      continue
    }
    if (char !== '`' && char !== '*') {
      i++
      continue
    }
    let size = 1
    while (line[i + size] === char) size++
    if (char === '`') {
      if (code === undefined) code = { at: i, size }
      else if (code.size === size) code = undefined
    } else if (code === undefined) {
      const before = line[i - 1]
      const after = line[i + size]
      const canClose = before !== undefined && !SPACE.test(before)
      const canOpen =
        after !== undefined && !SPACE.test(after) && !(before !== undefined && WORD.test(before))
      let rest = size
      // Closes the innermost open runs first (`**a *b**` closes `*`, then part of `**`).
      for (let top = canClose ? open.pop() : undefined; top !== undefined; top = open.pop()) {
        if (top > rest) open.push(top - rest)
        rest -= Math.min(top, rest)
        if (rest === 0) break
      }
      if (rest > 0 && canOpen) open.push(rest)
      else if (rest === size && after === undefined) dangling = i
    }
    i += size
  }
  let closed = line
  if (code !== undefined) {
    // Backticks with nothing after them yet are left out; a span with code in it is closed.
    closed =
      code.at + code.size === line.length ? line.slice(0, code.at) : line + '`'.repeat(code.size)
  } else if (dangling !== undefined) {
    closed = line.slice(0, dangling)
  }
  if (open.length === 0) return closed
  // A closing `*` must follow text, not a space.
  return (
    closed.trimEnd() +
    open
      .toReversed()
      .map((size) => '*'.repeat(size))
      .join('')
  )
}
