/**
 * What a browser app pays for `thinkwire/client` + `thinkwire/react`, on each of its two paths:
 * `relay` + `useChat` (the stateless `POST /v1/chat`, the conversation held in the page) and
 * `relayConversation` + `useConversation` (a durable conversation on the relay). Each is bundled
 * with esbuild (minified, ESM, React external) and gzipped at level 9.
 * `npx tsx bench/bundle-size.ts` prints the figures and the minified bytes of every module.
 */
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

/**
 * What a browser path should weigh at most, gzipped: 5.5 KiB, which leaves the durable client room
 * for its approvals, branches and queue (DESIGN §13, §14). Neither path is there yet: see
 * {@link BUNDLE_BUDGETS}.
 */
export const BUNDLE_TARGET = 5632

/**
 * What each browser path may weigh, gzipped, checked by `test/client/bundle-size.test.ts`. Both
 * hold the kit's SSE reader and parser, the relay client's checks of each event (`parse-event.ts`),
 * the error class, the reducer, the message view and the store's notifier (a closure, which
 * minifies better than a class's `#fields`); neither holds key redaction (the relay redacts what it
 * sends), prices (the relay prices each turn), the adapters' stream guard, nor the `retry-after`
 * dates and `retry-after-ms` of providers (the relay sends `retryAfterMs` in its error body, and
 * whole seconds in the header).
 *
 * - `relayConversation + useConversation` (about 6,140 B) holds the durable store, which keeps its
 *   own snapshot, reconnection (resuming any stream that ends without `done`, and saying so), tool
 *   answers, a follower's WebSocket (about 370 B: the ticket, the socket read as the body of a
 *   follow stream, its ping, the fall back to SSE, and a stream that connects after a dispose
 *   closed at once), and the relay's tool loop (about 370 B: what it waits on from `GET` and from
 *   the stream, results beside their calls, approve and deny, an interrupted answer). It is over
 *   the target by that socket, which lets an idle conversation's Durable Object sleep, and that
 *   loop; its budget is the ceiling of a browser path, 6,144 B.
 * - `relay + useChat` (about 5,750 B) holds `Chat` and its tool loop (about 1.5 KiB of it), and an
 *   adapter that keeps the whole stream contract itself (abort, idle timeout, the `done` turn folded
 *   from the events); the body it leaves to end after `done` is the reader's `drainMs`. It is over
 *   the target by the checks it makes of the relay's answers, each pinned by a test: the `done`
 *   turn's fields (about 175 B), the kind of an answer that is not JSON from its status (70 B), the
 *   error payload's kind and fields (50 B), its own fold of `done` (40 B). The tool loop's result,
 *   which `Chat` never reads, is another 10 B.
 *
 * Both budgets are where they stood before the paths lost 80 B and 53 B (2026-12); they come down
 * to {@link BUNDLE_TARGET} once a path gets there.
 */
export const BUNDLE_BUDGETS: Readonly<Record<BrowserPath, number>> = {
  'relay + useChat': 5850,
  'relayConversation + useConversation': 6144,
}

/** What each browser path imports, by name. */
export const BROWSER_PATHS = {
  'relay + useChat': ['relay', 'useChat'],
  'relayConversation + useConversation': ['relayConversation', 'useConversation'],
} as const satisfies Record<string, readonly [client: string, react: string]>

/** One of {@link BROWSER_PATHS}. */
export type BrowserPath = keyof typeof BROWSER_PATHS

/** Sizes in bytes of one path's bundle, and what is in it. */
export type BundleSize = {
  minified: number
  gzipped: number
  /** Every file bundled, sorted. */
  inputs: string[]
  /** The minified bytes each file puts in the bundle, largest first. */
  modules: [file: string, bytes: number][]
}

const root = fileURLToPath(new URL('..', import.meta.url))

export async function measureBundleSize(
  path: BrowserPath = 'relay + useChat',
): Promise<BundleSize> {
  const [client, react] = BROWSER_PATHS[path]
  const result = await build({
    stdin: {
      contents: [
        `export { ${client} } from './src/client/index.ts'`,
        `export { ${react} } from './src/react/index.ts'`,
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
  const [output] = Object.values(result.metafile.outputs)
  const modules = Object.entries(output?.inputs ?? {})
    .map(([file, { bytesInOutput }]): [string, number] => [file, bytesInOutput])
    .filter(([, bytes]) => bytes > 0)
    .toSorted((a, b) => b[1] - a[1])
  return {
    minified: code.byteLength,
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs).toSorted(),
    modules,
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const path of Object.keys(BROWSER_PATHS) as BrowserPath[]) {
    const size = await measureBundleSize(path)
    console.log(
      `${path}: ${size.minified} B minified, ${size.gzipped} B gzipped` +
        ` (${(size.gzipped / 1024).toFixed(2)} KiB; budget ${BUNDLE_BUDGETS[path]} B,` +
        ` aim ${BUNDLE_TARGET} B)`,
    )
    for (const [file, bytes] of size.modules) console.log(`  ${String(bytes).padStart(6)} ${file}`)
  }
}
