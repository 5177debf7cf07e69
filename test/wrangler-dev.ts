import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { TEST_WORKER_VARS } from './helpers/test-worker-vars.ts'

const root = resolve(import.meta.dirname, '..')
const wranglerJs = join(root, 'node_modules/wrangler/bin/wrangler.js')

/** A Worker under `wrangler dev`. */
export type WranglerDev = {
  /** `http://127.0.0.1:<port>` */
  base: string
  /** What wrangler and the Worker printed. */
  output: string[]
  /** Stops wrangler and its workerd. */
  stop(): Promise<void>
  /** Kills wrangler and its workerd at once (SIGKILL), as a crash or a deploy would: nothing ends cleanly. */
  kill(): Promise<void>
}

/** Options of {@link startWranglerDev}. */
export type WranglerDevOptions = {
  /** What follows `wrangler dev`: the config, the script, assets, state folder, log level. */
  args: readonly string[]
  /**
   * The Worker's settings, each passed as `--var NAME:value`, over `TEST_WORKER_VARS` (open to
   * anyone, a `CLIENT_ID_SECRET`) unless they set those too.
   */
  vars: Readonly<Record<string, string>>
  /** Whether the answer to `GET /v1/models` says the Worker is ready. @defaultValue `response.ok` */
  ready?: ((response: Response) => boolean) | undefined
  /** Headers of that request (a token, for a Worker that asks for one). */
  headers?: Record<string, string> | undefined
  /** @defaultValue 60 s */
  startupMs?: number | undefined
}

/** A free TCP port on 127.0.0.1 (free now: another process may take it before it is used). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolvePort(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

/** How many times {@link startWranglerDev} tries with new ports. */
const PORT_ATTEMPTS = 3

/** The message of a start that never answered (see {@link startOnce}). */
const NOT_READY = 'wrangler dev did not become ready'

/**
 * Starts `wrangler dev` on free loopback ports (a port and an inspector port) and waits until it
 * answers `GET /v1/models`. A port found free may be taken by another process (a test file running
 * beside this one) before wrangler binds it: then it starts again on other ports. A start that
 * never answers within `startupMs` (seen once in CI, where four started at once and the test's
 * setup timed out before this deadline could say which) is stopped and started once more; the
 * second one's output begins with the first one's. Metrics and the `Request.cf` download are off;
 * wrangler runs in its own process group, so `stop` also stops the workerd it starts.
 */
export async function startWranglerDev(options: WranglerDevOptions): Promise<WranglerDev> {
  let stalled: string | undefined
  for (let attempt = 1; ; attempt++) {
    try {
      const started = await startOnce(options)
      if (stalled !== undefined) started.output.unshift(`[restarted after: ${stalled}]\n`)
      return started
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const taken = message.includes('Address already in use')
      const stalls = message.startsWith(NOT_READY) && stalled === undefined
      if ((!taken && !stalls) || attempt === PORT_ATTEMPTS) throw error
      if (stalls) stalled = message
    }
  }
}

async function startOnce(options: WranglerDevOptions): Promise<WranglerDev> {
  const { vars, ready = (response) => response.ok, headers = {}, startupMs = 60_000 } = options
  const [port, inspector] = [await freePort(), await freePort()]
  const child = spawn(
    process.execPath,
    [
      wranglerJs,
      'dev',
      ...options.args,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--show-interactive-dev-session=false',
      ...Object.entries({ ...TEST_WORKER_VARS, ...vars }).flatMap(([name, value]) => [
        '--var',
        `${name}:${value}`,
      ]),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        CI: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  const output: string[] = []
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const base = `http://127.0.0.1:${port}`
  const stop = () => stopGroup(child)
  const kill = () => stopGroup(child, 'SIGKILL')
  const deadline = Date.now() + startupMs
  const running = () => child.exitCode === null && child.signalCode === null
  while (Date.now() < deadline && running()) {
    // A timer of its own and a race rather than AbortSignal.timeout alone: a probe that never
    // settles must not keep the start waiting past its deadline.
    const attempt = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    try {
      const probe = fetch(`${base}/v1/models`, { headers, signal: attempt.signal }).then(
        async (response) => {
          await response.arrayBuffer()
          return response
        },
      )
      // It may settle after the race below, when it is aborted.
      probe.catch(() => {})
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 2 s')), 2_000)
      })
      const response = await Promise.race([probe, late])
      if (ready(response)) return { base, output, stop, kill }
    } catch {
      // not listening yet
    } finally {
      clearTimeout(timer)
      attempt.abort()
    }
    await new Promise((wait) => setTimeout(wait, 250))
  }
  const exited = running() ? undefined : (child.exitCode ?? child.signalCode)
  await stop()
  if (exited !== undefined) {
    // It stopped by itself (a script or setting it refused): starting again would not help.
    throw new Error(`wrangler dev exited (${exited}):\n${output.join('').slice(-3000)}`)
  }
  throw new Error(`${NOT_READY} within ${startupMs} ms:\n${output.join('').slice(-3000)}`)
}

/**
 * `first` (SIGTERM) to the child's process group, then SIGKILL if it has not exited within 5 s;
 * then SIGKILL to what is left of the group (a workerd whose wrangler died first).
 */
async function stopGroup(child: ChildProcess, first: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.pid === undefined) return
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name)
    } catch {
      // already gone
    }
  }
  // An exit already seen (by a code or a signal) is not signalled again.
  const gone = child.exitCode !== null || child.signalCode !== null
  const exited = gone ? Promise.resolve() : new Promise((done) => child.once('exit', done))
  signal(first)
  const timer = setTimeout(() => signal('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
  signal('SIGKILL')
}
