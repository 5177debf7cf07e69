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
 * for its branches and queue (DESIGN §14). `relay + useChat` is within it; the durable path is not
 * yet: see {@link BUNDLE_BUDGETS}.
 */
export const BUNDLE_TARGET = 5632

/**
 * What each browser path may weigh, gzipped, checked by `test/client/bundle-size.test.ts`: each
 * figure as measured (2026-12) plus a few bytes. Both hold the kit's SSE reader and parser, the
 * relay client's checks of each event (`parse-event.ts`), the error class, the reducer, the message
 * view (one builder for every message; `toMessages` adds the answer still arriving) and the store's
 * notifier (a closure); neither holds key redaction (the relay redacts what it sends), prices (the
 * relay prices each turn), the adapters' stream guard, nor the `retry-after` dates and
 * `retry-after-ms` of providers (the relay sends `retryAfterMs` in its error body, and whole
 * seconds in the header).
 *
 * - `relayConversation + useConversation` (about 6,130 B) holds the durable store, a closure (its
 *   state in local variables, whose names minify where a class's `#fields` do not), which keeps its
 *   own snapshot, reconnection (resuming any stream that ends without `done`, and saying so; the
 *   last event it has sent with each message, about 25 B), a follower's WebSocket (about 305 B:
 *   the ticket, the socket read as the body of a follow stream, its ping, the fall back to SSE,
 *   and a stream that connects after a dispose closed at once), the relay's tool loop as a page
 *   sees it (about 235 B: what it waits on from `GET`, from the stream and from a resume's
 *   `reset`, results beside their calls, those its step has from `GET` and a `reset`, approve
 *   and deny, an interrupted answer kept or asked again, a stop while the loop waits), the
 *   client's own tool calls (about 290 B: `onToolCall`, run as `Chat` runs them) and versions and
 *   the queue
 *   (DESIGN §14, about 190 B: a message's `branch`, edit, selectBranch, the queue from `GET` and
 *   its events, a send queued while an answer runs, clearQueue and rename, all but edit one
 *   request helper whose result the relay's events bring; the hook hands out the store's own
 *   functions, which saved 40 B). It is over the target by that socket and those loops. Its
 *   budget leaves 9 B under the ceiling of a browser path (6,144 B).
 * - `relay + useChat` (about 5,605 B) holds `Chat` and its tool loop, and an adapter that keeps
 *   the whole stream contract itself (abort, idle timeout, the `done` turn folded from the events);
 *   the body it leaves to end after `done` is the reader's `drainMs`. It is within the target with
 *   the checks it makes of the relay's answers, each pinned by a test: the `done` turn's fields
 *   (about 170 B), the kind of an answer that is not JSON from its status (70 B), the error
 *   payload's kind and fields (65 B), its own fold of `done` (35 B).
 */
export const BUNDLE_BUDGETS: Readonly<Record<BrowserPath, number>> = {
  'relay + useChat': 5619,
  'relayConversation + useConversation': 6135,
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
