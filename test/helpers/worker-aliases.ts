import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

const root = resolve(import.meta.dirname, '../..')

/** A line of the table: `"name" = "path"` (the name may go unquoted), and perhaps a comment. */
const ENTRY = /^\s*(?:"([^"]+)"|([\w./@-]+))\s*=\s*"([^"]*)"\s*(?:#.*)?$/

/**
 * wrangler.toml's `[alias]` table: each public name the Worker imports thinkwire by (`thinkwire`,
 * `thinkwire/relay`, ...) to the absolute path of the source file it stands for, as wrangler
 * bundles it. For the bundles and the Vitest runs of the Worker that wrangler does not make, so that
 * wrangler.toml stays the one list. Read here rather than with wrangler's `unstable_readConfig`,
 * whose import costs a Vitest start about a second; `test/worker/public-imports.test.ts` checks that
 * both read the same. A line of the table this reader does not understand throws, naming it.
 */
export function workerAliases(): Record<string, string> {
  const lines = readFileSync(resolve(root, 'wrangler.toml'), 'utf8').split(/\r?\n/)
  const start = lines.findIndex((line) => line.trim() === '[alias]')
  if (start === -1) throw new Error('wrangler.toml has no [alias] table')
  const aliases: Record<string, string> = {}
  for (const line of lines.slice(start + 1)) {
    const text = line.trim()
    if (text.startsWith('[')) break
    if (text === '' || text.startsWith('#')) continue
    const match = ENTRY.exec(line)
    if (match === null) throw new Error(`wrangler.toml's [alias] has a line not read: ${text}`)
    aliases[(match[1] ?? match[2])!] = resolve(root, match[3]!)
  }
  return aliases
}
