import { createHash } from 'node:crypto'
import { mkdtemp, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { build, version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild'
import { kept, pruneBuilds } from './kept.ts'

const ROOT = resolve(import.meta.dirname, '../..')

/** Gives the global scope the `window`, `document` and `navigator` the SDKs look for; returns the undo. */
export function pretendToBeABrowser(): () => void {
  const names = ['window', 'navigator'] as const
  const saved = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name))
  Object.defineProperty(globalThis, 'window', {
    value: { document: {} },
    configurable: true,
    writable: true,
  })
  Object.defineProperty(globalThis, 'navigator', {
    value: { userAgent: 'Mozilla/5.0' },
    configurable: true,
    writable: true,
  })
  return () => {
    names.forEach((name, i) => {
      const descriptor = saved[i]
      if (descriptor === undefined) Reflect.deleteProperty(globalThis, name)
      else Object.defineProperty(globalThis, name, descriptor)
    })
  }
}

/** Browser bundles, kept from one run to the next until a file they were made from changes. */
const CACHE = join(ROOT, 'node_modules/.cache/thinkwire-browser-bundles')

/** A browser bundle: its one module's code, and what esbuild says it was made from. */
export type BrowserBundle = { text: string; metafile: Metafile }

/**
 * Bundles `entry` as a browser app bundles it: browser platform and conditions, no Node built-ins,
 * ES modules, one file (with its metafile). `production` sets `process.env.NODE_ENV` as an app's
 * bundler does for a page (React reads it), and minifies. Kept on disk until one of the files it
 * was made from changes: an SDK's bundle costs esbuild about a second of CPU.
 */
export async function bundleForBrowser(
  entry: string,
  options: { production?: boolean } = {},
): Promise<BrowserBundle> {
  const settings = {
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'error',
    absWorkingDir: ROOT,
    ...(options.production === true
      ? { define: { 'process.env.NODE_ENV': '"production"' }, minify: true }
      : {}),
  } as const satisfies BuildOptions
  const key = createHash('sha256')
    .update(JSON.stringify([settings, esbuildVersion]))
    .digest('hex')
    .slice(0, 16)
  const made = await kept(CACHE, key, async () => {
    const folder = await mkdtemp(join(CACHE, `${key}-`))
    const script = join(folder, 'index.js')
    const { metafile } = await build({ ...settings, outfile: script })
    await pruneBuilds(CACHE, key, folder)
    return {
      value: { script, metafile },
      sources: Object.keys(metafile.inputs).map((input) => resolve(ROOT, input)),
      made: [script],
    }
  })
  return { text: await readFile(made.script, 'utf8'), metafile: made.metafile }
}

/** Imports the {@link bundleForBrowser} bundle of `entry`: the very module a page would run. */
export async function importBrowserBundle<Module>(
  entry: string,
): Promise<{ module: Module; metafile: Metafile }> {
  const result = await bundleForBrowser(entry)
  const code = Buffer.from(result.text).toString('base64')
  const module = (await import(/* @vite-ignore */ `data:text/javascript;base64,${code}`)) as Module
  return { module, metafile: result.metafile }
}
