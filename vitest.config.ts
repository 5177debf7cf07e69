import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { workerAliases } from './test/helpers/worker-aliases.ts'

/**
 * What a file Vitest has not timed yet (as in CI, on a fresh install) is taken to last, in ms, by
 * what it starts: Chromium against `wrangler dev` (`test/e2e/`), a Worker in workerd or wrangler,
 * a browser, or processes of its own such as `npm start` or npm packing a scratch app (its
 * imports say so), else nothing that takes long.
 */
function untimed(source: string, path: string): number {
  if (path.startsWith('test/e2e/')) return 150_000
  const starts =
    /start-worker|wrangler-dev|describe-runtime|playwright-core|child_process|scratch-app/
  return starts.test(source) ? 15_000 : 1_000
}

/** The environment a file asks for in its docblock (`@vitest-environment happy-dom`), if any. */
const environmentOf = (source: string): string =>
  /@vitest-environment\s+([\w-]+)/.exec(source)?.[1] ?? 'default'

/**
 * Orders the files so that the workers end together, and starts as few worker threads as it
 * can. Vitest keeps a worker (and the modules it imported) for the next file only when that file
 * is of the same project and environment; any other next file ends the worker, and the one
 * started in its place imports everything again, which cost 1-3 s of CPU each time (30 times a
 * run while the happy-dom files came between the others). So files run in runs of one project
 * and environment; within a run, the longest files first (by the duration Vitest kept from their
 * last run, else by {@link untimed}), so that no long browser or workerd file ends alone. The
 * longest files of all, one for each worker but one, start first, then the other runs (the
 * happy-dom and mocking files, a few seconds each), through the last worker alone, so that one
 * thread imports happy-dom and React instead of several (about 2 s of CPU each); then the rest of
 * the longest files' run, whose hundreds of short files fill the workers to the end: run last, the
 * other runs left the workers idle by turns for about 10 s while their longest files ended. Ties
 * keep Vitest's own order (failed first, then longest, then largest).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx
    // oxlint-disable-next-line unicorn/no-array-sort -- BaseSequencer's sort, which copies
    const sorted = await super.sort(files)
    const estimates = new Map<TestSpecification, number>()
    const runs = new Map<string, TestSpecification[]>()
    for (const file of sorted) {
      const path = relative(config.root, file.moduleId)
      const source = readFileSync(file.moduleId, 'utf8')
      const timed = cache.getFileTestResults(`${file.project.name}:${path}`)?.duration
      estimates.set(file, timed ?? untimed(source, path))
      const run = `${file.project.name} ${environmentOf(source)}`
      const same = runs.get(run) ?? []
      same.push(file)
      runs.set(run, same)
    }
    const longest = (run: TestSpecification[]) => Math.max(...run.map((f) => estimates.get(f)!))
    const [main = [], ...others] = [...runs.values()]
      .map((run) => run.toSorted((a, b) => estimates.get(b)! - estimates.get(a)!))
      .toSorted((a, b) => longest(b) - longest(a))
    const first = Math.max(1, config.maxWorkers - 1)
    return [...main.slice(0, first), ...others.flat(), ...main.slice(first)]
  }
}

const INCLUDE = ['test/**/*.test.ts', 'test/**/*.test.tsx']

/**
 * The files that replace modules with `vi.mock`: each needs a module graph of its own, where every
 * other file shares one per worker (a module a file mocked would be the mock for the next file).
 */
const MOCKING = readdirSync(join(import.meta.dirname, 'test'), {
  recursive: true,
  encoding: 'utf8',
})
  .filter((file) => /\.test\.tsx?$/.test(file))
  .map((file) => join('test', file))
  .filter((file) => /\bvi\.mock\(/.test(readFileSync(join(import.meta.dirname, file), 'utf8')))

/**
 * The names the Worker imports thinkwire by (wrangler.toml's `[alias]`), for the tests that run its
 * files in Node. Each matches its whole name only: Vite would also take `thinkwire` for the start
 * of `thinkwire/relay`.
 */
const WORKER_ALIASES = Object.entries(workerAliases()).map(([name, path]) => ({
  find: new RegExp(`^${name.replaceAll(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
  replacement: path,
}))

export default defineConfig({
  resolve: { alias: WORKER_ALIASES },
  test: {
    // Fails a test that writes to console.warn / console.error (test/helpers/quiet-console.ts).
    setupFiles: ['test/helpers/setup.ts'],
    // Three files at a time on a 2-core machine (Vitest would run two): the browser file and the
    // workerd files spend much of their time waiting on a scripted model or a page, while the unit
    // files use the CPU. The browser tests are one file (test/e2e/browser.test.ts), so they never
    // run beside each other, which made each take twice as long.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    // Bounds for a hang, not for speed: on this 2-core machine made twice as busy, a workerd test
    // that streams megabytes took 18 s and a file's Workers 40 s to start.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The same for `expect.poll` (1 s by default): a host's loop, a Worker's answer or a page that
    // settles in milliseconds on a quiet machine took over a second when it was twice as busy.
    expect: { poll: { timeout: 20_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: INCLUDE,
          exclude: MOCKING,
          // One module graph per worker thread, kept from file to file: importing the SDKs, the
          // relay and Miniflare once per worker rather than once per file (about 1 s of CPU each)
          // halves the CPU of the unit run. Each file still gets its own setup and environment.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        // Isolated in threads: a worker thread of their own each, which starts sooner than the
        // forked process each had (their 17 tests: 3.0 s against 3.7 s, 5.9 s of CPU against 7.1).
        test: { name: 'mocking', include: MOCKING, pool: 'threads', isolate: true },
      },
    ],
  },
})
