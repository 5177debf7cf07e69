/**
 * Every TypeScript snippet of the README, type-checked against the source, and the ones that need
 * no network run: each becomes a module of its own (package entries rewritten to the source
 * files), with `globals.d.ts` declaring the names the prose takes as given (`adapter`,
 * `conversation`, `render`, ...). A snippet that stops compiling, or that runs and throws, fails
 * here.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installReadmeGlobals } from './globals.ts'

const root = join(import.meta.dirname, '..', '..')
const out = join(import.meta.dirname, 'snippets')

type Snippet = { line: number; lang: 'ts' | 'tsx'; code: string; file: string }

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
  const text = await readFile(join(root, 'README.md'), 'utf8')
  const entries = await entryFiles()
  const found: Snippet[] = []
  const fence = /^```(ts|tsx)\n([\s\S]*?)^```$/gm
  for (const match of text.matchAll(fence)) {
    const line = text.slice(0, match.index).split('\n').length
    const lang = match[1] as 'ts' | 'tsx'
    const file = join(out, `line-${line}.${lang}`)
    const code = match[2]!.replace(/from '(thinkwire(?:\/[a-z-]+)?)'/g, (whole, entry: string) => {
      const source = entries.get(entry)
      if (source === undefined) return whole
      return `from '${relative(out, source).replaceAll('\\', '/')}'`
    })
    // `export {}` makes each snippet a module: its names never clash with another's or the globals'.
    found.push({ line, lang, code: `${code}\nexport {}\n`, file })
  }
  return found
}

/** Snippets that make no network call and need nothing the globals cannot give: they run. */
function runs(snippet: Snippet): boolean {
  const imports = [...snippet.code.matchAll(/from '([^']+)'/g)].map((m) => m[1]!)
  const offline = imports.every((from) => /\/src\/(index|providers\/mock\/index)\.ts$/.test(from))
  return snippet.lang === 'ts' && imports.length > 0 && offline
}

let all: Snippet[] = []

beforeAll(async () => {
  all = await snippets()
  await mkdir(out, { recursive: true })
  for (const snippet of all) await writeFile(snippet.file, snippet.code)
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

describe('README snippets', () => {
  it('finds the snippets', () => {
    expect(all.length).toBeGreaterThan(10)
  })

  it('all type-check against the source', { timeout: 120_000 }, async () => {
    const tsc = join(root, 'node_modules', '.bin', 'tsc')
    const result = await promisify(execFile)(tsc, ['-p', join(out, 'tsconfig.json')], {
      cwd: root,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    )
    // Name each failure by its README line, not the generated file.
    expect(
      result.replaceAll(
        /test\/readme\/snippets\/line-(\d+)\.tsx?/g,
        'README.md snippet at line $1',
      ),
    ).toBe('')
  })

  it('run without throwing where they need no network', { timeout: 60_000 }, async () => {
    installReadmeGlobals()
    const ran: number[] = []
    for (const snippet of all.filter(runs)) {
      await import(snippet.file)
      ran.push(snippet.line)
    }
    expect(ran.length).toBeGreaterThanOrEqual(3)
  })
})
