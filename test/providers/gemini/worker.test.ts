import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect, fixture, geminiWith } from './helpers.ts'

let mf: Miniflare | undefined
let dir = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'thinkwire-gemini-worker-'))
  // Bundled the way wrangler bundles for workerd: browser platform and its conditions, no Node.
  await build({
    entryPoints: [join(import.meta.dirname, 'worker-entry.ts')],
    outfile: join(dir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    logLevel: 'error',
  })
  mf = new Miniflare({
    modules: true,
    modulesRoot: dir,
    scriptPath: join(dir, 'index.js'),
    compatibilityDate: '2025-09-01',
  })
  await mf.ready
})

afterAll(async () => {
  await mf?.dispose()
  await rm(dir, { recursive: true, force: true })
})

describe('gemini in a Worker', () => {
  it.each([
    ['thinking-then-text.sse', 'text'],
    ['function-call-signed.sse', 'tool-call'],
  ])('streams %s in workerd as in Node, thinking then %s', async (name, kind) => {
    const body = fixture(name)
    const response = await mf!.dispatchFetch('http://worker/', { method: 'POST', body })
    expect(response.status).toBe(200)
    const inWorker: unknown = await response.json()
    const inNode = await collect(
      geminiWith([{ body }]).adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }),
    )
    expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
    expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
  })
})
