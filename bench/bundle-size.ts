/**
 * What a browser app pays for `thinkwire/client` + `thinkwire/react`: both entries bundled
 * together with esbuild (minified, ESM, React external) and gzipped at level 9.
 * `npx tsx bench/bundle-size.ts` prints the figures.
 */
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/** Sizes in bytes of the bundle of both browser entries. */
export type BundleSize = { minified: number; gzipped: number; inputs: string[] }

const root = fileURLToPath(new URL('..', import.meta.url))

export async function measureBundleSize(): Promise<BundleSize> {
  const result = await build({
    stdin: {
      contents: [
        "export { relay } from './src/client/index.ts'",
        "export { useChat } from './src/react/index.ts'",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['react', 'react-dom'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.contents
  return {
    minified: code.byteLength,
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs).toSorted(),
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const size = await measureBundleSize()
  console.log(
    `thinkwire/client + thinkwire/react: ${size.minified} B minified, ${size.gzipped} B gzipped` +
      ` (${(size.gzipped / 1024).toFixed(2)} KiB; budget 8.5 KiB)`,
  )
  for (const input of size.inputs) console.log(`  ${input}`)
}
