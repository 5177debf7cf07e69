/**
 * The Worker is a host like any user's: it reaches `src/` only through the package's public entries
 * (the files `package.json` "exports" maps to), so what it needs is public, documented and kept,
 * and nothing it uses can change under it as an internal would. Every `.ts` file under `worker/`
 * is read, each import, `export ... from` and `import()` of it found, and one that names a file of
 * `src/` that is not an entry (or a `thinkwire/...` subpath that is not exported) fails, named.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')

/** A path from the repository's root, with `/` whatever the platform. */
const fromRoot = (path: string) => relative(root, path).split(sep).join('/')

/** The exports map: subpath (`.`, `./relay`, ...) to the source file its build comes from. */
function publicEntries(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>
  }
  const entries = new Map<string, string>()
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const built = typeof target === 'string' ? target : target['default']
    if (built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) continue
    entries.set(subpath, `src/${built.slice('./dist/'.length, -'.js'.length)}.ts`)
  }
  return entries
}

/** The source without its comments (strings kept whole, so a `//` inside one stays). */
function withoutComments(source: string): string {
  const tokens =
    /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g
  return source.replace(tokens, (whole, literal: string | undefined) => literal ?? ' ')
}

/**
 * Every module specifier of a TypeScript source: `import ... from`, `import type`, `export ...
 * from`, a bare `import '...'` and a dynamic `import('...')`.
 */
function specifiersOf(source: string): string[] {
  const found: string[] = []
  const pattern = /\b(?:from|import)\s*\(?\s*(['"])([^'"\n]+)\1/g
  for (const match of withoutComments(source).matchAll(pattern)) found.push(match[2]!)
  return found
}

/**
 * What `specifier`, imported by `file` (a path from the root), breaks: undefined when it names a
 * public entry or no part of `src/` at all.
 */
function violationOf(
  file: string,
  specifier: string,
  entries: Map<string, string>,
): string | undefined {
  if (specifier === 'thinkwire' || specifier.startsWith('thinkwire/')) {
    const subpath = specifier === 'thinkwire' ? '.' : `./${specifier.slice('thinkwire/'.length)}`
    if (entries.has(subpath)) return undefined
    return `${file} imports '${specifier}', which package.json "exports" does not map`
  }
  if (!specifier.startsWith('.')) return undefined
  const target = fromRoot(resolve(root, dirname(file), specifier))
  if (!target.startsWith('src/')) return undefined
  if ([...entries.values()].includes(target)) return undefined
  const why = 'which is not a public entry of package.json "exports"'
  return `${file} imports '${specifier}' (${target}), ${why}`
}

/** The `.ts` files under `worker/`, from the root. */
function workerFiles(): string[] {
  const dir = join(root, 'worker')
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => fromRoot(join(dir, name)))
    .toSorted()
}

/** What each file's imports break, by file. */
function violationsByFile(): Map<string, string[]> {
  const entries = publicEntries()
  const byFile = new Map<string, string[]>()
  for (const file of workerFiles()) {
    const source = readFileSync(join(root, file), 'utf8')
    const found = specifiersOf(source).flatMap((specifier) => {
      const violation = violationOf(file, specifier, entries)
      return violation === undefined ? [] : [violation]
    })
    byFile.set(file, found)
  }
  return byFile
}

describe('the Worker imports the library through its public entries only', () => {
  it('maps every entry of the exports map to a source file that exists', () => {
    const entries = publicEntries()
    expect(entries.get('.')).toBe('src/index.ts')
    expect(entries.get('./relay')).toBe('src/relay/index.ts')
    const missing = [...entries.values()].filter((path) => !existsSync(join(root, path)))
    expect(missing).toEqual([])
  })

  it('finds every kind of import a file can make', () => {
    const source = [
      "import { a } from '../src/a.ts'",
      "import type { B } from '../src/b.ts'",
      'import {',
      '  c,',
      '  type C,',
      "} from '../src/c.ts'",
      "export { d } from '../src/d.ts'",
      "export type * from '../src/e.ts'",
      "import '../src/f.ts'",
      "const g = await import('../src/g.ts')",
      '// a comment that names "../src/not-an-import.ts" is no import',
      "const url = 'https://example.test/from' // and a string is not one either",
    ].join('\n')
    expect(specifiersOf(source)).toEqual([
      '../src/a.ts',
      '../src/b.ts',
      '../src/c.ts',
      '../src/d.ts',
      '../src/e.ts',
      '../src/f.ts',
      '../src/g.ts',
    ])
  })

  it('reads every file under worker/ and finds imports in it', () => {
    const files = workerFiles()
    expect(files).toContain('worker/index.ts')
    expect(files).toContain('worker/conversation-object.ts')
    const imports = files.flatMap((file) => specifiersOf(readFileSync(join(root, file), 'utf8')))
    expect(imports).toContain('../src/relay/index.ts')
  })

  it('has no file of worker/ import a part of src/ that is not a public entry', () => {
    const violations = [...violationsByFile()].flatMap(([, found]) => found)
    expect(violations, 'import these from a public entry, or export them from one').toEqual([])
  })
})
