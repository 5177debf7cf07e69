import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import { loadConfigFromFile } from 'vite'
import { afterAll, describe, expect, it } from 'vitest'
import { workerAliases } from '../helpers/worker-aliases.ts'

// `npm start` as a developer runs it, on a scratch settings file (`--env-file`, so the
// developer's .dev.vars stays out) and without its builds (`--skip-build`: the package and demo
// builds take a minute here and would replace dist/ under other tests). Its wrangler dev serves
// the Worker from this tree.

const root = resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'thinkwire-start-'))
const record = join(scratch, 'dev-relay.json')
// Inside node_modules, so that the bundle's imports of packages resolve as the script's do.
const bundles = mkdtempSync(join(root, 'node_modules/.cache/thinkwire-start-'))

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
  rmSync(bundles, { recursive: true, force: true })
})

type Started = { child: ChildProcess; output: () => string; exited: Promise<number | null> }

/**
 * `npm start -- --skip-build <args>` with these settings as its only settings file, as
 * package.json runs it (`node --import tsx scripts/start.ts`), or `script`, the same bundled.
 */
function start(settings: string, args: readonly string[], script?: string): Started {
  const file = join(scratch, `settings-${Math.random().toString(36).slice(2)}.vars`)
  writeFileSync(file, settings)
  const command = script === undefined ? ['--import', 'tsx', 'scripts/start.ts'] : [script]
  const child = spawn(process.execPath, [...command, '--skip-build', '--env-file', file, ...args], {
    cwd: root,
    env: { ...process.env, THINKWIRE_DEV_RELAY_FILE: record, CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the cleanup can stop wrangler and workerd whatever happens.
    detached: true,
  })
  const chunks: string[] = []
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  return { child, output: () => chunks.join(''), exited }
}

/**
 * scripts/start.ts bundled for plain Node, its packages (wrangler among them) imported as they
 * are: tsx and the TypeScript it compiles cost a run about 1 s of CPU, the bundle next to nothing.
 * The runs stopped by a bad setting use it; the run that serves is `npm start` itself.
 */
async function bundleStart(): Promise<string> {
  mkdirSync(bundles, { recursive: true })
  const outfile = join(bundles, 'start.mjs')
  await build({
    entryPoints: [join(root, 'scripts/start.ts')],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Where scripts/start.ts finds the repository (and the dev-relay record its default place).
    define: { 'import.meta.dirname': JSON.stringify(join(root, 'scripts')) },
    // The worker/ files it imports name thinkwire as the Worker does: bundled from the source
    // files of wrangler.toml's [alias], since the package's own names lead to dist/, not built here.
    alias: workerAliases(),
    logLevel: 'error',
  })
  return outfile
}

function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null
          ? done(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

/** Waits until the output holds `text`, or the process ends (then the test sees what it said). */
async function waitFor(started: Started, text: string): Promise<void> {
  const ended = started.exited.then(() => 'ended' as const)
  while (!started.output().includes(text)) {
    const step = await Promise.race([ended, new Promise((wait) => setTimeout(wait, 250))])
    if (step === 'ended') return
  }
}

describe('npm start', () => {
  it('stops before starting anything when a setting is bad, naming it and never its value', async () => {
    const script = await bundleStart()
    const short = start('RELAY_TOKENS=short-token\n', [], script)
    const unkeyed = start('RELAY_TOKENS=token-without-secret-0123\n', [], script)
    expect(await short.exited).toBe(1)
    expect(short.output()).toContain(
      'npm start: RELAY_TOKENS entry 1 is shorter than 16 characters: use a long random secret',
    )
    expect(short.output()).not.toContain('short-token')
    expect(await unkeyed.exited).toBe(1)
    expect(unkeyed.output()).toMatch(/npm start: CLIENT_ID_SECRET is required with RELAY_TOKENS/)
    expect(unkeyed.output()).not.toContain('token-without-secret')
    for (const run of [short, unkeyed]) {
      expect(run.output()).not.toMatch(/Ready on|wrangler/)
    }
  }, 120_000)

  it('serves on the --port given, passes the other flags on, says the relay is open, and points the demo at it', async () => {
    const { started, port } = await serving()
    try {
      const output = started.output()
      expect(output).toContain(`Ready on http://127.0.0.1:${port}`)
      expect(output).toMatch(/npm start: the relay is OPEN/)
      expect(output).toContain(`anyone who can reach http://127.0.0.1:${port}`)
      expect(output).toMatch(
        /To close it, set RELAY_TOKENS \(with CLIENT_ID_SECRET\) or AUTH_JWKS_URL/,
      )
      // Open (ALLOW_ANONYMOUS set by npm start), and MOCK_MODELS:off reached the Worker.
      const response = await fetch(`http://127.0.0.1:${port}/v1/models`)
      expect(response.status).toBe(200)
      const models = (await response.json()) as { models: unknown[]; notice?: string }
      expect(models.models).toEqual([])
      expect(models.notice).toMatch(/no provider configured/)

      expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual({ url: `http://127.0.0.1:${port}` })
      const demo = await withRecord(() =>
        loadConfigFromFile(
          { command: 'serve', mode: 'development' },
          join(root, 'demo/vite.config.ts'),
        ),
      )
      expect(demo?.config.server?.proxy?.['/v1']).toMatchObject({
        target: `http://127.0.0.1:${port}`,
      })

      // A signal to npm start alone stops wrangler with it.
      started.child.kill('SIGTERM')
      await started.exited
      await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow()
    } finally {
      stop(started)
    }
  }, 240_000)
})

/** Stops a start's process group, wrangler and workerd with it. */
function stop(started: Started): void {
  try {
    process.kill(-started.child.pid!, 'SIGKILL')
  } catch {
    // already gone
  }
}

/**
 * `npm start` serving on free ports, once it says it is ready. The ports are free when picked, and
 * wrangler picks workerd's own the same way: another process may bind one before workerd does,
 * which stops the start with "Address already in use" (once in many CI runs, while the other test
 * files bind theirs). Such a start is run again, once, on ports picked again.
 */
async function serving(): Promise<{ started: Started; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const [port, inspector] = [await freePort(), await freePort()]
    const started = start('', [
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      `--inspector-port=${inspector}`,
      '--persist-to',
      join(scratch, 'state'),
      '--var',
      'MOCK_MODELS:off',
    ])
    const ready = `Ready on http://127.0.0.1:${port}`
    await waitFor(started, ready)
    const output = started.output()
    if (attempt > 1 || output.includes(ready) || !output.includes('Address already in use')) {
      return { started, port }
    }
    stop(started)
    await started.exited
  }
}

/** Runs `load` with the demo's config reading this test's record of the relay's address. */
async function withRecord<T>(load: () => Promise<T>): Promise<T> {
  const previous = process.env['THINKWIRE_DEV_RELAY_FILE']
  process.env['THINKWIRE_DEV_RELAY_FILE'] = record
  try {
    return await load()
  } finally {
    if (previous === undefined) delete process.env['THINKWIRE_DEV_RELAY_FILE']
    else process.env['THINKWIRE_DEV_RELAY_FILE'] = previous
  }
}
