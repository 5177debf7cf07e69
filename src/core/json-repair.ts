/**
 * Finds the JSON value in a model's output and parses it, repairing what models commonly get
 * wrong: code fences, prose before or after the value, and trailing commas. Never evaluates code.
 * Returns `{ ok: false }` when no repair makes it valid JSON.
 */
export function parseNearJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  const direct = tryParse(text)
  if (direct.ok) return direct
  const candidate = extractValue(stripFences(text))
  if (candidate === undefined)
    return { ok: false, reason: 'no JSON object or array found in the output' }
  const repaired = tryParse(removeTrailingCommas(candidate))
  return repaired.ok ? repaired : { ok: false, reason: repaired.reason }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) }
  }
}

function stripFences(text: string): string {
  const fenced = /```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(text)
  return fenced?.[1] ?? text
}

/** The first balanced `{…}` or `[…]`, scanning strings so brackets inside them do not count. */
function extractValue(text: string): string | undefined {
  const start = text.search(/[{[]/)
  if (start === -1) return undefined
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
