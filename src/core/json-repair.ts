/** How many places a bracket starts a value are tried, so a long prose answer stays cheap. */
const MAX_STARTS = 32

/**
 * Finds the JSON value in a model's output and parses it, repairing what models commonly get
 * wrong: code fences, prose before or after the value, and trailing commas. Never evaluates code.
 * Returns the first value found, or `{ ok: false }` when no repair makes any part valid JSON.
 */
export function parseNearJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  for (const value of nearJsonValues(text)) return { ok: true, value }
  const direct = tryParse(text)
  return direct.ok ? direct : { ok: false, reason: 'no JSON object or array found in the output' }
}

/**
 * Every JSON value the output may hold, most likely first: the whole text, each fenced block, then
 * each balanced `{…}` or `[…]` from left to right (prose such as "the results [below]:" before the
 * value is skipped rather than taken), each with trailing commas removed. A caller with a schema
 * takes the first that matches it.
 */
export function* nearJsonValues(text: string): Generator<unknown, void, undefined> {
  const direct = tryParse(text)
  if (direct.ok) {
    yield direct.value
    return
  }
  const seen = new Set<string>()
  const sources = [...fencedBlocks(text), text]
  for (const source of sources) {
    let starts = 0
    for (let at = source.search(/[{[]/); at !== -1 && starts < MAX_STARTS; starts++) {
      const candidate = balancedValue(source, at)
      if (candidate !== undefined && !seen.has(candidate)) {
        seen.add(candidate)
        const parsed = tryParse(removeTrailingCommas(candidate))
        if (parsed.ok) yield parsed.value
      }
      const rest = source.slice(at + 1).search(/[{[]/)
      at = rest === -1 ? -1 : at + 1 + rest
    }
  }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) }
  }
}

/** The contents of each fenced code block, in order. */
function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/g)].map((m) => m[1]!)
}

/** The balanced `{…}` or `[…]` that starts at `start`, scanning strings so brackets inside them do not count. */
function balancedValue(text: string, start: number): string | undefined {
  const stack: string[] = []
  let inString = false
  for (let i = start; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    else if (ch === '{') stack.push('}')
    else if (ch === '[') stack.push(']')
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return undefined
      if (stack.length === 0) return text.slice(start, i + 1)
    }
  }
  return undefined
}

/** Drops a comma that is followed only by whitespace and a closing bracket, outside strings. */
function removeTrailingCommas(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      out += ch
      if (ch === '\\') out += text[++i] ?? ''
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    if (ch === ',') {
      let j = i + 1
      while (j < text.length && /\s/.test(text[j]!)) j++
      if (text[j] === '}' || text[j] === ']') continue
    }
    out += ch
  }
  return out
}
