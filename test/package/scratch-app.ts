import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
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

/** The flags of every `npm install` here: offline, from the npm cache, and quiet. */
const INSTALL_FLAGS = [
  '--offline',
  '--no-audit',
  '--no-fund',
  '--ignore-scripts',
  '--loglevel=error',
]

/**
 * Creates an app in the system's temporary folder, outside the repository so nothing resolves
 * from its `node_modules`, and installs the packed tarball there with every peer dependency (all
 * optional) at the version of the repository's lockfile, offline from the npm cache. The peers
 * come installed already (see {@link installedPeers}); npm installs the tarball and what it
 * depends on, as it would for a user.
 */
export async function createScratchApp(tarball: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-scratch-'))
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lockfile
  const own = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    peerDependencies?: Record<string, string>
  }
  const peers: Record<string, string> = {}
  for (const peer of Object.keys(own.peerDependencies ?? {})) {
    const version = lock.packages[`node_modules/${peer}`]?.version
    if (version === undefined) throw new Error(`package-lock.json has no ${peer}`)
    peers[peer] = version
  }
  const dependencies: Record<string, string> = { thinkwire: `file:${tarball}`, ...peers }
  try {
    linkTree(join(await installedPeers(lock, peers), 'node_modules'), join(dir, 'node_modules'))
  } catch (error) {
    // Another file system than the npm cache's copy: npm installs the peers too.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await rm(join(dir, 'node_modules'), { recursive: true, force: true })
  }
  await writeApp(dir, lock, dependencies)
  const installed = await run('npm', ['install', ...INSTALL_FLAGS], dir)
  if (installed.code !== 0) {
    await rm(dir, { recursive: true, force: true })
    throw new Error(
      `npm install --offline failed in the scratch app (it installs from the npm cache ` +
        `that \`npm ci\` filled; run \`npm ci\` if a tarball is missing):\n${installed.stderr}`,
    )
  }
  return dir
}

/** Writes the app's package.json and lockfile, with these dependencies. */
async function writeApp(dir: string, lock: Lockfile, dependencies: Record<string, string>) {
  const manifest = { name: 'scratch', private: true, type: 'module', dependencies }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  const lockfile = scratchLockfile(lock, dependencies)
  await writeFile(join(dir, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`)
}

/**
 * Where the peers are installed once per lockfile, for every scratch app of every run: installing
 * them unpacks about 140 MB from the npm cache, 10 s of CPU, and gives every app the same files.
 */
const PEER_INSTALLS = join(root, 'node_modules/.cache/thinkwire-scratch-peers')

/**
 * An app folder with these peers installed from the lockfile, made now when none is kept for this
 * lockfile. It is made in a folder of its own and renamed into place when complete, so runs at
 * once never use half of one.
 */
async function installedPeers(lock: Lockfile, peers: Record<string, string>): Promise<string> {
  const key = createHash('sha256')
    .update(JSON.stringify(scratchLockfile(lock, peers)))
    .digest('hex')
    .slice(0, 16)
  const kept = join(PEER_INSTALLS, key)
  if (existsSync(kept)) return kept
  await mkdir(PEER_INSTALLS, { recursive: true })
  const partial = join(PEER_INSTALLS, `${key}.${randomUUID()}.partial`)
  await mkdir(partial)
  try {
    await writeApp(partial, lock, peers)
    const installed = await run('npm', ['install', ...INSTALL_FLAGS], partial)
    if (installed.code !== 0) {
      throw new Error(
        `npm install --offline of the peers failed (it installs from the npm cache that ` +
          `\`npm ci\` filled; run \`npm ci\` if a tarball is missing):\n${installed.stderr}`,
      )
    }
    // Another run may have kept one first: then that one is used.
    await rename(partial, kept).catch((error: unknown) => {
      if (!existsSync(kept)) throw error
    })
  } finally {
    await rm(partial, { recursive: true, force: true })
  }
  await pruneInstalls(kept)
  return kept
}

/** Removes the peer installs of other lockfiles (after an hour: a run may be linking one). */
async function pruneInstalls(current: string): Promise<void> {
  const hourAgo = Date.now() - 60 * 60 * 1000
  for (const name of await readdir(PEER_INSTALLS)) {
    const path = join(PEER_INSTALLS, name)
    if (path === current) continue
    const modified = await stat(path).then(
      ({ mtimeMs }) => mtimeMs,
      () => Date.now(),
    )
    if (modified < hourAgo) await rm(path, { recursive: true, force: true })
  }
}

/**
 * Makes `to` a copy of the folder `from` whose files are hard links to the same files (so it costs
 * no copying), but for npm's record of the folder (`.package-lock.json`), which npm rewrites in
 * place: that is copied, so npm's writes in `to` never reach `from`. Symbolic links are made anew.
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to)
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)]
    if (entry.isDirectory()) linkTree(source, target)
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target)
    else if (entry.name === '.package-lock.json') copyFileSync(source, target)
    else linkSync(source, target)
  }
}
