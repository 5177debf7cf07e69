import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, compatibleWith, fixture } from './helpers.ts'

let mf: Miniflare | undefined
let dir = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'thinkwire-compatible-worker-'))
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

describe('openai-compatible in a Worker', () => {
  it.each([
    ['deepseek', 'deepseek-reasoner', 'deepseek-answer.sse', 'text'],
    ['deepseek', 'deepseek-reasoner', 'deepseek-tool-call.sse', 'tool-call'],
    ['groq', 'qwen/qwen3-32b', 'think-tags.sse', 'text'],
  ] as const)(
    'streams %s %s %s in workerd as in Node, thinking then %s',
    async (preset, model, name, kind) => {
      const body = fixture(name)
      const response = await mf!.dispatchFetch(`http://worker/${preset}/${model}`, {
        method: 'POST',
        body,
      })
      expect(response.status).toBe(200)
      const inWorker: unknown = await response.json()
      const { adapter } = compatibleWith([{ body }], {
        ...presets[preset],
        model,
        apiKey: 'sk-test-key-0123456789',
      })
      const inNode = await collect(
        adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }),
      )
      expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
      expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
    },
  )
})
