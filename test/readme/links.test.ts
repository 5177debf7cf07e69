/**
 * The README and the pages of `docs/` point only at what exists: every relative link and image
 * at a file, every `#anchor` at a heading of its page, every repository path written in code
 * (`src/relay/seal.ts`) at a file or folder, and the copy of the kit's example adapter in
 * `docs/kit.md` at the tested file it copies.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, normalize } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { anchors, docs, fences, lineAt, links, root, type Doc } from './markdown.ts'

let all: Doc[] = []

beforeAll(async () => {
  all = await docs()
})

/** The text of a documentation file, by its path from the root. */
function textOf(path: string): string | undefined {
  return all.find((doc) => doc.path === path)?.text
}

describe('documentation links', () => {
  it('reads the README and the docs pages', () => {
    expect(all.map((doc) => doc.path)).toContain('README.md')
    expect(all.length).toBeGreaterThan(5)
  })

  it('point at files that exist and headings that exist', () => {
    const broken: string[] = []
    for (const doc of all) {
      for (const { target, line } of links(doc.text)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue // https:, mailto:
        const [path = '', anchor] = target.split('#')
        const file = path === '' ? doc.path : normalize(join(dirname(doc.path), path))
        const where = `${doc.path}:${line}: ${target}`
        if (file.startsWith('..') || !existsSync(join(root, file))) {
          broken.push(`${where} (no ${file})`)
          continue
        }
        if (anchor === undefined) continue
        const text = textOf(file)
        if (text === undefined) broken.push(`${where} (an anchor into a file that is not a doc)`)
        else if (!anchors(text).has(anchor)) broken.push(`${where} (no heading makes #${anchor})`)
      }
    }
    expect(broken).toEqual([])
  })

  it('name repository paths that exist', () => {
    const top = /^(src|test|examples|worker|bench|scripts|demo|docs|\.ci)\/[\w./-]*$/
    const files = /^(wrangler\.toml|\.dev\.vars\.example|package\.json|CHANGELOG\.md|LICENSE)$/
    const missing: string[] = []
    for (const doc of all) {
      // Inline code only: code blocks hold examples, not references.
      const text = doc.text.replace(/^( {0,4})```[\s\S]*?^\1```[ \t]*$/gm, (block) =>
        block.replace(/[^\n]/g, ' '),
      )
      for (const match of text.matchAll(/`([^`\n]+)`/g)) {
        const path = match[1]!
        if (!top.test(path) && !files.test(path)) continue
        if (!existsSync(join(root, path)))
          missing.push(`${doc.path}:${lineAt(text, match.index)}: ${path}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('copy the kit example adapter as it is tested', async () => {
    const example = await readFile(join(root, 'examples', 'acme-adapter.ts'), 'utf8')
    const kit = fences(textOf('docs/kit.md') ?? '').find((fence) => fence.code.includes('acme'))
    // The example imports the source; the page imports the package.
    const asPublished = example
      .replaceAll("from '../src/index.ts'", "from 'thinkwire'")
      .replaceAll("from '../src/kit/index.ts'", "from 'thinkwire/kit'")
    expect(kit?.code).toBe(asPublished)
  })
})
