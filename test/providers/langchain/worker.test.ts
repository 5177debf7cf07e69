import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromLangChain } from '../../../src/providers/langchain/index.ts'
import { collect } from './helpers.ts'
import { modelFor, type ScriptedChunk } from './worker-entry.ts'

let mf: Miniflare | undefined
let dir = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'thinkwire-langchain-worker-'))
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

const script: ScriptedChunk[] = [
  { content: '', additional_kwargs: { reasoning_content: 'Zwei und zwei … ' } },
  { content: [{ type: 'reasoning', reasoning: 'vier 🧮' }] },
  { content: 'Es ist ' },
  { content: 'vier.' },
  {
    content: '',
    tool_call_chunks: [
      { id: 'call_1', name: 'log', args: '{"n":', index: 0, type: 'tool_call_chunk' },
    ],
  },
  { content: '', tool_call_chunks: [{ args: ' 4}', index: 0, type: 'tool_call_chunk' }] },
  { usage: { input_tokens: 12, output_tokens: 9, total_tokens: 21 } },
]

describe('fromLangChain in a Worker', () => {
  it('streams thinking, text and a tool call from a LangChain model in workerd as in Node', async () => {
    const response = await mf!.dispatchFetch('http://worker/', {
      method: 'POST',
      body: JSON.stringify(script),
    })
    expect(response.status).toBe(200)
    const inWorker: unknown = await response.json()
    const inNode = await collect(
      fromLangChain(modelFor(script)).stream({ turns: [{ role: 'user', content: '2 + 2?' }] }),
    )
    expect(inNode.map((event) => event.type)).toEqual([
      'thinking',
      'thinking',
      'text',
      'text',
      'tool-call',
      'done',
    ])
    expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
  })
})
