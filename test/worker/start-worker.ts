import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { build } from 'esbuild'
import { Miniflare, type MiniflareOptions } from 'miniflare'
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler'

/** A Worker running in workerd, reached over real HTTP. */
export type TestWorker = {
  url: URL
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** Every line the Worker wrote to stdout and stderr so far. */
  logs(): string[]
  dispose(): Promise<void>
}

const root = resolve(import.meta.dirname, '../..')

/**
 * Starts the test entry (`fixtures/test-worker.ts`: the deployed Worker plus scripted models, or
 * `entry`, a path from the repository root) in workerd, configured from wrangler.toml
 * (compatibility date and flags, the Durable Object, the assets routing), with these settings over
 * the `[vars]` and a stand-in demo as its assets. `.dev.vars` is never read, so a developer's real
 * keys cannot reach the tests.
 */
export async function startTestWorker(
  vars: Record<string, string>,
  entry = 'test/worker/fixtures/test-worker.ts',
): Promise<TestWorker> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-worker-'))
  const assets = join(dir, 'assets')
  const bundle = join(dir, 'bundle')
  await build({
    entryPoints: [join(root, entry)],
    outfile: join(bundle, 'index.js'),
    bundle: true,
    format: 'esm',
    // As wrangler bundles for workerd: browser platform (package `browser` maps) and conditions.
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    external: ['cloudflare:*'],
    logLevel: 'error',
  })
  await import('node:fs/promises').then((fs) => fs.mkdir(assets))
  await writeFile(join(assets, 'index.html'), '<!doctype html><title>thinkwire demo</title>')

  const config = unstable_readConfig({ config: join(root, 'wrangler.toml') })
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config, undefined, {
    overrides: { assets: { directory: assets } },
  })
  const lines: string[] = []
  const collect = (stream: Readable) => {
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter((l) => l !== '')))
  }
  const mf = new Miniflare({
    ...workerOptions,
    bindings: { ...config.vars, ...vars },
    modules: true,
    modulesRoot: bundle,
    scriptPath: join(bundle, 'index.js'),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      collect(stdout)
      collect(stderr)
    },
  } as MiniflareOptions)
  const url = await mf.ready
  return {
    url,
    fetch: (path, init) => fetch(new URL(path, url), init),
    logs: () => [...lines],
    async dispose() {
      await mf.dispose()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
