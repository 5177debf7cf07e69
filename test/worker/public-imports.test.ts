/**
 * The Worker is a host like any user's: it reaches `src/` only by the package's public names
 * (`thinkwire`, `thinkwire/relay`, ...: the subpaths `package.json` "exports" maps), so what it
 * needs is public, documented and kept, and nothing it uses can change under it as an internal
 * would. Those names lead to `dist/`, which `npm start` and the tests do not build, so
 * wrangler.toml's `[alias]` maps each to the source file of its export (and tsconfig.json's `paths`
 * repeats the table for the compiler and tsx). Every `.ts` file under `worker/` is read, each
 * import, `export ... from` and `import()` of it found, and one that names a file of `src/` by its
 * path, or a `thinkwire/...` name that is not exported or not in the table, fails, named.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { workerAliases } from '../helpers/worker-aliases.ts'

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

/** The public name of an exports subpath: `.` is `thinkwire`, `./relay` is `thinkwire/relay`. */
const nameOf = (subpath: string) =>
  subpath === '.' ? 'thinkwire' : `thinkwire/${subpath.slice(2)}`

/** The exports subpath of a `thinkwire...` name: `thinkwire` is `.`, `thinkwire/relay` `./relay`. */
const subpathOf = (name: string) =>
  name === 'thinkwire' ? '.' : `./${name.slice('thinkwire/'.length)}`

/** wrangler.toml's `[alias]`: each name to the file it stands for, from the root. */
function aliasTable(): Map<string, string> {
  return new Map(Object.entries(workerAliases()).map(([name, path]) => [name, fromRoot(path)]))
}

/**
 * What `specifier`, imported by `file` (a path from the root), breaks: undefined when it is a
 * public name that wrangler.toml's `[alias]` maps, or names no part of `src/` at all.
 */
function violationOf(
  file: string,
  specifier: string,
  entries: Map<string, string>,
  aliases: Map<string, string>,
): string | undefined {
  if (specifier === 'thinkwire' || specifier.startsWith('thinkwire/')) {
    if (!entries.has(subpathOf(specifier))) {
      return `${file} imports '${specifier}', which package.json "exports" does not map`
    }
    if (aliases.has(specifier)) return undefined
    return `${file} imports '${specifier}', which wrangler.toml's [alias] does not map`
  }
  if (!specifier.startsWith('.')) return undefined
  const target = fromRoot(resolve(root, dirname(file), specifier))
  if (!target.startsWith('src/')) return undefined
  const entry = [...entries].find(([, source]) => source === target)
  const instead =
    entry === undefined
      ? 'which is not a public entry of package.json "exports"'
      : `a public entry by its path: import '${nameOf(entry[0])}'`
  return `${file} imports '${specifier}' (${target}), ${instead}`
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
  const aliases = aliasTable()
  const byFile = new Map<string, string[]>()
  for (const file of workerFiles()) {
    const source = readFileSync(join(root, file), 'utf8')
    const found = specifiersOf(source).flatMap((specifier) => {
      const violation = violationOf(file, specifier, entries, aliases)
      return violation === undefined ? [] : [violation]
    })
    byFile.set(file, found)
  }
  return byFile
}

describe('the Worker imports the library by its public names only', () => {
  it('maps every entry of the exports map to a source file that exists', () => {
    const entries = publicEntries()
    expect(entries.get('.')).toBe('src/index.ts')
    expect(entries.get('./relay')).toBe('src/relay/index.ts')
    const missing = [...entries.values()].filter((path) => !existsSync(join(root, path)))
    expect(missing).toEqual([])
  })

  it("maps each name of wrangler.toml's [alias] to the source file of the export it names", () => {
    const entries = publicEntries()
    const aliases = aliasTable()
    expect(aliases.get('thinkwire/relay')).toBe('src/relay/index.ts')
    const wrong = [...aliases]
      .map(([name, path]) => [name, path, entries.get(subpathOf(name)) ?? 'no export'] as const)
      .filter(([, path, source]) => path !== source)
    expect(wrong, '[name, aliased to, source file of its export]').toEqual([])
  })

  it("reads wrangler.toml's [alias] as wrangler does", async () => {
    const { unstable_readConfig } = await import('wrangler')
    const config = unstable_readConfig({ config: join(root, 'wrangler.toml') })
    const wranglers = Object.entries<string>(config.alias ?? {}).map(([name, path]) => [
      name,
      fromRoot(resolve(root, path)),
    ])
    expect(Object.fromEntries(aliasTable())).toEqual(Object.fromEntries(wranglers))
  })

  it("gives the compiler and tsx the names of wrangler.toml's [alias] in tsconfig.json's paths", () => {
    const tsconfig = JSON.parse(withoutComments(readFileSync(join(root, 'tsconfig.json'), 'utf8')))
    const paths = (tsconfig as { compilerOptions: { paths?: Record<string, string[]> } })
      .compilerOptions.paths
    const names = Object.entries(paths ?? {}).map(([name, [path]]) => [
      name,
      fromRoot(resolve(root, path!)),
    ])
    expect(Object.fromEntries(names)).toEqual(Object.fromEntries(aliasTable()))
  })

  it('tells a public name wrangler.toml maps from an import of src/ by path', () => {
    const entries = publicEntries()
    const aliases = new Map([
      ['thinkwire', 'src/index.ts'],
      ['thinkwire/relay', 'src/relay/index.ts'],
    ])
    const judge = (specifier: string) =>
      violationOf('worker/a.ts', specifier, entries, aliases) ?? 'fine'
    expect(judge('thinkwire')).toBe('fine')
    expect(judge('thinkwire/relay')).toBe('fine')
    expect(judge('./settings.ts')).toBe('fine')
    expect(judge('jose')).toBe('fine')
    expect(judge('../src/relay/index.ts')).toBe(
      "worker/a.ts imports '../src/relay/index.ts' (src/relay/index.ts), a public entry by its path: import 'thinkwire/relay'",
    )
    expect(judge('../src/relay/auth.ts')).toMatch(/which is not a public entry/)
    expect(judge('thinkwire/kit')).toBe(
      "worker/a.ts imports 'thinkwire/kit', which wrangler.toml's [alias] does not map",
    )
    expect(judge('thinkwire/internal')).toBe(
      'worker/a.ts imports \'thinkwire/internal\', which package.json "exports" does not map',
    )
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
    expect(imports).toContain('thinkwire/relay')
  })

  it('has every file of worker/ import src/ by a public name that wrangler.toml maps', () => {
    const violations = [...violationsByFile()].flatMap(([, found]) => found)
    const fix = 'import these by a public name (mapped in [alias]), or export them from one'
    expect(violations, fix).toEqual([])
  })
})
