/**
 * `npm start [-- <flags>]`: the relay and the demo under `wrangler dev`.
 *
 * 1. Checks every setting the Worker will see (wrangler.toml `[vars]`, then `.dev.vars` or the
 *    `--env-file` files, then `--var` flags) with the Worker's own code, and stops naming the first
 *    bad one before anything is built or started.
 * 2. With no auth configured (neither `RELAY_TOKENS` nor `AUTH_JWKS_URL`), passes
 *    `--var ALLOW_ANONYMOUS:true` so the local relay serves, and says so; an `ALLOW_ANONYMOUS`
 *    the developer set is kept.
 * 3. Builds the package and the demo (`--skip-build` skips both, for tests).
 * 4. Runs `wrangler dev` with every other flag as given (`--port 9123`, `--var NAME:value`, ...),
 *    on port 8787 when none is given, and records the address for the demo's dev server.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { unstable_getVarsForDev, unstable_readConfig } from 'wrangler'
import { hasAuth, readAuthSettings } from '../worker/client-auth.ts'
import { readRelaySettings } from '../worker/relay-settings.ts'
import { writeDevRelay } from './dev-relay.ts'

const root = resolve(import.meta.dirname, '..')
const wranglerJs = join(root, 'node_modules/wrangler/bin/wrangler.js')
const DEFAULT_PORT = '8787'

/** What `wrangler dev` is told that the check must know too. */
type DevFlags = {
  port: string | undefined
  ip: string | undefined
  protocol: string | undefined
  config: string | undefined
  env: string | undefined
  envFiles: string[] | undefined
  vars: Record<string, string>
}

/** Reads the flags the check needs from wrangler dev's arguments (yargs' spellings). */
function devFlags(args: readonly string[]): DevFlags {
  const flags: DevFlags = {
    port: undefined,
    ip: undefined,
    protocol: undefined,
    config: undefined,
    env: undefined,
    envFiles: undefined,
    vars: {},
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? splitOnce(arg, '=') : [arg]
    // The values of a flag: the inline one, or the next argument (an array flag: every next one
    // up to the next flag, as yargs reads `--var A:1 B:2`).
    const values = (many: boolean): string[] => {
      if (inline !== undefined) return [inline]
      const taken: string[] = []
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
        taken.push(args[++i]!)
        if (!many) break
      }
      return taken
    }
    switch (name) {
      case '--port':
        flags.port = values(false)[0]
        break
      case '--ip':
        flags.ip = values(false)[0]
        break
      case '--local-protocol':
        flags.protocol = values(false)[0]
        break
      case '--config':
      case '-c':
        flags.config = values(false)[0]
        break
      case '--env':
      case '-e':
        flags.env = values(false)[0]
        break
      case '--env-file':
        flags.envFiles = [...(flags.envFiles ?? []), ...values(true)]
        break
      case '--var':
        for (const entry of values(true)) {
          const [key, value = ''] = splitOnce(entry, ':')
          flags.vars[key] = value
        }
        break
    }
  }
  return flags
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator)
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)]
}

/**
 * The settings `wrangler dev` will give the Worker, as wrangler merges them: the config's `[vars]`,
 * then `.dev.vars` (or `.env`, or the `--env-file` files), then `--var` flags. Also which of them
 * the developer set (all but the config's defaults).
 */
function devSettings(flags: DevFlags): {
  all: Record<string, string>
  own: Record<string, string>
} {
  const config = unstable_readConfig(
    { config: resolve(flags.config ?? join(root, 'wrangler.toml')), env: flags.env },
    { hideWarnings: true },
  )
  const fromConfig = strings(config.vars)
  const envFiles = flags.envFiles?.map((file) => resolve(file))
  const bindings = unstable_getVarsForDev(config.userConfigPath, envFiles, {}, flags.env, true)
  const fromFiles = strings(
    Object.fromEntries(Object.entries(bindings).map(([name, binding]) => [name, binding.value])),
  )
  const own = { ...fromFiles, ...flags.vars }
  return { all: { ...fromConfig, ...own }, own }
}

/** The string values of a record (a JSON var is never a setting the Worker reads). */
function strings(record: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string') out[name] = value
  }
  return out
}

/** Where the relay will listen, as a browser (or the demo's dev proxy) reaches it. */
function relayUrl(flags: DevFlags, port: string): string {
  const wildcard = flags.ip === undefined || ['0.0.0.0', '::', '*', 'localhost'].includes(flags.ip)
  const host = wildcard ? '127.0.0.1' : flags.ip!.includes(':') ? `[${flags.ip}]` : flags.ip!
  return `${flags.protocol === 'https' ? 'https' : 'http'}://${host}:${port}`
}

function fail(message: string): never {
  console.error(`npm start: ${message}`)
  process.exit(1)
}

function run(args: readonly string[]): void {
  const skipBuild = args.includes('--skip-build')
  const wranglerArgs = args.filter((arg) => arg !== '--skip-build')
  const flags = devFlags(wranglerArgs)
  const port = flags.port ?? DEFAULT_PORT
  if (flags.port === undefined) wranglerArgs.push('--port', DEFAULT_PORT)
  const url = relayUrl(flags, port)

  let notice: string | undefined
  try {
    const { all, own } = devSettings(flags)
    const configured = hasAuth(readAuthSettings(all))
    const opened = !configured && (own['ALLOW_ANONYMOUS'] ?? '').trim() === ''
    if (opened) {
      all['ALLOW_ANONYMOUS'] = 'true'
      wranglerArgs.push('--var', 'ALLOW_ANONYMOUS:true')
    }
    const settings = readRelaySettings(all)
    if (settings.open) {
      const by = opened ? ', set by npm start for local use' : ''
      notice =
        'the relay is OPEN: neither RELAY_TOKENS nor AUTH_JWKS_URL is set, so anyone who can ' +
        `reach ${url} may use it and its provider keys (ALLOW_ANONYMOUS=true${by}). ` +
        `To close it, set RELAY_TOKENS (with CLIENT_ID_SECRET) or AUTH_JWKS_URL in .dev.vars, ` +
        `or ALLOW_ANONYMOUS=false to see the closed relay.`
    } else if (!configured) {
      notice = 'the relay is CLOSED (ALLOW_ANONYMOUS is not "true"): every /v1/* request gets 401.'
    }
  } catch (error) {
    // The Worker's own checks: the message names the setting, never its value.
    if (error instanceof TypeError) fail(`${error.message} (nothing was started)`)
    throw error
  }

  if (!skipBuild) {
    for (const script of ['build', 'build:demo']) {
      const built = spawnSync('npm', ['run', script], { cwd: root, stdio: 'inherit' })
      if (built.status !== 0) fail(`npm run ${script} failed`)
    }
  }
  // The Worker's assets folder must exist, built or not.
  mkdirSync(join(root, 'demo/dist'), { recursive: true })
  writeDevRelay(url)
  if (notice !== undefined) console.log(`\nnpm start: ${notice}\n`)

  const child = spawn(process.execPath, [wranglerJs, 'dev', ...wranglerArgs], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' },
  })
  // Ctrl-C reaches wrangler from the terminal too; a signal sent to this process alone is passed
  // on, and this process ends when wrangler does. The wrangler API read for the check left
  // handlers that exit at once (leaving wrangler running): only this one may answer.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal)
    process.on(signal, () => child.kill(signal))
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
}

run(process.argv.slice(2))
