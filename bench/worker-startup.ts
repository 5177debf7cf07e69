/**
 * What the Worker costs to start, beside a Worker of `thinkwire/relay` and `thinkwire/mock` alone,
 * both bundled by `wrangler deploy --dry-run --outdir` (minified per wrangler.toml):
 *
 * - gzipped size (level 9, as `bench/bundles.ts` counts);
 * - V8 CPU to compile, then link and evaluate, each bundle as an ES module in a fresh Node process
 *   (`vm.SourceTextModule`, `process.cpuUsage()` around each step), and the CPU of its first
 *   requests with no key and with one Anthropic key (`GET /v1/models`, the first `POST /v1/chat`,
 *   which loads the SDK, and a second), the provider's API replayed in the process. Workers runs
 *   the same work at startup: workerd compiles every module of a Worker when it creates the
 *   isolate, then evaluates the main module;
 * - in workerd itself, the CPU of each bundle's first import in a request (less an empty
 *   request's), on its default module registry, which deploys run and which compiles every module
 *   when it starts the isolate (so the import evaluates only), and on `new_module_registry`
 *   (experimental), which compiles a module at its first import (so the import is the whole
 *   startup); and the CPU of the first requests with one Anthropic key.
 *
 * Beside them: the Worker built with its providers' code left out (the floor that laziness could
 * reach if no SDK had to be parsed at startup) and the Worker split by esbuild into a module per
 * SDK. Each round runs every variant once, in turn; figures are medians, ratios the median of each
 * round's ratio. Run alone: `npx tsx bench/worker-startup.ts` (`... node`: without workerd);
 * `... --beside <bundle.js>` adds another build of the Worker (another checkout's, say).
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { build, type BuildOptions, type Plugin } from 'esbuild'
import { Miniflare } from 'miniflare'
import { unstable_readConfig } from 'wrangler'
import { workerdChildren } from '../test/load/run-load.ts'
import { workerAliases } from '../test/helpers/worker-aliases.ts'
import { fmt, isMain, median, middleHalf, printTable, verdict, type Row } from './harness.ts'
import { anthropicRecording, startAnthropicUpstream } from './recordings.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)
const NODE_ROUNDS = 9
const WORKERD_ROUNDS = 7
/** The goal: starting the Worker costs at most this many times the relay-and-mock Worker. */
const STARTUP_GOAL = 2
const MODEL = 'anthropic/claude-haiku-4-5'
const KEY = 'bench-key'

/** A Worker of `thinkwire/relay` and `thinkwire/mock` alone: the mock served through the relay. */
const RELAY_AND_MOCK = `
import { createRegistry } from '${root}src/index.ts'
import { createMock, mockModelIds } from '${root}src/providers/mock/index.ts'
import { createRelay } from '${root}src/relay/index.ts'

let relay
export default {
  fetch(request) {
    relay ??= createRelay({
      registry: createRegistry({ mock: { create: createMock(), models: mockModelIds } }),
    })
    return relay.fetch(request)
  },
}
`

/** What starts the line of the child's figures. */
const RESULT = 'worker-startup:'

/**
 * Runs in a fresh `node --experimental-vm-modules`: compiles one bundle, links `cloudflare:workers`
 * to a stand-in, evaluates it, then sends its default export's `fetch` the planned requests, the
 * provider's API answered by the recording. Prints the CPU of each step in ms, as JSON.
 */
const CHILD = `
import { readFileSync } from 'node:fs'
import vm from 'node:vm'
const plan = JSON.parse(process.argv[1])
const RESULT = '${RESULT}'
const cpu = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000 }
const answer = readFileSync(plan.recording)
// Node loads its fetch classes and web streams when first used (tens of ms): used once here, so
// that the requests below count the Worker's work, as in workerd, where they are built in.
const warm = new Request('https://warm.test', { method: 'POST', body: '{"a":1}', signal: new AbortController().signal })
await new Response((await warm.json()).a === 1 ? new TextEncoder().encode('x') : null).text()
await new Response(new ReadableStream({ start: (c) => c.close() }).pipeThrough(new TextDecoderStream())).text()
await crypto.subtle.digest('SHA-256', new Uint8Array(1))
globalThis.fetch = async () =>
  new Response(answer, { headers: { 'content-type': 'text/event-stream' } })
const source = readFileSync(plan.file, 'utf8')
let start = cpu()
const module = new vm.SourceTextModule(source, { identifier: plan.file })
const compile = cpu() - start
start = cpu()
await module.link(async (specifier) => {
  if (specifier !== 'cloudflare:workers') throw new Error('unexpected import ' + specifier)
  const names = ['DurableObject', 'WorkerEntrypoint']
  return new vm.SyntheticModule(names, function () {
    for (const name of names) this.setExport(name, class {})
  })
})
await module.evaluate()
const evaluate = cpu() - start
const worker = module.namespace.default
const ctx = { waitUntil() {}, passThroughOnException() {} }
const requests = []
for (const { path, body } of plan.requests) {
  const init = body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body }
  start = cpu()
  const response = await worker.fetch(new Request('https://relay.test' + path, init), plan.env, ctx)
  const text = await response.text()
  requests.push(cpu() - start)
  if (response.status !== 200) throw new Error(path + ' answered ' + response.status + ': ' + text)
}
process.stdout.write('\\n' + RESULT + JSON.stringify({ compile, evaluate, requests }) + '\\n')
process.exit(0)
`

/** One request a variant's first requests send, in order. */
type Planned = { name: string; path: string; body?: string | undefined }

const MODELS: Planned = { name: 'GET /v1/models', path: '/v1/models' }
const chat = (name: string): Planned => ({
  name,
  path: '/v1/chat',
  body: JSON.stringify({
    model: MODEL,
    conversation: { turns: [{ role: 'user', content: 'Hi' }] },
  }),
})

/** A bundle measured in Node, with the settings and requests of its run. */
type NodeVariant = {
  name: string
  file: string
  env: Record<string, string>
  requests: readonly Planned[]
}

type NodeSample = { compile: number; evaluate: number; requests: number[] }

/** The esbuild options wrangler and `test/worker/start-worker.ts` bundle a Worker with. */
const WORKER_BUILD: BuildOptions = {
  entryPoints: [join(root, 'worker/index.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  external: ['cloudflare:*'],
  // The names the Worker imports thinkwire by, to the source files (wrangler.toml's [alias]).
  alias: workerAliases(),
  logLevel: 'error',
}

/** Leaves every provider entry the Worker imports when a provider first streams out of the build. */
const withoutProviders: Plugin = {
  name: 'without-providers',
  setup(esbuild) {
    // Before the alias: the Worker imports each by its public name (`thinkwire/anthropic`).
    esbuild.onResolve({ filter: /^thinkwire\/[a-z-]+$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
    )
  },
}

/** `wrangler deploy --dry-run --outdir` with `config`; returns the path of the bundled script. */
async function wranglerBundle(dir: string, config: string, assets: string): Promise<string> {
  const out = join(dir, 'out')
  const wrangler = join(root, 'node_modules/wrangler/bin/wrangler.js')
  await run(
    process.execPath,
    [wrangler, 'deploy', '--dry-run', '--config', config, '--outdir', out, '--assets', assets],
    {
      cwd: root,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' },
      timeout: 120_000,
    },
  )
  const script = (await readdir(out)).find((file) => file.endsWith('.js'))
  if (script === undefined) throw new Error(`wrangler wrote no script to ${out}`)
  return join(out, script)
}

/** The bundles measured: the Worker, relay and mock alone, the floor, and the split Worker. */
type Bundles = { worker: string; relayAndMock: string; floor: string; split: string[] }

async function buildBundles(dir: string): Promise<Bundles> {
  // An empty assets folder stands in for the demo build: assets are not part of the script.
  const assets = join(dir, 'assets')
  await mkdir(assets)
  const worker = await wranglerBundle(join(dir, 'worker'), join(root, 'wrangler.toml'), assets)
  const alone = join(dir, 'relay-and-mock')
  await mkdir(alone)
  await writeFile(join(alone, 'entry.js'), RELAY_AND_MOCK)
  const { compatibility_date: date, compatibility_flags: flags } = unstable_readConfig({
    config: join(root, 'wrangler.toml'),
  })
  const toml = [
    'name = "relay-and-mock"',
    'main = "entry.js"',
    `compatibility_date = "${date}"`,
    `compatibility_flags = ${JSON.stringify(flags)}`,
    'minify = true',
  ].join('\n')
  await writeFile(join(alone, 'wrangler.toml'), toml)
  const relayAndMock = await wranglerBundle(alone, join(alone, 'wrangler.toml'), assets)
  const floor = join(dir, 'floor/index.js')
  await build({ ...WORKER_BUILD, outfile: floor, plugins: [withoutProviders] })
  const splitDir = join(dir, 'split')
  await build({ ...WORKER_BUILD, outdir: splitDir, splitting: true })
  const split = (await readdir(splitDir)).filter((file) => file.endsWith('.js'))
  return {
    worker,
    relayAndMock,
    floor,
    split: ['index.js', ...split.filter((f) => f !== 'index.js')].map((f) => join(splitDir, f)),
  }
}

/** The Worker's settings from wrangler.toml, open, without rate limits (no Durable Object). */
function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  const { vars } = unstable_readConfig({ config: join(root, 'wrangler.toml') })
  const strings = Object.fromEntries(
    Object.entries(vars).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  )
  return {
    ...strings,
    ALLOW_ANONYMOUS: 'true',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
    MOCK_DELAY_MS: '0',
    ...extra,
  }
}

async function nodeSample(variant: NodeVariant, recording: string): Promise<NodeSample> {
  const plan = { file: variant.file, env: variant.env, requests: variant.requests, recording }
  const flags = ['--experimental-vm-modules', '--no-warnings', '--input-type=module']
  const { stdout } = await run(process.execPath, [...flags, '-e', CHILD, JSON.stringify(plan)], {
    timeout: 60_000,
  })
  // The Worker logs each request on stdout too.
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT))
  if (line === undefined) throw new Error(`no result from ${variant.name}: ${stdout.slice(-500)}`)
  return JSON.parse(line.slice(RESULT.length)) as NodeSample
}

/** Every variant once a round, in an order that turns each round; samples in variant order. */
async function rounds<T>(count: number, variants: number, sample: (i: number) => Promise<T>) {
  const samples: T[][] = Array.from({ length: variants }, () => [])
  for (let round = 0; round < count; round++) {
    for (let k = 0; k < variants; k++) {
      const i = (k + round) % variants
      samples[i]!.push(await sample(i))
    }
  }
  return samples
}

const ms = (values: number[]) => `${fmt(median(values), 1)} ms`
const spread = (values: number[]) => `middle half ${middleHalf(values, 1)} ms`

/** Each round's ratio of `a` to `b`, the median of them. */
const ratioOf = (a: number[], b: number[]) => median(a.map((value, i) => value / b[i]!))

async function nodeRows(bundles: Bundles, beside: string | undefined): Promise<Row[]> {
  const section = `worker startup in V8 (Node ${process.version}: compile, then link + evaluate; CPU, median of ${NODE_ROUNDS} fresh processes)`
  const keyed = workerEnv({ ANTHROPIC_API_KEY: KEY })
  const withKey = [MODELS, chat('first POST /v1/chat'), chat('second POST /v1/chat')]
  const variants: NodeVariant[] = [
    { name: 'relay + mock alone', file: bundles.relayAndMock, env: {}, requests: [MODELS] },
    { name: 'Worker, no key', file: bundles.worker, env: workerEnv(), requests: [MODELS] },
    { name: 'Worker, ANTHROPIC_API_KEY', file: bundles.worker, env: keyed, requests: withKey },
    { name: "Worker without its providers' code", file: bundles.floor, env: {}, requests: [] },
  ]
  if (beside !== undefined) {
    variants.push({ name: `Worker of ${beside}`, file: beside, env: keyed, requests: withKey })
  }
  const recording = join(tmpdir(), `thinkwire-bench-startup-${process.pid}.sse`)
  await writeFile(recording, anthropicRecording(5, 20).bytes)
  try {
    const samples = await rounds(NODE_ROUNDS, variants.length, (i) =>
      nodeSample(variants[i]!, recording),
    )
    const startup = samples.map((list) => list.map((s) => s.compile + s.evaluate))
    const rows: Row[] = []
    variants.forEach((variant, i) => {
      const list = samples[i]!
      const compile = list.map((s) => s.compile)
      const evaluate = list.map((s) => s.evaluate)
      const ratio = ratioOf(startup[i]!, startup[0]!)
      rows.push({
        section,
        name: `${variant.name}: startup`,
        value: ms(startup[i]!),
        note: `compile ${ms(compile)} + evaluate ${ms(evaluate)}; ${spread(startup[i]!)}; ${i === 0 ? 'the reference' : `${verdict(ratio, STARTUP_GOAL)} relay + mock (goal ≤ ${STARTUP_GOAL}x)`}`,
      })
      variant.requests.forEach((request, r) => {
        const values = list.map((s) => s.requests[r]!)
        rows.push({
          section,
          name: `${variant.name}: ${request.name}`,
          value: ms(values),
          note: spread(values),
        })
      })
    })
    return rows
  } finally {
    await rm(recording, { force: true })
  }
}

/** A module of a Worker as workerd gets it. */
type Module = { path: string; contents: string }

/** A bundle measured in workerd: its modules under `/<key>/`, the main one `index.js`. */
type WorkerdVariant = { name: string; key: string; modules: Module[]; chats: boolean }

/**
 * A Worker whose `GET /<key>` imports the bundle `<key>/index.js`, the first time at a cost that
 * is what workerd spends on that bundle when it starts an isolate, read here around one request;
 * `GET /nothing` imports nothing, the request's own cost.
 */
const IMPORTER = `export default {
  async fetch(request) {
    const key = new URL(request.url).pathname.slice(1)
    if (key !== 'nothing') await import('./' + key + '/index.js')
    return new Response('ok')
  },
}`

/**
 * The CPU time of a process's main thread in ms (its schedstat: ns on a CPU). workerd compiles and
 * evaluates Workers and runs their requests there; its other threads (I/O, V8's helpers) only
 * add noise to these figures.
 */
function mainThreadMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
}

/** Starts `modules` in workerd with the Worker's compatibility settings plus `flags`. */
async function startWorkerd(modules: Module[], bindings: Record<string, string>, flags: string[]) {
  const before = workerdChildren()
  const config = unstable_readConfig({ config: join(root, 'wrangler.toml') })
  const mf = new Miniflare({
    modules: modules.map(({ path, contents }) => ({ type: 'ESModule', path, contents })),
    modulesRoot: '/',
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: [...config.compatibility_flags, ...flags],
    bindings,
    host: '127.0.0.1',
    port: 0,
  })
  const url = await mf.ready
  const pid = workerdChildren().find((child) => !before.includes(child))
  if (pid === undefined) {
    await mf.dispose()
    throw new Error('found no workerd process')
  }
  return { mf, url, pid }
}

/** Sends one request, reads it to its end; returns the CPU workerd spent on it. */
async function spent(url: URL, pid: number, { path, body }: Planned): Promise<number> {
  const before = mainThreadMs(pid)
  const init =
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body }
  const response = await fetch(new URL(path, url), init)
  await response.text()
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
  return mainThreadMs(pid) - before
}

/**
 * What each bundle costs workerd, on each module registry: the default one (what deploys run)
 * compiles every module of a Worker when it starts the isolate, so a first import only evaluates;
 * `new_module_registry` (experimental) compiles a module when it is first imported, so a first
 * import is the bundle's whole startup, compile and evaluate.
 */
async function startupInWorkerd(variants: WorkerdVariant[]): Promise<Row[]> {
  const modules = [
    { path: '/importer.js', contents: IMPORTER },
    ...variants.flatMap((v) => v.modules),
  ]
  // Only the whole startup is held to the goal: evaluation alone is a few ms, within the noise.
  const registries = [
    {
      flags: ['new_module_registry'],
      what: 'compile + evaluate, as new_module_registry loads a module',
      goal: true,
    },
    {
      flags: [],
      what: 'evaluate only: the default registry compiles every module at startup',
      goal: false,
    },
  ]
  const rows: Row[] = []
  for (const { flags, what, goal } of registries) {
    const section = `worker startup in workerd: ${what} (CPU of the bundle's first import in a request, less an empty one; median of ${WORKERD_ROUNDS} processes)`
    const samples = variants.map(() => [] as number[])
    for (let round = 0; round < WORKERD_ROUNDS; round++) {
      const { mf, url, pid } = await startWorkerd(modules, {}, flags)
      try {
        for (let k = 0; k < variants.length; k++) {
          const i = (k + round) % variants.length
          const empty = await spent(url, pid, { name: 'nothing', path: '/nothing' })
          samples[i]!.push(
            (await spent(url, pid, { name: '', path: `/${variants[i]!.key}` })) - empty,
          )
        }
      } finally {
        await mf.dispose()
      }
    }
    variants.forEach((variant, i) => {
      const ratio = ratioOf(samples[i]!, samples[0]!)
      const versus = i === 0 ? '; the reference' : `; ${verdict(ratio, STARTUP_GOAL)} relay + mock`
      rows.push({
        section,
        name: variant.name,
        value: ms(samples[i]!),
        note: `${spread(samples[i]!)}${goal ? versus : ''}`,
      })
    })
  }
  return rows
}

/** The Worker's first requests in workerd, one Anthropic key set, its API a stand-in on loopback. */
async function firstRequestsInWorkerd(variants: WorkerdVariant[]): Promise<Row[]> {
  const section = `first requests in workerd, ANTHROPIC_API_KEY set (CPU of its main thread around each, its HTTP request included; median of ${WORKERD_ROUNDS} processes)`
  const upstream = await startAnthropicUpstream({}, anthropicRecording(5, 20))
  const bindings = workerEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: upstream.url })
  const requests = [MODELS, chat('first POST /v1/chat'), chat('second POST /v1/chat')]
  try {
    const samples = await rounds(WORKERD_ROUNDS, variants.length, async (i) => {
      // The bundle's own modules, its main module first (workerd's entry).
      const prefix = `/${variants[i]!.key}/`
      const own = variants[i]!.modules.map((m) => ({ ...m, path: m.path.slice(prefix.length - 1) }))
      const { mf, url, pid } = await startWorkerd(own, bindings, [])
      try {
        const costs: number[] = []
        for (const request of requests) costs.push(await spent(url, pid, request))
        return costs
      } finally {
        await mf.dispose()
      }
    })
    return variants.flatMap((variant, i) =>
      requests.map((request, r) => {
        const values = samples[i]!.map((costs) => costs[r]!)
        return {
          section,
          name: `${variant.name}: ${request.name}`,
          value: ms(values),
          note: spread(values),
        }
      }),
    )
  } finally {
    await upstream.close()
  }
}

async function workerdRows(bundles: Bundles, beside: string | undefined): Promise<Row[]> {
  const bundle = async (key: string, files: string[], dir = dirname(files[0]!)) =>
    Promise.all(
      files.map(async (file) => ({
        // The main module first, named index.js, the others by their path beside it.
        path: `/${key}/${file === files[0] ? 'index.js' : relative(dir, file)}`,
        contents: await readFile(file, 'utf8'),
      })),
    )
  const variants: WorkerdVariant[] = [
    {
      name: 'relay + mock alone',
      key: 'relay-and-mock',
      modules: await bundle('relay-and-mock', [bundles.relayAndMock]),
      chats: false,
    },
    {
      name: 'Worker',
      key: 'worker',
      modules: await bundle('worker', [bundles.worker]),
      chats: true,
    },
    {
      name: 'Worker split into a module per SDK (esbuild splitting)',
      key: 'split',
      modules: await bundle('split', bundles.split),
      chats: true,
    },
    {
      name: "Worker without its providers' code",
      key: 'floor',
      modules: await bundle('floor', [bundles.floor]),
      chats: false,
    },
  ]
  if (beside !== undefined) {
    variants.push({
      name: `Worker of ${beside}`,
      key: 'beside',
      modules: await bundle('beside', [beside]),
      chats: true,
    })
  }
  return [
    ...(await startupInWorkerd(variants)),
    ...(await firstRequestsInWorkerd(variants.filter((variant) => variant.chats))),
  ]
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`

async function sizeRows(bundles: Bundles, beside: string | undefined): Promise<Row[]> {
  const section = 'worker bundle (wrangler deploy --dry-run, minified; gzip -9)'
  const files: [string, string][] = [
    ['Worker', bundles.worker],
    ['relay + mock alone', bundles.relayAndMock],
    ["Worker without its providers' code", bundles.floor],
  ]
  if (beside !== undefined) files.push([`Worker of ${beside}`, beside])
  const rows: Row[] = []
  for (const [name, file] of files) {
    const code = await readFile(file)
    const gzipped = gzipSync(code, { level: 9 }).byteLength
    rows.push({ section, name, value: kib(gzipped), note: `${kib(code.byteLength)} minified` })
  }
  return rows
}

/**
 * The startup rows. `only`: `'node'` skips workerd (about a minute on a 2-core machine);
 * `beside`: a bundle of another build of the Worker, measured in the same rounds.
 */
export async function benchWorkerStartup(
  options: { only?: 'node' | undefined; beside?: string | undefined } = {},
): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-bench-startup-'))
  try {
    const bundles = await buildBundles(dir)
    const rows = [
      ...(await sizeRows(bundles, options.beside)),
      ...(await nodeRows(bundles, options.beside)),
    ]
    if (options.only !== 'node') rows.push(...(await workerdRows(bundles, options.beside)))
    return rows
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2)
  const at = args.indexOf('--beside')
  const beside = at === -1 ? undefined : args[at + 1]
  printTable(await benchWorkerStartup({ only: args.includes('node') ? 'node' : undefined, beside }))
}
