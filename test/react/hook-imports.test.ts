import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { expect, it } from 'vitest'

/** Module specifiers: `import … from`, `export … from`, `import '…'` and `import('…')`, types included. */
const SPECIFIER = /(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g

/** Every module the files of `dir` import, as a repository path or a package name. */
function importsOf(dir: string): { file: string; imports: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .flatMap((name) => {
      const file = join(dir, name)
      return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map(([, specifier = '']) => ({
        file,
        imports: specifier.startsWith('.')
          ? relative('.', join(dirname(file), specifier))
          : specifier,
      }))
    })
}

it('binds the hooks to src/core and React alone, never to the relay client', () => {
  const found = importsOf('src/react')
  expect(found.map(({ imports }) => imports)).toContain('src/core/chat-store.ts')
  const outside = found.filter(
    ({ imports }) => imports !== 'react' && !/^src\/(core|react)\//.test(imports),
  )
  expect(outside).toEqual([])
})
