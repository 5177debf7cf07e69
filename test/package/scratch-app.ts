import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The repository (the package's own folder). */
export const root = resolve(import.meta.dirname, '../..')

/** What a command printed and how it ended. */
export type RunResult = { code: number; stdout: string; stderr: string }

/**
 * The environment of a child npm or node: this process's, without what `npm run` adds about the
 * repository (`npm_config_local_prefix`, `npm_package_*`, `npm_lifecycle_*`), which must not lead
 * an npm in the scratch app back to the repository. The cache and registry settings stay.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    const lower = name.toLowerCase()
    if (lower === 'npm_config_local_prefix' || lower === 'init_cwd') continue
    if (lower.startsWith('npm_package_') || lower.startsWith('npm_lifecycle_')) continue
    env[name] = value
  }
  return env
}

/** Runs a command to its end; never rejects (a failure is in `code` and `stderr`). */
export function run(command: string, args: readonly string[], cwd: string): Promise<RunResult> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, env: childEnv(), encoding: 'utf8', maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
        done({ code, stdout, stderr: stderr || (error?.message ?? '') })
      },
    )
  })
}

/** Fails with the command line and what it printed unless it ended with 0. */
export async function runOk(command: string, args: readonly string[], cwd: string) {
  const result = await run(command, args, cwd)
  if (result.code !== 0) {
    const output = `${result.stdout}\n${result.stderr}`.trim()
    throw new Error(`\`${[command, ...args].join(' ')}\` failed in ${cwd}:\n${output}`)
  }
  return result
}

/** One file of `npm pack --json`. */
export type PackedFile = { path: string; size: number }

/** What `npm pack` made. */
export type Packed = { tarball: string; files: PackedFile[] }

/** Packs the package as `npm publish` would, into `dir`. */
export async function pack(dir: string): Promise<Packed> {
  if (!existsSync(join(root, 'dist/index.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm test` builds before vitest)')
  }
  const args = ['pack', '--json', '--ignore-scripts', '--pack-destination', dir]
  const { stdout } = await runOk('npm', args, root)
  const [result] = JSON.parse(stdout) as { filename: string; files: PackedFile[] }[]
  if (result === undefined) throw new Error(`npm pack printed no result:\n${stdout}`)
  return { tarball: join(dir, result.filename), files: result.files }
}

type LockEntry = {
  name?: string
  version?: string
  resolved?: string
  integrity?: string
  dependencies?: Record<string, string>
}
type Lockfile = { name: string; packages: Record<string, LockEntry | undefined> }

/**
 * The scratch app's lockfile: the repository's, with the scratch app as its root and each
 * registry package's tarball URL written out. npm then needs no package metadata (the
 * repository's lockfile leaves `resolved` out), only the tarballs `npm ci` put in the npm cache,
 * found by their integrity, so `npm install --offline` works; what the app does not use is pruned.
 */
function scratchLockfile(lock: Lockfile, dependencies: Record<string, string>): Lockfile {
  const packages: Lockfile['packages'] = { '': { name: 'scratch', dependencies } }
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry === undefined) continue
    if (entry.integrity === undefined || entry.version === undefined || entry.resolved) {
      packages[path] = entry
      continue
    }
    const name =
      entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const file = `${name.split('/').at(-1)}-${entry.version}.tgz`
    packages[path] = { ...entry, resolved: `https://registry.npmjs.org/${name}/-/${file}` }
  }
  return { ...lock, name: 'scratch', packages }
}

/**
 * Creates an app in the system's temporary folder, outside the repository so nothing resolves
 * from its `node_modules`, and installs the packed tarball there with every peer dependency (all
 * optional) at the version of the repository's lockfile, offline from the npm cache.
 */
export async function createScratchApp(tarball: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-scratch-'))
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lockfile
  const own = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    peerDependencies?: Record<string, string>
  }
  const dependencies: Record<string, string> = { thinkwire: `file:${tarball}` }
  for (const peer of Object.keys(own.peerDependencies ?? {})) {
    const version = lock.packages[`node_modules/${peer}`]?.version
    if (version === undefined) throw new Error(`package-lock.json has no ${peer}`)
    dependencies[peer] = version
  }
  const manifest = { name: 'scratch', private: true, type: 'module', dependencies }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  const lockfile = scratchLockfile(lock, dependencies)
  await writeFile(join(dir, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`)
  const flags = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']
  const installed = await run('npm', ['install', ...flags], dir)
  if (installed.code !== 0) {
    await rm(dir, { recursive: true, force: true })
    throw new Error(
      `npm install --offline failed in the scratch app (it installs from the npm cache ` +
        `that \`npm ci\` filled; run \`npm ci\` if a tarball is missing):\n${installed.stderr}`,
    )
  }
  return dir
}
