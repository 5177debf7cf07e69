import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { build } from 'esbuild'
import { Miniflare, type MiniflareOptions } from 'miniflare'
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler'
import { TEST_WORKER_VARS } from '../helpers/test-worker-vars.ts'

/** A Worker running in workerd, reached over real HTTP. */
export type TestWorker = {
  url: URL
  fetch(path: string, init?: RequestInit): Promise<Response>
  /**
   * POSTs on a connection of its own, closed after the answer: for a body the Worker refuses before
   * reading it all. workerd then closes the connection (with no `connection: close` to say so), so a
   * connection kept in `fetch`'s pool could carry the next request into the reset. A body given as
   * chunks goes without a `content-length` (chunked).
   */
  postAlone(
    path: string,
    headers: Record<string, string>,
    body: string | Uint8Array[],
  ): Promise<Response>
  /** Every line the Worker wrote to stdout and stderr so far. */
  logs(): string[]
  dispose(): Promise<void>
}

const root = resolve(import.meta.dirname, '../..')

/**
 * Starts the test entry (`fixtures/test-worker.ts`: the deployed Worker plus scripted models, or
 * `entry`, a path from the repository root) in workerd, configured from wrangler.toml
 * (compatibility date and flags, the Durable Object, the assets routing), with these settings over
 * the `[vars]` and a stand-in demo as its assets. It is open to anyone (`ALLOW_ANONYMOUS`) and has a
 * `CLIENT_ID_SECRET` unless `vars` say otherwise (see `TEST_WORKER_VARS`). `.dev.vars` is never
 * read, so a developer's real keys cannot reach the tests.
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
    bindings: { ...config.vars, ...TEST_WORKER_VARS, ...vars },
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
    postAlone: (path, headers, body) => postAlone(new URL(path, url), headers, body),
    logs: () => [...lines],
    async dispose() {
      await mf.dispose()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

function postAlone(
  url: URL,
  headers: Record<string, string>,
  body: string | Uint8Array[],
): Promise<Response> {
  return new Promise((done, reject) => {
    const sized =
      typeof body === 'string' ? { 'content-length': String(Buffer.byteLength(body)) } : {}
    const request = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { ...headers, ...sized } },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('error', reject)
        answer.on('end', () => {
          const names = new Headers()
          for (const [name, value] of Object.entries(answer.headers)) {
            if (typeof value === 'string') names.set(name, value)
          }
          done(new Response(Buffer.concat(chunks), { status: answer.statusCode!, headers: names }))
        })
      },
    )
    request.on('error', reject)
    for (const chunk of typeof body === 'string' ? [body] : body) request.write(chunk)
    request.end()
  })
}
