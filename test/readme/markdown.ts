/**
 * Reads the project's documentation as the tests of `test/readme/` need it: which files there
 * are (README.md and every page of `docs/`), their TypeScript fences with the line each starts
 * on, their links, and the anchors their headings make on GitHub.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

export const root = join(import.meta.dirname, '..', '..')

/** A documentation file: its path from the repository root, and its text. */
export type Doc = { path: string; text: string }

/** README.md, then every `docs/*.md`, in name order. */
export async function docs(): Promise<Doc[]> {
  const pages = (await readdir(join(root, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .toSorted()
  const paths = ['README.md', ...pages.map((name) => `docs/${name}`)]
  return Promise.all(
    paths.map(async (path) => ({ path, text: await readFile(join(root, path), 'utf8') })),
  )
}

/** A fenced code block: its language, its code (dedented), and the line of its opening fence. */
export type Fence = { lang: string; code: string; line: number }

/** Every fenced block, also those indented in a list item. */
export function fences(text: string): Fence[] {
  const found: Fence[] = []
  const fence = /^( {0,4})```([\w-]*)[^\n]*\n([\s\S]*?)^\1```[ \t]*$/gm
  for (const match of text.matchAll(fence)) {
    const indent = match[1]!.length
    const code = match[3]!
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n')
    found.push({ lang: match[2]!, code, line: lineAt(text, match.index) })
  }
  return found
}

/** The 1-based line of `index` in `text`. */
export function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length
}

/** The text with code blocks and inline code blanked out (lines kept), so only prose is left. */
export function prose(text: string): string {
  const blank = (code: string) => code.replace(/[^\n]/g, ' ')
  return text
    .replace(/^( {0,4})```[\s\S]*?^\1```[ \t]*$/gm, blank)
    .replace(/(`+)[\s\S]*?\1/g, blank)
}

/** A link or image in prose: its target and the line it is on. */
export type Link = { target: string; line: number }

export function links(text: string): Link[] {
  const plain = prose(text)
  return [...plain.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
    target: match[1]!,
    line: lineAt(plain, match.index),
  }))
}

/**
 * The anchors GitHub makes for the headings of a page: lowercased, punctuation (backticks,
 * parentheses, apostrophes) dropped, spaces as hyphens, and `-1`, `-2`, ... for repeats.
 */
export function anchors(text: string): Set<string> {
  const made = new Set<string>()
  const seen = new Map<string, number>()
  const withoutBlocks = text.replace(/^( {0,4})```[\s\S]*?^\1```[ \t]*$/gm, '')
  for (const match of withoutBlocks.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const heading = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    made.add(count === 0 ? base : `${base}-${count}`)
  }
  return made
}
