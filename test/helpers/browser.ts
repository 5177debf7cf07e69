import { build, type Metafile } from 'esbuild'

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

/**
 * Bundles `entry` as a browser app bundles it: browser platform and conditions, no Node built-ins,
 * ES modules, in memory (with its metafile). `production` sets `process.env.NODE_ENV` as an app's
 * bundler does for a page (React reads it).
 */
export function bundleForBrowser(entry: string, options: { production?: boolean } = {}) {
  return build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'error',
    ...(options.production === true
      ? { define: { 'process.env.NODE_ENV': '"production"' }, minify: true }
      : {}),
  })
}

/** Imports the {@link bundleForBrowser} bundle of `entry`: the very module a page would run. */
export async function importBrowserBundle<Module>(
  entry: string,
): Promise<{ module: Module; metafile: Metafile }> {
  const result = await bundleForBrowser(entry)
  const code = Buffer.from(result.outputFiles[0]!.text).toString('base64')
  const module = (await import(/* @vite-ignore */ `data:text/javascript;base64,${code}`)) as Module
  return { module, metafile: result.metafile }
}
