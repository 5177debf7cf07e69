import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { unstable_readConfig } from 'wrangler'

/** A test Worker running in workerd, and how to stop it. */
export type BundledWorker = { mf: Miniflare; dispose(): Promise<void> }

/** The production Worker's runtime settings, read from wrangler.toml. */
const config = unstable_readConfig({
  config: fileURLToPath(new URL('../../wrangler.toml', import.meta.url)),
})

/**
 * Bundles `entry` the way wrangler bundles for workerd (browser platform and its conditions, no
 * Node built-ins, minified as wrangler.toml says) and runs it in workerd through Miniflare, with
 * the compatibility date and flags of wrangler.toml, so a test runs on the runtime the Worker is
 * deployed on. The bundle is one module, named to Miniflare: given a script path, it would parse
 * the whole bundle to find its imports.
 */
export async function startBundledWorker(entry: string): Promise<BundledWorker> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-worker-'))
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    minify: config.minify ?? false,
    keepNames: config.keep_names ?? true,
    logLevel: 'error',
  })
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: join(dir, 'index.js') }],
    modulesRoot: dir,
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
  })
  await mf.ready
  return {
    mf,
    async dispose() {
      await mf.dispose()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
