/** Options of {@link createThinkTagSplitter}. */
export type ThinkTagSplitterOptions = {
  /** Called with each piece of reasoning, in order. */
  onThinking(text: string): void
  /** Called with each piece of the answer, in order. */
  onText(text: string): void
  /**
   * The output starts inside the reasoning: the chat template already opened the tag, so only
   * `</think>` appears and everything before it is reasoning. An opening tag at the very start is
   * still accepted. @defaultValue false
   */
  startsInThinking?: boolean | undefined
  /** @defaultValue `'<think>'` */
  open?: string | undefined
  /** @defaultValue `'</think>'` */
  close?: string | undefined
}

/** A streaming splitter: feed it content deltas, then flush once at the end. */
export type ThinkTagSplitter = {
  feed(chunk: string): void
  flush(): void
}

/**
 * `start`: nothing but whitespace yet, an opening tag may follow. `start-inside`: the same, in a
 * stream that starts inside the reasoning. `think`: inside the reasoning. `text`: the answer.
 */
type State = 'start' | 'start-inside' | 'think' | 'text'

/**
 * Splits content with inline `<think>…</think>` reasoning into thinking and answer, however the
 * deltas cut the tags. Only an opening tag at the very start (after whitespace) counts, since a
 * model may write the tag inside an answer; after the closing tag everything is answer. It holds
 * only what could still be part of a tag (at most the tag's length) and never scans text twice.
 * Whitespace right after either tag is dropped. Synchronous, with no I/O.
 */
export function createThinkTagSplitter(options: ThinkTagSplitterOptions): ThinkTagSplitter {
  const open = options.open ?? '<think>'
  const close = options.close ?? '</think>'
  let state: State = options.startsInThinking === true ? 'start-inside' : 'start'
  // Text held back: in `start`, the possible opening tag (and whitespace before it); in `think`,
  // a tail that may be the start of the closing tag.
  let held = ''
  // Drop whitespace until the first other character (right after a tag).
  let trimLeading = state === 'start-inside'

  const emit = (channel: 'thinking' | 'text', text: string) => {
    if (trimLeading) {
      text = text.replace(/^\s+/, '')
      if (text !== '') trimLeading = false
    }
    if (text === '') return
    if (channel === 'thinking') options.onThinking(text)
    else options.onText(text)
  }

  function feedStart(chunk: string): void {
    held += chunk
    const rest = held.trimStart()
    if (rest.startsWith(open)) {
      const after = rest.slice(open.length)
      held = ''
      state = 'think'
      trimLeading = true
      if (after !== '') feedThink(after)
    } else if (!open.startsWith(rest)) {
      const text = held
      held = ''
      if (state === 'start-inside') {
        state = 'think'
        feedThink(text)
      } else {
        state = 'text'
        emit('text', text)
      }
    }
    // Otherwise `held` is whitespace and a prefix of the opening tag: wait for more.
  }

  function feedThink(chunk: string): void {
    const text = held + chunk
    const at = text.indexOf(close)
    if (at >= 0) {
      held = ''
      emit('thinking', text.slice(0, at))
      state = 'text'
      trimLeading = true
      const after = text.slice(at + close.length)
      if (after !== '') emit('text', after)
      return
    }
    const keep = partialSuffix(text, close)
    held = text.slice(text.length - keep)
    emit('thinking', text.slice(0, text.length - keep))
  }

  return {
    feed(chunk) {
      if (chunk === '') return
      if (state === 'start' || state === 'start-inside') feedStart(chunk)
      else if (state === 'think') feedThink(chunk)
      else emit('text', chunk)
    },
    flush() {
      const text = held
      held = ''
      if (text === '') return
      // Reasoning cut off before its closing tag (e.g. at the token limit) stays reasoning.
      emit(state === 'think' || state === 'start-inside' ? 'thinking' : 'text', text)
    },
  }
}

/** Length of the longest end of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n
  }
  return 0
}
