import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, type Plugin } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createScratchApp, pack, root, run, type Packed } from './scratch-app.ts'
import { entriesSource, tsconfigs, usageSource } from './scratch-sources.ts'

/** What `fixtures/smoke.mjs` found of one entry of the exports map. */
type EntryReport = {
  subpath: string
  specifier: string
  types: string | undefined
  typesExist: boolean
  /** Each export's `typeof`. */
  names: Record<string, string>
  error?: string
}

/** What `fixtures/smoke.mjs` printed. */
type SmokeReport = {
  entries: EntryReport[]
  run: {
    error?: string
    completeText?: string
    modelsStatus?: number
    modelIds?: unknown
    relayedText?: string
  }
}

type Manifest = { exports: Record<string, unknown>; dependencies?: Record<string, string> }

/** The public names of each entry (DESIGN §8) and the `typeof` each must have. */
const PUBLIC_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  thinkwire: {
    complete: 'function',
    completeJson: 'function',
    runTools: 'function',
    Chat: 'function',
    trimConversation: 'function',
    withRetry: 'function',
    withFallback: 'function',
    withRateLimit: 'function',
    createRegistry: 'function',
    ThinkwireError: 'function',
    isThinkwireError: 'function',
  },
  'thinkwire/kit': { guardStream: 'function', readEventStream: 'function' },
  'thinkwire/anthropic': { anthropic: 'function' },
  'thinkwire/openai': { openai: 'function' },
  'thinkwire/openai-compatible': { openaiCompatible: 'function', presets: 'object' },
  'thinkwire/gemini': { gemini: 'function', geminiInteractions: 'function' },
  // Each provider's models without its SDK (a host lists them before it loads one).
  'thinkwire/anthropic/models': { anthropicModels: 'object', anthropicCapabilities: 'function' },
  'thinkwire/openai/models': { openaiModels: 'object', openaiCapabilities: 'function' },
  'thinkwire/openai-compatible/models': { presets: 'object', compatibleCapabilities: 'function' },
  'thinkwire/gemini/models': {
    geminiModels: 'object',
    geminiCapabilities: 'function',
    geminiInteractionsCapabilities: 'function',
  },
  'thinkwire/mock': { mock: 'function' },
  'thinkwire/langchain': { fromLangChain: 'function' },
  'thinkwire/relay': { createRelay: 'function' },
  'thinkwire/client': { relay: 'function', relayConversation: 'function' },
  'thinkwire/react': { useChat: 'function', useConversation: 'function' },
}

/** The optional peers an entry may load; an entry not listed may load none (DESIGN §7). */
const ENTRY_PEERS: Readonly<Record<string, readonly string[]>> = {
  'thinkwire/anthropic': ['@anthropic-ai/sdk'],
  'thinkwire/openai': ['openai'],
  'thinkwire/openai-compatible': ['openai'],
  'thinkwire/gemini': ['@google/genai'],
  'thinkwire/langchain': ['@langchain/core'],
  'thinkwire/react': ['react'],
}

/** The package name of a bare import specifier (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
}

/** Marks every bare import but the package's own as external, so the bundle shows what it loads. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      packageOf(path) === 'thinkwire' ? undefined : { path, external: true },
    )
  },
}

/**
 * The packages a bundle of `specifier`, built in `app`, imports (the package's own followed), or
 * why esbuild could not bundle it.
 */
async function packagesLoadedBy(app: string, specifier: string): Promise<string[] | Error> {
  try {
    const result = await build({
      stdin: { contents: `export * from '${specifier}'`, resolveDir: app, loader: 'js' },
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'neutral',
      logLevel: 'silent',
      plugins: [externalPackages],
    })
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports)
    return [...new Set(imports.filter((i) => i.external).map((i) => packageOf(i.path)))].toSorted()
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

/**
 * Type-checks the scratch app with the repository's TypeScript (`tsc -p <config>`) and returns
 * the errors in the app's code and thinkwire's declarations. Errors tsc finds in another
 * package's declaration files are left out: they are that package's (a peer's own types may not
 * compile under every option), and they do not hide ours, which tsc reports all the same. One
 * checker rather than tsc's four: each checker resolves the peers' declarations again, and with
 * one the same diagnostics cost a quarter less CPU (2.6 s rather than 3.4 s per check), beside
 * test files that keep both cores busy anyway.
 */
async function typeErrors(app: string, config: string): Promise<string[]> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc')
  const args = [tsc, '-p', config, '--pretty', 'false', '--checkers', '1']
  const result = await run(process.execPath, args, app)
  const output = `${result.stdout}${result.stderr}`.trim()
  // Each diagnostic starts at the line's start; its explanation lines are indented.
  const diagnostics = output.split(/\n(?=\S)/).filter((block) => /error TS\d+/.test(block))
  if (result.code !== 0 && diagnostics.length === 0)
    return [`tsc exited with ${result.code}: ${output}`]
  return diagnostics.filter((block) => !/^node_modules\/(?!thinkwire\/)/.test(block))
}

// One scratch app for every test, made in `beforeAll`: `npm pack`, then `npm install` from the npm
// cache (the machine may be busy: the hook's time limit is generous, and nothing here is timed).
describe('the package as npm publishes it, installed in an app outside the repository', () => {
  let packDir = ''
  let app = ''
  let packed: Packed
  let manifest: Manifest
  let smoke: SmokeReport

  beforeAll(async () => {
    packDir = await mkdtemp(join(tmpdir(), 'thinkwire-pack-'))
    packed = await pack(packDir)
    app = await createScratchApp(packed.tarball)
    const installed = join(app, 'node_modules/thinkwire/package.json')
    manifest = JSON.parse(await readFile(installed, 'utf8')) as Manifest
    const specifiers = Object.keys(manifest.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => `thinkwire${subpath.slice(1)}`)
    await mkdir(join(app, 'src'))
    await writeFile(join(app, 'src/entries.ts'), entriesSource(specifiers))
    await writeFile(join(app, 'src/usage.ts'), usageSource)
    for (const [name, config] of Object.entries(tsconfigs)) {
      await writeFile(join(app, name), `${JSON.stringify(config, null, 2)}\n`)
    }
    await writeFile(
      join(app, 'smoke.mjs'),
      await readFile(join(import.meta.dirname, 'fixtures/smoke.mjs')),
    )
    const result = await run(process.execPath, ['smoke.mjs'], app)
    if (result.code !== 0) throw new Error(`smoke.mjs failed in ${app}:\n${result.stderr}`)
    smoke = JSON.parse(result.stdout) as SmokeReport
  }, 300_000)

  afterAll(async () => {
    for (const dir of [app, packDir])
      if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  it('holds the built JavaScript with its declarations, the license, readme and changelog only', () => {
    const paths = packed.files.map((file) => file.path)
    const unexpected = paths.filter(
      (path) =>
        !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path) &&
        !/^dist\/.+\.(js|d\.ts)$/.test(path),
    )
    expect(unexpected, 'files in the tarball that no user needs').toEqual([])
    const absent = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js']
    expect(
      absent.filter((path) => !paths.includes(path)),
      'missing from the tarball',
    ).toEqual([])
    const undeclared = paths.filter(
      (path) => path.endsWith('.js') && !paths.includes(path.replace(/\.js$/, '.d.ts')),
    )
    expect(undeclared, 'JavaScript files without a .d.ts').toEqual([])
  })

  it('imports every entry of the exports map in Node, each with its types file', () => {
    const broken = smoke.entries.flatMap((entry) => [
      ...(entry.error === undefined ? [] : [`import '${entry.specifier}' failed: ${entry.error}`]),
      ...(entry.typesExist ? [] : [`${entry.specifier}: types file ${entry.types} is not packed`]),
    ])
    expect(broken).toEqual([])
    const unmapped = Object.keys(PUBLIC_NAMES).filter(
      (specifier) => !smoke.entries.some((entry) => entry.specifier === specifier),
    )
    expect(unmapped, 'entries missing from the exports map').toEqual([])
  })

  it('exports the public names of every entry', () => {
    const wrong = Object.entries(PUBLIC_NAMES).flatMap(([specifier, names]) => {
      const entry = smoke.entries.find((candidate) => candidate.specifier === specifier)
      return Object.entries(names)
        .filter(([name, type]) => entry?.names[name] !== type)
        .map(
          ([name, type]) =>
            `${specifier}: ${name} is ${entry?.names[name] ?? 'missing'} (expected ${type})`,
        )
    })
    expect(wrong).toEqual([])
  })

  it('completes on the mock, and serves the mock through createRelay to the relay client', () => {
    expect(smoke.run.error, 'the offline run threw').toBeUndefined()
    expect(smoke.run.completeText).toContain('"hi"')
    expect(smoke.run.modelsStatus, 'GET /v1/models').toBe(200)
    expect(smoke.run.modelIds).toContain('mock/echo')
    expect(smoke.run.relayedText).toContain('"hi"')
  })

  it('loads from each entry only the optional peers it needs, and no package it does not declare', async () => {
    const declared = Object.keys(manifest.dependencies ?? {})
    const wrong: string[] = []
    for (const { specifier } of smoke.entries) {
      const allowed = [...declared, ...(ENTRY_PEERS[specifier] ?? [])]
      const loaded = await packagesLoadedBy(app, specifier)
      if (loaded instanceof Error) {
        wrong.push(`${specifier} does not bundle: ${loaded.message}`)
        continue
      }
      const extra = loaded.filter((name) => !allowed.includes(name))
      if (extra.length > 0) wrong.push(`${specifier} imports ${extra.join(', ')}`)
    }
    expect(wrong).toEqual([])
  }, 120_000)

  it("type-checks the public names and types with Node's resolution and the .d.ts files checked", async () => {
    expect(await typeErrors(app, 'tsconfig.json')).toEqual([])
  }, 120_000)

  it("type-checks them with a bundler's resolution and exactOptionalPropertyTypes", async () => {
    expect(await typeErrors(app, 'tsconfig.bundler.json')).toEqual([])
  }, 120_000)
})
