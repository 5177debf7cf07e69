/**
 * Every TypeScript snippet of the README and of the pages in `docs/`, type-checked against the
 * source in one `tsc` run, and the ones that need no network run: each becomes a module of its own
 * (package entries rewritten to the source files), with `globals.d.ts` declaring the names the
 * prose takes as given (`adapter`, `conversation`, `render`, ...). A snippet that stops compiling,
 * or that runs and throws, fails here, named by its file and line (`docs/react.md:42`).
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { installReadmeGlobals } from './globals.ts'
import { docs, fences, root } from './markdown.ts'
import { withOfflineRelay } from './offline-relay.ts'

const out = join(import.meta.dirname, 'snippets')

type Snippet = {
  /** Where it is written: `docs/react.md`. */
  doc: string
  /** The line of its opening fence. */
  line: number
  lang: 'ts' | 'tsx'
  code: string
  /** The generated module: `docs__react-42.tsx`. */
  name: string
}

/** The package's entries as the source files they are built from. */
async function entryFiles(): Promise<Map<string, string>> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    exports: { [entry: string]: string | { default: string } }
  }
  const map = new Map<string, string>()
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue
    const source = target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')
    map.set(entry === '.' ? 'thinkwire' : `thinkwire/${entry.slice(2)}`, join(root, source))
  }
  return map
}

async function snippets(): Promise<Snippet[]> {
  const entries = await entryFiles()
  const found: Snippet[] = []
  for (const { path, text } of await docs()) {
    for (const { lang, code, line } of fences(text)) {
      if (lang !== 'ts' && lang !== 'tsx') continue
      const rewritten = code.replace(
        /from '(thinkwire(?:\/[a-z-]+)*)'/g,
        (whole, entry: string) => {
          const source = entries.get(entry)
          if (source === undefined) return whole
          return `from '${relative(out, source).replaceAll('\\', '/')}'`
        },
      )
      const name = `${path.replace(/\.md$/, '').replaceAll('/', '__')}-${line}.${lang}`
      // `export {}` makes each snippet a module: its names never clash with another's or the globals'.
      found.push({ doc: path, line, lang, code: `${rewritten}\nexport {}\n`, name })
    }
  }
  return found
}

/** The imports of a snippet that may run: the offline entries, and the OpenAI, Anthropic and AI SDKs. */
const OFFLINE =
  /\/src\/(index|kit\/index|providers\/mock\/index)\.ts$|^openai$|^@anthropic-ai\/sdk$|^ai$/

/**
 * Snippets that need nothing the globals and the offline relay cannot give: they run. The
 * `openai` and Anthropic SDKs and the AI SDK's transport reach the offline relay (see
 * `offline-relay.ts`); nothing else reaches a network.
 */
function runs(snippet: Snippet): boolean {
  const imports = [...snippet.code.matchAll(/from '([^']+)'/g)].map((m) => m[1]!)
  return snippet.lang === 'ts' && imports.length > 0 && imports.every((from) => OFFLINE.test(from))
}

/** `tsc`'s output with each generated file named by the doc line it came from. */
function located(output: string, all: readonly Snippet[]): string {
  const byName = new Map(all.map((snippet) => [snippet.name, snippet]))
  return output.replaceAll(
    /test\/readme\/snippets\/([\w-]+\.tsx?)\((\d+),(\d+)\)/g,
    (whole, name: string, line: string, column: string) => {
      const snippet = byName.get(name)
      if (snippet === undefined) return whole
      return `${snippet.doc}:${snippet.line + Number(line)}:${column}`
    },
  )
}

let all: Snippet[] = []

beforeAll(async () => {
  all = await snippets()
  await rm(out, { recursive: true, force: true })
  await mkdir(out, { recursive: true })
  for (const snippet of all) await writeFile(join(out, snippet.name), snippet.code)
  await writeFile(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.json',
      // What a reader's project may well not use: dotted `process.env.KEY` is fine there.
      compilerOptions: { noUnusedLocals: false, noPropertyAccessFromIndexSignature: false },
      include: ['./*.ts', './*.tsx', '../globals.d.ts'],
      exclude: [],
    }),
  )
})

afterAll(async () => {
  await rm(out, { recursive: true, force: true })
})

describe('documentation snippets', () => {
  it('finds the snippets of the README and of the docs pages', () => {
    expect(all.filter((snippet) => snippet.doc === 'README.md').length).toBeGreaterThan(3)
    expect(all.filter((snippet) => snippet.doc.startsWith('docs/')).length).toBeGreaterThan(10)
  })

  it('all type-check against the source', { timeout: 120_000 }, async () => {
    const tsc = join(root, 'node_modules', '.bin', 'tsc')
    const result = await promisify(execFile)(tsc, ['-p', join(out, 'tsconfig.json')], {
      cwd: root,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    )
    expect(located(result, all)).toBe('')
  })

  it('run without throwing where they need no network', { timeout: 60_000 }, async () => {
    installReadmeGlobals()
    // A snippet may print its result; the test output stays the runner's.
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const ran: string[] = []
    try {
      await withOfflineRelay(async () => {
        for (const snippet of all.filter(runs)) {
          const where = `${snippet.doc}:${snippet.line}`
          try {
            await import(join(out, snippet.name))
          } catch (error) {
            throw new Error(`the snippet at ${where} threw: ${String(error)}`, { cause: error })
          }
          ran.push(where)
        }
      })
    } finally {
      log.mockRestore()
    }
    expect(ran.length).toBeGreaterThanOrEqual(8)
    // The README's OpenAI client example runs against the offline relay.
    expect(ran.some((where) => where.startsWith('README.md'))).toBe(true)
    // So does every Anthropic SDK example (the README's and its page's).
    const anthropic = all
      .filter((snippet) => snippet.code.includes("from '@anthropic-ai/sdk'"))
      .map((snippet) => `${snippet.doc}:${snippet.line}`)
    expect(anthropic.length).toBeGreaterThanOrEqual(2)
    expect(ran).toEqual(expect.arrayContaining(anthropic))
  })
})
