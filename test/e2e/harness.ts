import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, onTestFailed } from 'vitest'
import { CHROMIUM, launchChromium } from '../helpers/chromium.ts'
import { startWranglerDev, type WranglerDev } from '../wrangler-dev.ts'
import { startWorkerd } from '../worker/start-worker.ts'
import { startGate, type Gate } from '../helpers/gate.ts'

// The built demo, served by the real Worker under `wrangler dev` (as `npm start` does, from
// snapshots of both), driven in headless Chromium.
export const root = resolve(import.meta.dirname, '../..')
const wranglerBin = join(root, 'node_modules/.bin/wrangler')
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: '1',
}

export const DESKTOP = { width: 1100, height: 820 }
export const PHONE = { width: 390, height: 844 }
export const SIZES = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const

/**
 * Snapshots of the built demo, and of two Workers bundled as a deploy bundles them: the deployed
 * entry (`worker/index.ts`), and the same Worker with gated mock models
 * (`test/worker/fixtures/gated-worker.ts`). Shared by every e2e file of a run, and kept for later
 * runs while the sources they are built from do not change.
 */
export type Snapshot = {
  dir: string
  assets: string
  /** The scripts of the two Workers. */
  worker: string
  gated: string
}

/** The Worker whose mock models are gated. */
const GATED_ENTRY = 'test/worker/fixtures/gated-worker.ts'
/** What a snapshot is built from: its key is a hash of these files. */
const SOURCES = ['demo', 'src', 'worker']
const SOURCE_FILES = [
  GATED_ENTRY,
  // What the gated entry imports from beside it.
  'test/worker/fixtures/gate-pace.ts',
  'wrangler.toml',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
]
/** Where snapshots are kept, one folder per key. */
const BUILDS = join(tmpdir(), 'thinkwire-e2e-builds')
/** Snapshots kept besides the one in use (and those used within the hour). */
const KEPT_BUILDS = 2

/**
 * The snapshot of the sources as they are now: built once per set of sources, by the first e2e
 * file that asks (the others wait for it), and reused by later runs. wrangler dev reloads (and
 * drops open streams) when its sources or assets change, and this tree may be edited or rebuilt
 * while the tests run: the Workers run the snapshot, never the tree.
 */
export async function buildSnapshot(): Promise<Snapshot> {
  mkdirSync(BUILDS, { recursive: true })
  const dir = join(BUILDS, sourcesKey())
  const snapshot = {
    dir,
    assets: join(dir, 'assets'),
    worker: join(dir, 'worker/index.js'),
    gated: join(dir, 'gated/gated-worker.js'),
  }
  const complete = join(dir, 'complete')
  const lock = `${dir}.lock`
  const deadline = Date.now() + BUILD_MS
  for (;;) {
    if (existsSync(complete)) {
      // Marked as in use, so that no run prunes it while this one's Workers serve it.
      const now = new Date()
      utimesSync(dir, now, now)
      return snapshot
    }
    try {
      mkdirSync(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    // Another file (or run) builds it, and touches the lock while it does: a lock left untouched
    // is one whose process is gone, and is taken over.
    if (Date.now() - mtimeOf(lock) > STALE_LOCK_MS) {
      rmSync(lock, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) {
      throw new Error(`the e2e snapshot ${dir} was still being built after ${BUILD_MS} ms`)
    }
    await new Promise((wait) => setTimeout(wait, 250))
  }
  const heartbeat = setInterval(() => {
    const now = new Date()
    try {
      utimesSync(lock, now, now)
    } catch {
      // taken over: this build goes on, into a folder of its own
    }
  }, STALE_LOCK_MS / 5)
  try {
    if (!existsSync(complete)) {
      // A folder of this process's own: steps of a build whose process died may still be writing.
      const partial = `${dir}.${process.pid}.partial`
      try {
        await build(partial)
        if (!existsSync(complete)) {
          rmSync(dir, { recursive: true, force: true })
          renameSync(partial, dir)
          writeFileSync(complete, '')
        }
      } finally {
        rmSync(partial, { recursive: true, force: true })
      }
      pruneBuilds(dir)
    }
  } finally {
    clearInterval(heartbeat)
    rmSync(lock, { recursive: true, force: true })
  }
  return snapshot
}

/** When `path` was last changed, or 0 when it is gone. */
function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

/** Builds the demo, then both Workers at once, into `dir`. */
async function build(dir: string): Promise<void> {
  const assets = join(dir, 'assets')
  await run('npm', ['run', 'build:demo', '--', '--outDir', assets, '--emptyOutDir'], {
    // Vitest sets NODE_ENV=test, which would give a development build of React.
    ...env,
    NODE_ENV: 'production',
  })
  const bundle = (outdir: string, ...entry: string[]) =>
    run(wranglerBin, ['deploy', '--dry-run', '--outdir', outdir, '--assets', assets, ...entry], env)
  await Promise.all([bundle(join(dir, 'worker')), bundle(join(dir, 'gated'), GATED_ENTRY)])
}

/**
 * Runs a build step in a process group of its own. One that has not ended within `STEP_MS` is
 * killed with everything it started (npm and wrangler each run the real tool as a child, which
 * would keep the output open), and fails naming the step, well before the setup's own timeout.
 */
function run(file: string, args: string[], stepEnv: NodeJS.ProcessEnv): Promise<void> {
  const command = [file, ...args].join(' ')
  return new Promise((done, reject) => {
    const child = spawn(file, args, {
      cwd: root,
      env: stepEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    const output: string[] = []
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()))
    let late = false
    const timer = setTimeout(() => {
      late = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }, STEP_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new Error(`${command} did not start: ${error.message}`, { cause: error }))
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) return done()
      const why = late ? `did not end within ${STEP_MS} ms` : `failed (${code ?? signal})`
      reject(new Error(`${command} ${why}:\n${output.join('').slice(-4000)}`))
    })
  })
}

/** A hash of every source file a snapshot is built from. */
function sourcesKey(): string {
  const hash = createHash('sha256')
  const add = (path: string) => {
    hash.update(path)
    hash.update(readFileSync(join(root, path)))
  }
  for (const folder of SOURCES) {
    const files = readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      .filter((path) => !/(^|\/)(dist|node_modules)\//.test(path))
      .toSorted()
    for (const file of files) add(file)
  }
  for (const file of SOURCE_FILES) add(file)
  return hash.digest('hex').slice(0, 16)
}

/**
 * Removes all but the {@link KEPT_BUILDS} snapshots last used besides `current`, sparing any used
 * within the hour (runs of other checkouts of the repository share the folder, and a snapshot
 * they serve must stay), and what builds whose process died left behind (an hour old: no build
 * takes that long).
 */
function pruneBuilds(current: string): void {
  const paths = readdirSync(BUILDS).map((name) => join(BUILDS, name))
  const hourOld = (path: string) => Date.now() - mtimeOf(path) > 3_600_000
  const others = paths
    .filter((path) => path !== current && existsSync(join(path, 'complete')))
    .toSorted((a, b) => mtimeOf(b) - mtimeOf(a))
  const orphans = paths.filter((path) => path.endsWith('.partial') && hourOld(path))
  for (const stale of [...others.slice(KEPT_BUILDS).filter(hourOld), ...orphans]) {
    rmSync(stale, { recursive: true, force: true })
  }
}

/**
 * A Worker serving the snapshot with its own settings: under `wrangler dev` ({@link startWorker}),
 * or in workerd alone ({@link startInWorkerd}).
 */
export type Worker = WranglerDev

/** Which Worker of the snapshot: the deployed one, or the one whose mock models are gated. */
export type Entry = 'worker' | 'gated'

/** The tests send more than a person would: no rate limits unless a test sets them. */
const NO_RATE_LIMITS = { RATE_LIMIT_REQUESTS_PER_MINUTE: '0', RATE_LIMIT_TOKENS_PER_MINUTE: '0' }

/**
 * Starts `wrangler dev` on the snapshot's `entry` with these settings (`--var NAME:value`), in a
 * state folder of its own (removed when it stops), and waits until it answers. Rate limits are off
 * unless given: the tests send more than a person would. As every test Worker, it is open to anyone
 * (`ALLOW_ANONYMOUS`) unless `vars` say otherwise (see `startWranglerDev`).
 */
export async function startWorker(
  snapshot: Snapshot,
  vars: Readonly<Record<string, string>>,
  options: { entry?: Entry | undefined } = {},
): Promise<Worker> {
  const persist = mkdtempSync(join(tmpdir(), 'thinkwire-e2e-state-'))
  const removeState = () => rmSync(persist, { recursive: true, force: true })
  const starting = startWranglerDev({
    args: [
      '--config',
      'wrangler.toml',
      snapshot[options.entry ?? 'worker'],
      '--no-bundle',
      '--assets',
      snapshot.assets,
      '--persist-to',
      persist,
    ],
    vars: { ...NO_RATE_LIMITS, ...vars },
  })
  try {
    // Two starts of 60 s at most (see `startWranglerDev`), and the stops between them.
    const worker = await within(`wrangler dev (${options.entry ?? 'worker'})`, START_MS, starting)
    return {
      ...worker,
      async stop() {
        await worker.stop()
        removeState()
      },
      async kill() {
        await worker.kill()
        removeState()
      },
    }
  } catch (error) {
    // One that starts after all is stopped then.
    void starting
      .then(
        (late) => late.stop(),
        () => {},
      )
      .finally(removeState)
    throw error
  }
}

/**
 * Starts the snapshot's `entry` in workerd alone, as Miniflare runs it under `wrangler dev` but
 * without wrangler's process, its proxy Worker or its build watcher (see `startWorkerd`): a start
 * costs about a third of the CPU. With the settings and rate limits of {@link startWorker}, on the
 * state folder `persist` (kept when it stops), else in memory. `stop` and `kill` both end workerd
 * at once (SIGKILL), as a crash would: for a Worker that a test kills and starts again.
 */
export async function startInWorkerd(
  snapshot: Snapshot,
  vars: Readonly<Record<string, string>>,
  options: { entry?: Entry | undefined; persist?: string | undefined } = {},
): Promise<Worker> {
  const entry = options.entry ?? 'worker'
  const workerd = await within(
    `workerd (${entry})`,
    START_MS,
    startWorkerd({
      script: snapshot[entry],
      assets: snapshot.assets,
      persist: options.persist,
      vars: { ...NO_RATE_LIMITS, ...vars },
    }),
  )
  return {
    base: workerd.url.origin,
    get output() {
      return workerd.logs().map((line) => `${line}\n`)
    },
    stop: workerd.dispose,
    kill: workerd.dispose,
  }
}

/**
 * `promise`, or a failure naming `what` once `ms` have passed: a step that hangs says which, well
 * before the hook's own timeout (which names nothing).
 */
export function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** The longest `startWorker` may take. */
const START_MS = 150_000

/** A TCP link in front of a Worker whose connections a test can cut, as a dropped network does. */
export type Link = {
  /** The Worker's address through the link. */
  base: string
  /** Resets every open connection, and refuses new ones until {@link Link.mend}. */
  cut(): void
  mend(): void
  /** New connections go to `worker` from now on (one started in place of the first). */
  to(worker: Worker): void
  close(): Promise<void>
}

/**
 * Opens a {@link Link} to the Worker. Chromium's offline emulation fails new requests but may let a
 * response already streaming go on; cutting the link ends it for sure.
 */
export async function link(worker: Worker): Promise<Link> {
  let target = new URL(worker.base)
  const sockets = new Set<Socket>()
  let cut = false
  const server = createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = connect(Number(target.port), target.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {})
    }
    // A Worker gone (refused, killed) ends the page's connection too, as a real one would end.
    upstream.on('close', () => client.destroy())
    client.on('close', () => upstream.destroy())
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const cutAll = () => {
    cut = true
    for (const socket of sockets) socket.destroy()
  }
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: cutAll,
    mend: () => void (cut = false),
    to: (next) => void (target = new URL(next.base)),
    close: () =>
      new Promise((closed) => {
        cutAll()
        server.close(() => closed())
      }),
  }
}

/**
 * How long a test file's setup may take: the snapshot built or waited for (20-40 s on this busy
 * 2-core machine, beside other test files; nothing when a run before built it; at most
 * `BUILD_MS`), then `wrangler dev` started, within 60 s and once more when the first start never
 * answers (see `startWranglerDev`). Each step fails by itself, naming what hung, within this bound.
 */
export const SETUP_MS = 300_000

/** The most one step of a setup may take (a build, Chromium's launch): seconds, when it works. */
const STEP_MS = 60_000

/** The longest a file waits for the snapshot another file builds: its steps, one after another. */
const BUILD_MS = 2 * STEP_MS + 10_000

/** A build's lock untouched this long belongs to a process that is gone. */
const STALE_LOCK_MS = 15_000

/** What a test file drives: the demo under `wrangler dev`, its mock models' gate, a Chromium. */
export type DemoServer = {
  readonly worker: Worker
  readonly browser: Browser
  readonly gate: Gate
  /**
   * Starts another gated Worker of the same snapshot, settings and gate, in workerd alone (see
   * {@link startInWorkerd}), on the state folder `persist` (kept when it stops: a Worker started on
   * it next finds what this one stored).
   */
  startAnother(persist: string): Promise<Worker>
}

/**
 * Serves the snapshot of the demo and the gated Worker with these settings, for the test file that
 * calls it (before its tests; stopped after them), with `chromium` (see {@link chromiumForFile}).
 * The Worker's only mock models are gated (`MOCK_MODELS=off` leaves out the settings' own); the
 * gate is open again after each test, so no answer a test left waiting holds up the next.
 */
export function serveDemo(
  chromium: () => Promise<Browser>,
  vars: Readonly<Record<string, string>> = {},
): DemoServer {
  const server = {} as {
    worker: Worker
    browser: Browser
    gate: Gate
    startAnother(persist: string): Promise<Worker>
  }
  beforeAll(async () => {
    const [snapshot, gate] = await Promise.all([buildSnapshot(), startGate()])
    server.gate = gate
    const gated = { ...vars, MOCK_MODELS: 'off', MOCK_GATE_URL: gate.url }
    server.worker = await startWorker(snapshot, gated, { entry: 'gated' })
    server.startAnother = (persist) => startInWorkerd(snapshot, gated, { entry: 'gated', persist })
    server.browser = await chromium()
  }, SETUP_MS)
  afterEach(() => server.gate?.open())
  afterAll(async () => {
    await server.worker?.stop()
    await server.gate?.close()
  })
  return server
}

/**
 * One Chromium for every suite of the test file that calls this (at its top level): launched when
 * the file starts, while the first suite's setup builds or starts what it needs, and closed when
 * the file ends. The suites get it from the function returned, which fails, saying so, if it did not
 * start within `STEP_MS`. A launch costs a second or more of CPU, and the pages one suite gives back
 * (see {@link release}) serve the next.
 */
export function chromiumForFile(): () => Promise<Browser> {
  let launching: Promise<Browser> | undefined
  beforeAll(() => {
    launching = launchBrowser()
    // Awaited by the suites, which report a failed launch.
    launching.catch(() => {})
  })
  afterAll(async () => {
    const browser = await launching?.catch(() => undefined)
    await browser?.close()
  })
  return () => {
    if (launching === undefined)
      throw new Error('chromiumForFile() was not called at the top level')
    return within('Chromium to start', STEP_MS, launching)
  }
}

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The demo test drives Chromium at ${CHROMIUM}, which is missing: install it with ` +
        '`apt-get install -y chromium` (.ci/run does this when it is missing).',
    )
  }
  return launchChromium({ timeout: STEP_MS })
}

/** A page on a fresh profile (its own localStorage), with what failed recorded. */
export type DemoPage = Page & {
  /** Requests that failed, as `url errorText` (a finished answer must not be one). */
  failedRequests: string[]
  /** The URL of every WebSocket the page opened (a conversation's follower holds one). */
  sockets: string[]
}

/** Where {@link openPage} opens the demo, and what it reports of a failing test. */
export type PageOptions = {
  /** @defaultValue {@link DESKTOP} */
  viewport?: { width: number; height: number } | undefined
  /** `/?transport=stateless`, `/?c=<id>`. @defaultValue `'/'` */
  path?: string | undefined
  /** The gate of the Worker's mock models, whose log a failing test reports. */
  gate?: Gate | undefined
}

/**
 * Opens the demo in a new browser context. On a failing test, the page's screenshot, the
 * browser's console, the Worker's output and what passed the gate are kept.
 */
export async function openPage(
  browser: Browser,
  worker: Worker,
  { viewport = DESKTOP, path = '/', gate }: PageOptions = {},
): Promise<DemoPage> {
  const blank = await freshPage(browser)
  await blank.setViewportSize(viewport)
  const page = Object.assign(blank, { failedRequests: [] as string[], sockets: [] as string[] })
  // A step that never comes fails by itself, with its name, well before the test's own timeout.
  page.setDefaultTimeout(45_000)
  const browserLog: string[] = []
  page.on('console', (message) => browserLog.push(`[console.${message.type()}] ${message.text()}`))
  page.on('pageerror', (error) => browserLog.push(`[page error] ${error.message}`))
  // Requests not yet answered: a navigation that never loads names what it waits on.
  const pending = new Set<string>()
  page.on('request', (request) => pending.add(request.url()))
  page.on('requestfinished', (request) => pending.delete(request.url()))
  page.on('websocket', (socket) => page.sockets.push(socket.url()))
  page.on('requestfailed', (request) => {
    pending.delete(request.url())
    const failure = `${request.url()} ${request.failure()?.errorText}`
    page.failedRequests.push(failure)
    browserLog.push(`[request failed] ${failure}`)
  })
  onTestFailed(async () => {
    mkdirSync(join(root, 'test-results'), { recursive: true })
    const name = `test-results/e2e-failure-${Date.now()}.png`
    await page.screenshot({ path: join(root, name) }).catch(() => {})
    console.error(
      `screenshot: ${name}\nbrowser:\n${browserLog.join('\n')}\nrequests still pending:\n${[...pending].join('\n')}\nrelay:\n${worker.output.join('').slice(-4000)}` +
        (gate === undefined ? '' : `\ngate:\n${gate.log()}`),
    )
  })
  const url = new URL(path, worker.base).href
  const origins = visited.get(page) ?? new Set<string>()
  origins.add(new URL(url).origin)
  visited.set(page, origins)
  try {
    await page.goto(url, { timeout: FIRST_LOAD_MS })
  } catch (error) {
    if (!(error instanceof Error && error.name === 'TimeoutError')) throw error
    // wrangler dev now and then leaves an asset's body unfinished (the request stays pending and
    // the page never reaches `load`; seen in CI with the demo's stylesheet). One more navigation,
    // then the step fails as any other would. What the abandoned one cancelled is not the test's.
    browserLog.push(`[navigation retried] still pending: ${[...pending].join(', ')}`)
    await page.goto(url)
    page.failedRequests.length = 0
  }
  return page
}

/** A blank page made ahead for each browser (see {@link freshPage}). */
const spares = new WeakMap<Browser, Promise<Page | undefined>>()

/** Pages given back by {@link release}, blank and reset, for the next test of each browser. */
const pool = new WeakMap<Browser, Page[]>()

/** Pages a test holds: only these go back to the pool, once. */
const leased = new WeakSet<Page>()

/**
 * A blank page with a profile of its own: one a test gave back ({@link release}), else one made
 * ahead while the test before ran, in a new context (Chromium takes a second or more of CPU to
 * start a context's renderer, most tests open several, and a page given back costs a tenth of
 * that to reuse). The next spare is started at once.
 */
async function freshPage(browser: Browser): Promise<Page> {
  const reused = pool.get(browser)?.pop()
  if (reused !== undefined) {
    leased.add(reused)
    return reused
  }
  const spare = spares.get(browser)
  const ahead = browser
    .newContext()
    .then((context) => context.newPage())
    // The browser closed before it was made: nobody takes it.
    .catch(() => undefined)
  spares.set(browser, ahead)
  const page = (await spare) ?? (await (await browser.newContext()).newPage())
  leased.add(page)
  return page
}

/** Events a test may listen to on a page (the harness's own logging among them). */
const PAGE_EVENTS = [
  'console',
  'pageerror',
  'request',
  'requestfinished',
  'requestfailed',
  'response',
  'dialog',
  'framenavigated',
  'websocket',
] as const

/**
 * Gives a page back when its test is done with it: as a new profile would be, it has no routes,
 * listeners, cookies, permissions or localStorage (the demo keeps nothing else), is online and
 * blank. A page that cannot be made so (another page in its context, storage of more than one
 * origin, a step that fails) is closed with its context instead. A page given back twice, or one
 * the test closed, is let be.
 */
export async function release(page: Page): Promise<void> {
  if (!leased.has(page)) return
  leased.delete(page)
  const context = page.context()
  const origins = visited.get(page) ?? new Set()
  const browser = context.browser()
  if (page.isClosed() || context.pages().length !== 1 || origins.size > 1 || browser === null) {
    await context.close().catch(() => {})
    return
  }
  try {
    await page.unrouteAll({ behavior: 'ignoreErrors' })
    for (const name of PAGE_EVENTS) page.removeAllListeners(name)
    await context.setOffline(false)
    await context.clearPermissions()
    await context.clearCookies()
    if (origins.size === 1) await page.evaluate(() => localStorage.clear())
    await page.goto('about:blank')
    visited.delete(page)
    const free = pool.get(browser) ?? []
    free.push(page)
    pool.set(browser, free)
  } catch {
    await context.close().catch(() => {})
  }
}

/** The origins each page was opened on (see {@link release}). */
const visited = new WeakMap<Page, Set<string>>()

/** How long a page's first navigation may take before it is made once more (see `openPage`). */
const FIRST_LOAD_MS = 20_000
