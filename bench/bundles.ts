/**
 * What each entry costs to ship, minified and gzipped (level 9), all bundled the same way with
 * esbuild: `thinkwire/client` + `thinkwire/react` on both browser paths beside `@ai-sdk/react`'s
 * `useChat` (React external), each adapter entry with its provider SDK bundled in, and the whole Worker as
 * `wrangler deploy --dry-run` builds it. Run alone: `npx tsx bench/bundles.ts`.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { BUNDLE_BUDGETS, measureBundleSize } from './bundle-size.ts'
import { isMain, printTable, type Row } from './harness.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`

/** Minified and gzipped sizes of a bundle of `contents`, as `bundle-size.ts` builds the client. */
async function bundle(contents: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['react', 'react-dom'],
    write: false,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.contents
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength }
}

const ADAPTERS: readonly [entry: string, file: string, name: string, sdk: string][] = [
  ['thinkwire/anthropic', 'anthropic/index.ts', 'anthropic', '@anthropic-ai/sdk'],
  ['thinkwire/openai', 'openai/index.ts', 'openai', 'openai'],
  ['thinkwire/openai-compatible', 'openai-compatible/index.ts', 'openaiCompatible', 'openai'],
  ['thinkwire/gemini', 'gemini/index.ts', 'gemini', '@google/genai'],
  ['thinkwire/langchain', 'langchain/index.ts', 'fromLangChain', '@langchain/core'],
  ['thinkwire/mock', 'mock/index.ts', 'mock', 'no SDK'],
]

/** The Worker as `wrangler deploy --dry-run` bundles it (minified per wrangler.toml), gzipped. */
async function workerSize(): Promise<{ minified: number; gzipped: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-bench-worker-'))
  try {
    const out = join(dir, 'out')
    // An empty assets folder stands in for the demo build: assets are not part of the script.
    const assets = join(dir, 'assets')
    await import('node:fs/promises').then((fs) => fs.mkdir(assets))
    await run(
      process.execPath,
      [
        join(root, 'node_modules/wrangler/bin/wrangler.js'),
        'deploy',
        '--dry-run',
        '--outdir',
        out,
        '--assets',
        assets,
      ],
      {
        cwd: root,
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
        timeout: 120_000,
      },
    )
    let minified = 0
    let gzipped = 0
    for (const file of await readdir(out)) {
      if (!file.endsWith('.js') && !file.endsWith('.mjs')) continue
      const code = await readFile(join(out, file))
      minified += code.byteLength
      gzipped += gzipSync(code, { level: 9 }).byteLength
    }
    return { minified, gzipped }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Row 4: bundle sizes. */
export async function benchBundles(): Promise<Row[]> {
  const section = '4. bundle size (esbuild, minified + gzip -9)'
  const ours = await measureBundleSize('relay + useChat')
  const durable = await measureBundleSize('relayConversation + useConversation')
  const theirs = await bundle("export { useChat } from '@ai-sdk/react'")
  const rows: Row[] = [
    {
      section,
      name: 'thinkwire/client + thinkwire/react (relay + useChat)',
      value: kib(ours.gzipped),
      note: `${kib(ours.minified)} minified; budget ${kib(BUNDLE_BUDGETS['relay + useChat'])}`,
    },
    {
      section,
      name: 'thinkwire/client + thinkwire/react (relayConversation + useConversation)',
      value: kib(durable.gzipped),
      note: `${kib(durable.minified)} minified; budget ${kib(BUNDLE_BUDGETS['relayConversation + useConversation'])}`,
    },
    {
      section,
      name: '@ai-sdk/react useChat (its transport included)',
      value: kib(theirs.gzipped),
      note: `${kib(theirs.minified)} minified; ${(theirs.gzipped / ours.gzipped).toFixed(1)}x ours`,
    },
  ]
  for (const [entry, file, name, sdk] of ADAPTERS) {
    const size = await bundle(`export { ${name} } from './src/providers/${file}'`)
    rows.push({
      section,
      name: `${entry} (with ${sdk})`,
      value: kib(size.gzipped),
      note: `${kib(size.minified)} minified`,
    })
  }
  const worker = await workerSize()
  rows.push({
    section,
    name: 'Worker (wrangler deploy --dry-run)',
    value: kib(worker.gzipped),
    note: `${kib(worker.minified)} minified; Free plan limit 3 MiB gzipped`,
  })
  return rows
}

if (isMain(import.meta.url)) printTable(await benchBundles())
