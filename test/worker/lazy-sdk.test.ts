import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { build, type Metafile } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { complete } from '../../src/core/complete.ts'
import { registryFromEnv } from '../../worker/registry.ts'
import { replayFetch } from '../helpers/replay-fetch.ts'
import { workerAliases } from '../helpers/worker-aliases.ts'

// Each provider SDK, as it is, but noted here when a module first imports it: a module's factory
// runs once, when the module graph first reaches it.
const loaded = vi.hoisted(() => [] as string[])
vi.mock('@anthropic-ai/sdk', async (original) => {
  loaded.push('@anthropic-ai/sdk')
  return original()
})
vi.mock('openai', async (original) => {
  loaded.push('openai')
  return original()
})
vi.mock('@google/genai', async (original) => {
  loaded.push('@google/genai')
  return original()
})

const root = resolve(import.meta.dirname, '../..')
const fixture = (path: string) => readFileSync(resolve(root, 'test/fixtures', path), 'utf8')

/** Every provider SDK the Worker can serve, by package name. */
const SDKS = ['@anthropic-ai/sdk', 'openai', '@google/genai']

/** A key for each provider, and one OpenAI-compatible server by preset. */
const EVERY_PROVIDER = {
  ANTHROPIC_API_KEY: 'sk-ant-test',
  OPENAI_API_KEY: 'sk-test',
  GEMINI_API_KEY: 'gemini-test',
  OPENAI_COMPATIBLE: 'groq',
  GROQ_API_KEY: 'gsk-test',
}

const ask = { turns: [{ role: 'user' as const, content: 'Hi' }] }

describe('the Worker loads a provider SDK when the provider first streams', () => {
  // In order: the first test must find no SDK loaded, the second loads them one by one.
  const registry = registryFromEnv(EVERY_PROVIDER)
  const upstream = replayFetch((request) =>
    request.url.includes('/v1/messages')
      ? { body: fixture('anthropic/interleaved-thinking.sse') }
      : { body: fixture('openai-compatible/text-usage.sse') },
  )
  // The SDKs take the global fetch when their client is built, at the first stream.
  beforeAll(() => vi.stubGlobal('fetch', upstream.fetch))
  afterAll(() => vi.unstubAllGlobals())

  it('lists every configured provider with its capabilities, resolves its models, and loads no SDK', () => {
    const models = registry.models()
    const providers = new Set(models.map((model) => model.provider))
    expect([...providers]).toEqual(['anthropic', 'openai', 'gemini', 'groq'])
    for (const model of models) expect(model.thinking).toBeDefined()
    expect(registry.resolve('anthropic/claude-sonnet-5').capabilities?.pricing).toBeDefined()
    expect(registry.resolve('groq/any-model').provider).toBe('groq')
    expect(loaded).toEqual([])
  })

  it('loads only the SDK of the provider that streams, once, and streams through it', async () => {
    const first = await complete(registry.resolve('anthropic/claude-sonnet-5'), ask)
    expect(first.text).not.toBe('')
    expect(loaded).toEqual(['@anthropic-ai/sdk'])

    await complete(registry.resolve('anthropic/claude-haiku-4-5'), ask)
    expect(loaded).toEqual(['@anthropic-ai/sdk'])

    const compatible = await complete(registry.resolve('groq/llama-3.3-70b-versatile'), ask)
    expect(compatible.text).toContain('Grüß Gott')
    expect(loaded).toEqual(['@anthropic-ai/sdk', 'openai'])
    expect(upstream.requests.map((request) => new URL(request.url).host)).toEqual([
      'api.anthropic.com',
      'api.anthropic.com',
      'api.groq.com',
    ])
  })
})

/** The inputs a module graph reaches from `entry` through `kinds` of imports. */
function reached(metafile: Metafile, entry: string, kinds: readonly string[]): Set<string> {
  const seen = new Set<string>()
  const pending = [entry]
  while (pending.length > 0) {
    const input = pending.pop()!
    if (seen.has(input)) continue
    seen.add(input)
    for (const edge of metafile.inputs[input]?.imports ?? []) {
      if (kinds.includes(edge.kind) && !edge.external) pending.push(edge.path)
    }
  }
  return seen
}

const sdkOf = (input: string) => SDKS.find((sdk) => input.startsWith(`node_modules/${sdk}/`))

describe("the Worker's bundle", () => {
  it('reaches each provider SDK only through the dynamic import of its provider entry', async () => {
    // As wrangler and the test Worker bundle it: one file, every module behind esbuild's lazy
    // init when only a dynamic import reaches it, so that nothing in it runs at startup.
    const { metafile } = await build({
      entryPoints: [resolve(root, 'worker/index.ts')],
      absWorkingDir: root,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      target: 'es2022',
      external: ['cloudflare:*'],
      alias: workerAliases(),
      write: false,
      metafile: true,
      logLevel: 'error',
    })
    const entry = 'worker/index.ts'
    const atStartup = reached(metafile, entry, ['import-statement', 'require-call'])
    expect([...atStartup].filter((input) => sdkOf(input) !== undefined)).toEqual([])

    // Our own dynamic imports (an SDK has some of its own, inside it).
    const lazy = Object.entries(metafile.inputs)
      .filter(([input]) => !input.startsWith('node_modules/'))
      .flatMap(([input, { imports }]) =>
        imports.filter((edge) => edge.kind === 'dynamic-import').map((edge) => [input, edge.path]),
      )
    expect(lazy.toSorted()).toEqual([
      ['worker/registry.ts', 'src/providers/anthropic/index.ts'],
      ['worker/registry.ts', 'src/providers/gemini/index.ts'],
      ['worker/registry.ts', 'src/providers/openai-compatible/index.ts'],
      ['worker/registry.ts', 'src/providers/openai/index.ts'],
    ])
    // Not vacuous: each SDK is in the bundle, behind those imports.
    const everything = reached(metafile, entry, ['import-statement', 'dynamic-import'])
    const bundled = new Set([...everything].map(sdkOf).filter((sdk) => sdk !== undefined))
    expect([...bundled].toSorted()).toEqual(SDKS.toSorted())
  })
})
