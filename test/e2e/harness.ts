import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, onTestFailed } from 'vitest'
import { startWranglerDev, type WranglerDev } from '../wrangler-dev.ts'

// The built demo, served by the real Worker under `wrangler dev` (as `npm start` does, from
// snapshots of both), driven in headless Chromium.
export const root = resolve(import.meta.dirname, '../..')
const CHROMIUM = '/usr/bin/chromium'
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

/** Snapshots of the built demo and of the Worker bundled as a deploy would bundle it. */
export type Snapshot = { dir: string; assets: string; bundle: string }

/**
 * Builds the snapshots. wrangler dev reloads (and drops open streams) when its sources or assets
 * change, and this tree may be edited or rebuilt while the tests run.
 */
export function buildSnapshot(): Snapshot {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The demo test drives Chromium at ${CHROMIUM}, which is missing: install it with ` +
        '`apt-get install -y chromium` (.ci/run does this when it is missing).',
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'thinkwire-e2e-'))
  const assets = join(dir, 'assets')
  execFileSync('npm', ['run', 'build:demo', '--', '--outDir', assets, '--emptyOutDir'], {
    cwd: root,
    // Vitest sets NODE_ENV=test, which would give a development build of React.
    env: { ...env, NODE_ENV: 'production' },
    stdio: 'pipe',
    // Each build step ends (and says so) well before the setup's own timeout, which names nothing.
    timeout: STEP_MS,
  })
  const bundle = join(dir, 'bundle')
  execFileSync(wranglerBin, ['deploy', '--dry-run', '--outdir', bundle, '--assets', assets], {
    cwd: root,
    env,
    stdio: 'pipe',
    timeout: STEP_MS,
  })
  return { dir, assets, bundle }
}

export function removeSnapshot(snapshot: Snapshot | undefined): void {
  if (snapshot !== undefined) rmSync(snapshot.dir, { recursive: true, force: true })
}

/** One `wrangler dev` serving the snapshot with its own settings. */
export type Worker = WranglerDev

/**
 * Starts `wrangler dev` on the snapshot with these settings (`--var NAME:value`), each in its own
 * state folder, and waits until it answers. Rate limits are off unless given: the tests send more
 * than a person would. As every test Worker, it is open to anyone (`ALLOW_ANONYMOUS`) unless
 * `vars` say otherwise (see `startWranglerDev`).
 */
export function startWorker(
  snapshot: Snapshot,
  vars: Readonly<Record<string, string>>,
  ready?: (response: Response) => boolean,
): Promise<Worker> {
  const persist = mkdtempSync(join(snapshot.dir, 'persist-'))
  return startWranglerDev({
    args: [
      '--config',
      'wrangler.toml',
      join(snapshot.bundle, 'index.js'),
      '--no-bundle',
      '--assets',
      snapshot.assets,
      '--persist-to',
      persist,
    ],
    vars: { RATE_LIMIT_REQUESTS_PER_MINUTE: '0', ...vars },
    ready,
  })
}

/** A TCP link in front of a Worker whose connections a test can cut, as a dropped network does. */
export type Link = {
  /** The Worker's address through the link. */
  base: string
  /** Resets every open connection, and refuses new ones until {@link Link.mend}. */
  cut(): void
  mend(): void
  close(): Promise<void>
}

/**
 * Opens a {@link Link} to the Worker. Chromium's offline emulation fails new requests but may let a
 * response already streaming go on; cutting the link ends it for sure.
 */
export async function link(worker: Worker): Promise<Link> {
  const target = new URL(worker.base)
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
    close: () =>
      new Promise((closed) => {
        cutAll()
        server.close(() => closed())
      }),
  }
}

/**
 * How long a test file's setup may take: the demo and the Worker built (20-40 s on this busy
 * 2-core machine, beside another test file), then `wrangler dev` started, within 60 s and once
 * more when the first start never answers (see `startWranglerDev`), and Chromium launched.
 */
export const SETUP_MS = 180_000

/** The most one step of a setup may take (a build, Chromium's launch): seconds, when it works. */
const STEP_MS = 60_000

/** What a test file drives: the demo under `wrangler dev`, and a Chromium. */
export type DemoServer = { readonly worker: Worker; readonly browser: Browser }

/**
 * Serves a snapshot of the demo and the Worker with these settings, and launches Chromium, for the
 * test file that calls it (before its tests; stopped and removed after them).
 */
export function serveDemo(vars: Readonly<Record<string, string>>): DemoServer {
  let snapshot: Snapshot | undefined
  const server = {} as { worker: Worker; browser: Browser }
  beforeAll(async () => {
    snapshot = buildSnapshot()
    server.worker = await startWorker(snapshot, vars)
    server.browser = await launchBrowser()
  }, SETUP_MS)
  afterAll(async () => {
    await server.browser?.close()
    await server.worker?.stop()
    removeSnapshot(snapshot)
  })
  return server
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    timeout: STEP_MS,
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}

/** A page on a fresh profile (its own localStorage), with what failed recorded. */
export type DemoPage = Page & {
  /** Requests that failed, as `url errorText` (a finished answer must not be one). */
  failedRequests: string[]
}

/**
 * Opens the demo (at `path`: `/?transport=stateless`, `/?c=<id>`) in a new browser context. On a failing test, the page's screenshot, the browser's
 * console and the Worker's output are kept.
 */
export async function openPage(
  browser: Browser,
  worker: Worker,
  viewport: { width: number; height: number } = DESKTOP,
  path = '/',
): Promise<DemoPage> {
  const context = await browser.newContext({ viewport })
  const page = Object.assign(await context.newPage(), { failedRequests: [] as string[] })
  // A step that never comes fails by itself, with its name, well before the test's own timeout.
  page.setDefaultTimeout(45_000)
  const browserLog: string[] = []
  page.on('console', (message) => browserLog.push(`[console.${message.type()}] ${message.text()}`))
  page.on('pageerror', (error) => browserLog.push(`[page error] ${error.message}`))
  // Requests not yet answered: a navigation that never loads names what it waits on.
  const pending = new Set<string>()
  page.on('request', (request) => pending.add(request.url()))
  page.on('requestfinished', (request) => pending.delete(request.url()))
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
      `screenshot: ${name}\nbrowser:\n${browserLog.join('\n')}\nrequests still pending:\n${[...pending].join('\n')}\nrelay:\n${worker.output.join('').slice(-4000)}`,
    )
  })
  const url = new URL(path, worker.base).href
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

/** How long a page's first navigation may take before it is made once more (see `openPage`). */
const FIRST_LOAD_MS = 20_000
