import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../../src/', import.meta.url))

/** Every TypeScript file under `src/`, with its text. */
function sources(): { file: string; text: string }[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(join(SRC, file), 'utf8') }))
}

/** The package specifiers a file imports from (static and dynamic imports, re-exports). */
function packageImports(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((m) => m[1]!)
  return specifiers.filter((specifier) => !specifier.startsWith('.'))
}

describe('the package uses its dependencies through their public APIs only', () => {
  it('imports no private path of a dependency (a `_vendor`, `_shims` or `internal` folder)', () => {
    const found = sources().flatMap(({ file, text }) =>
      packageImports(text)
        .filter((specifier) =>
          specifier.split('/').some((s) => s.startsWith('_') || s === 'internal'),
        )
        .map((specifier) => `${file}: ${specifier}`),
    )
    expect(found).toEqual([])
  })

  it("reads none of undici's global state, which Node's fetch keeps under a symbol", () => {
    const found = sources()
      .filter(({ text }) => /undici\.globalDispatcher|Symbol\.for\(\s*'undici/.test(text))
      .map(({ file }) => file)
    expect(found).toEqual([])
  })

  it('finds the imports it checks', () => {
    const all = sources().flatMap(({ text }) => packageImports(text))
    expect(all).toEqual(expect.arrayContaining(['@anthropic-ai/sdk', 'openai', '@google/genai']))
  })
})
