import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { build, version as esbuildVersion, type BuildOptions } from 'esbuild'
import { Miniflare, type MiniflareOptions, type WorkerOptions } from 'miniflare'
import { Agent } from 'undici'
import { kept, pruneBuilds } from '../helpers/kept.ts'
import { TEST_WORKER_VARS } from '../helpers/test-worker-vars.ts'
import { SETTINGS_HEADER } from './settings-header.ts'

/** What a Worker answers, reached over real HTTP. */
export type WorkerAnswers = {
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
  /** Every line the Worker wrote to stdout and stderr so far (under any settings). */
  logs(): string[]
}

/** A Worker running in workerd, reached over real HTTP. */
export type TestWorker = WorkerAnswers & {
  url: URL
  /** wrangler.toml's `[vars]`, as wrangler reads them. */
  configVars: Readonly<Record<string, string>>
  /**
   * The same Worker answering as one started with `vars` would (over wrangler.toml's `[vars]` and
   * `TEST_WORKER_VARS`, not over this Worker's own): each request carries them, and the test entry
   * serves it with them (`fixtures/settings-from-request.ts`). For settings the relay reads; a
   * Durable Object keeps the Worker's own, and one client's rate window is shared by every set.
   */
  withSettings(vars: Record<string, string>): WorkerAnswers
  dispose(): Promise<void>
}

const root = resolve(import.meta.dirname, '../..')
const WRANGLER_TOML = join(root, 'wrangler.toml')
/** Bundles and wrangler's reading of wrangler.toml, kept for every test file of every run. */
const CACHE = join(root, 'node_modules/.cache/thinkwire-test-workers')

/** As wrangler bundles for workerd: browser platform (package `browser` maps) and conditions. */
const BUILD = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  define: { 'process.env.NODE_ENV': '"production"' },
  external: ['cloudflare:*'],
  logLevel: 'error',
  absWorkingDir: root,
} as const satisfies BuildOptions

/** Changed when what a record holds changes, so that records kept by an earlier recipe are not read. */
const RECIPE = 4

/** wrangler's reading of wrangler.toml, as Miniflare takes it. */
type WranglerConfig = {
  /** Miniflare's options for the Worker of wrangler.toml, with a stand-in demo as its assets. */
  workerOptions: WorkerOptions
  /** wrangler.toml's `[vars]`. */
  vars: Record<string, string>
  /** wrangler.toml's `minify` and `keep_names`, which a bundle follows. */
  minify: boolean
  keepNames: boolean
  /**
   * wrangler.toml's `[alias]`, each path made absolute: the public names the Worker imports thinkwire
   * by, to the source files they stand for (the package's own names lead to dist/, not built here).
   */
  alias: Record<string, string>
}

/**
 * Starts the test entry (`fixtures/test-worker.ts`: the deployed Worker plus scripted models, or
 * `entry`, a path from the repository root) in workerd (see {@link startWorkerd}), with these
 * settings over the `[vars]` and a stand-in demo as its assets. It is open to anyone
 * (`ALLOW_ANONYMOUS`) and has a `CLIENT_ID_SECRET` unless `vars` say otherwise (see
 * `TEST_WORKER_VARS`). The bundle and wrangler's reading of wrangler.toml are made once and kept
 * until one of their files changes (see `bundle`), so a start costs workerd's own start only.
 * With `persist`, its Durable Objects keep their storage in that folder: `dispose()` kills
 * workerd, and a Worker started on the same folder finds what the killed one stored, as a
 * restarted runtime does.
 */
export async function startTestWorker(
  vars: Record<string, string>,
  entry = 'test/worker/fixtures/test-worker.ts',
  options: { persist?: string | undefined } = {},
): Promise<TestWorker> {
  const [script, { vars: configVars }] = await Promise.all([bundle(entry), wranglerConfig()])
  const { url, logs, dispose } = await startWorkerd({ script, vars, persist: options.persist })
  const answers = (headers: Record<string, string>): WorkerAnswers => ({
    fetch(path, init = {}) {
      const sent = new Headers(init.headers)
      for (const [name, value] of Object.entries(headers)) sent.set(name, value)
      return fetch(new URL(path, url), {
        ...init,
        headers: sent,
        dispatcher: ownConnections,
      } as RequestInit)
    },
    postAlone: (path, more, body) => postAlone(new URL(path, url), { ...more, ...headers }, body),
    logs,
  })
  return {
    ...answers({}),
    url,
    configVars,
    withSettings: (settings) =>
      answers({
        [SETTINGS_HEADER]: JSON.stringify({ ...configVars, ...TEST_WORKER_VARS, ...settings }),
      }),
    // workerd is killed (SIGKILL): nothing it held in memory is written.
    dispose,
  }
}

/** What {@link startWorkerd} runs. */
export type WorkerdOptions = {
  /** The Worker's bundle: one ES module. */
  script: string
  /** Its settings, over wrangler.toml's `[vars]` and `TEST_WORKER_VARS`. */
  vars: Record<string, string>
  /** The folder served as its assets. @defaultValue a stand-in demo */
  assets?: string | undefined
  /** Where its Durable Objects are stored, kept after it ends. @defaultValue memory only */
  persist?: string | undefined
}

/** A Worker running in workerd alone. */
export type Workerd = {
  url: URL
  /** Every line the Worker wrote to stdout and stderr so far. */
  logs(): string[]
  /** Ends workerd at once (Miniflare sends it SIGKILL): nothing it holds is flushed or said. */
  dispose(): Promise<void>
}

/**
 * Starts `script` (a bundle made here or elsewhere, such as the e2e snapshot's) in workerd,
 * configured from wrangler.toml (compatibility date and flags, the Durable Objects, the assets
 * routing), with these settings over its `[vars]`. `.dev.vars` is never read, so a developer's
 * real keys cannot reach the tests. No wrangler process runs: a start costs workerd's own.
 */
export async function startWorkerd(options: WorkerdOptions): Promise<Workerd> {
  const { workerOptions, vars: configVars } = await wranglerConfig()
  const lines: string[] = []
  const collect = (stream: Readable) => {
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter((l) => l !== '')))
  }
  const assets =
    options.assets === undefined
      ? {}
      : { assets: { ...workerOptions.assets!, directory: options.assets } }
  const mf = new Miniflare({
    ...workerOptions,
    ...assets,
    bindings: { ...configVars, ...TEST_WORKER_VARS, ...options.vars },
    // The bundle is one module, named here: given `modules: true` and a script path, Miniflare
    // would parse the whole bundle with acorn to find its imports, at every start.
    modules: [{ type: 'ESModule', path: options.script }],
    modulesRoot: dirname(options.script),
    ...(options.persist === undefined ? {} : { defaultPersistRoot: options.persist }),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      collect(stdout)
      collect(stderr)
    },
  } as MiniflareOptions)
  return { url: await mf.ready, logs: () => [...lines], dispose: () => mf.dispose() }
}

/** A Worker started by {@link startBareWorkerd}: Miniflare's handle, and how to stop it. */
export type BareWorkerd = { mf: Miniflare; dispose(): Promise<void> }

/**
 * Runs `entry` (a path, absolute or from the repository root) alone in workerd: bundled as the test
 * Worker is (kept until a file it was made from changes), with wrangler.toml's compatibility date
 * and flags and nothing else of its configuration (no bindings, no assets), reached through
 * `mf.dispatchFetch`.
 */
export async function startBareWorkerd(entry: string): Promise<BareWorkerd> {
  const [script, { workerOptions }] = await Promise.all([bundle(entry), wranglerConfig()])
  const mf = new Miniflare({
    // The bundle is one module, named here (see `startWorkerd`).
    modules: [{ type: 'ESModule', path: script }],
    modulesRoot: dirname(script),
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
  } as MiniflareOptions)
  await mf.ready
  return { mf, dispose: () => mf.dispose() }
}

/**
 * Where test requests to a Worker go: a connection of their own each, closed after the answer.
 * Kept open between requests (fetch's default), a connection left idle while a busy machine parses
 * the last answer may be closed by workerd just as the next request is sent on it, which fails
 * that request ("other side closed") for no fault of the Worker's.
 */
export const ownConnections = new Agent({ pipelining: 0 })

/**
 * The bundle of `entry` (the path of its one module), from the cache when none of the files it was
 * made from changed, else made now (and kept). Importing wrangler and bundling take seconds each,
 * which every test file starting a Worker would pay. Each build goes to a folder of its own, and
 * the record naming it is replaced whole, so files running at once never read half of one.
 */
function bundle(entry: string): Promise<string> {
  let bundled = bundling.get(entry)
  if (bundled === undefined) bundling.set(entry, (bundled = bundleOnce(entry)))
  return bundled
}

/** One test file's bundles, by entry: its Workers start from the same. */
const bundling = new Map<string, Promise<string>>()

function bundleOnce(entry: string): Promise<string> {
  const key = createHash('sha256')
    .update(JSON.stringify([entry, BUILD, esbuildVersion, RECIPE]))
    .digest('hex')
    .slice(0, 16)
  return kept(CACHE, key, async () => {
    const config = await wranglerConfig()
    const folder = await mkdtemp(join(CACHE, `${key}-`))
    const script = join(folder, 'index.js')
    const { metafile } = await build({
      ...BUILD,
      // Minified as wrangler.toml asks, keeping names as wrangler does unless told otherwise: the
      // bundle the relay runs in production, and a third of the size for Miniflare to copy and
      // workerd to compile at every start.
      minify: config.minify,
      keepNames: config.keepNames,
      // Whole names only, as wrangler matches them: esbuild tries an exact key before a shorter
      // one that is a prefix, so `thinkwire/relay` is not taken for `thinkwire` + `/relay`.
      alias: config.alias,
      entryPoints: [resolve(root, entry)],
      outfile: script,
      metafile: true,
    })
    await pruneBuilds(CACHE, key, folder)
    return {
      value: script,
      sources: [
        ...Object.keys(metafile.inputs).map((input) => resolve(root, input)),
        WRANGLER_TOML,
      ],
      made: [script],
    }
  })
}

/** wrangler's reading of wrangler.toml, from the cache as {@link bundle}'s, once per test file. */
function wranglerConfig(): Promise<WranglerConfig> {
  reading ??= kept(CACHE, `wrangler-${RECIPE}`, async () => {
    const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import('wrangler')
    const config = unstable_readConfig({ config: WRANGLER_TOML })
    const assets = join(CACHE, 'assets')
    await mkdir(assets, { recursive: true })
    // Written once: rewriting it would make every kept record look stale.
    await writeFile(join(assets, 'index.html'), '<!doctype html><title>thinkwire demo</title>', {
      flag: 'wx',
    }).catch(() => {})
    const { workerOptions } = unstable_getMiniflareWorkerOptions(config, undefined, {
      overrides: { assets: { directory: assets } },
    })
    return {
      value: {
        workerOptions: workerOptions as WorkerOptions,
        vars: config.vars as Record<string, string>,
        minify: config.minify ?? false,
        keepNames: config.keep_names ?? true,
        alias: Object.fromEntries(
          Object.entries<string>(config.alias ?? {}).map(([name, path]) => [
            name,
            resolve(root, path),
          ]),
        ),
      },
      sources: [
        WRANGLER_TOML,
        join(root, 'node_modules/wrangler/package.json'),
        join(root, 'node_modules/miniflare/package.json'),
      ],
      made: [join(assets, 'index.html')],
    }
  })
  return reading
}

let reading: Promise<WranglerConfig> | undefined

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
