/**
 * The one table of runtimes the contract runs in, and how each runs the runner: Node imports it,
 * workerd runs it bundled as a Worker with wrangler.toml's compatibility date and flags, and
 * headless Chromium runs it bundled in a page served from memory (no network).
 */
import { join } from 'node:path'
import type { Metafile } from 'esbuild'
import type { RuntimeName } from './checks.ts'
import { runContract, type CheckResult, type RunRequest } from './runner.ts'

/** A runtime, started, with the runner loaded. */
export type RuntimeHost = {
  run(request: RunRequest): Promise<CheckResult[]>
  /** What the runner's bundle is made of, where it was bundled here. */
  metafile?: Metafile | undefined
  stop(): Promise<void>
}

const RUNNER = join(import.meta.dirname, 'runner.ts')
const ORIGIN = 'http://contract.test'

function results(value: unknown): CheckResult[] {
  if (!Array.isArray(value)) throw new Error(`the runner answered ${JSON.stringify(value)}`)
  return value as CheckResult[]
}

// Each runtime loads its own tooling when it starts: a test file pays only for the runtime it runs.

async function startWorkerd(): Promise<RuntimeHost> {
  const { startBareWorkerd } = await import('../worker/start-worker.ts')
  const worker = await startBareWorkerd(RUNNER)
  return {
    async run(request) {
      const response = await worker.mf.dispatchFetch(`${ORIGIN}/`, {
        method: 'POST',
        body: JSON.stringify(request),
      })
      if (!response.ok)
        throw new Error(`workerd answered ${response.status}: ${await response.text()}`)
      return results(await response.json())
    },
    stop: () => worker.dispose(),
  }
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>thinkwire contract</title>
<script type="module">
  import { runContract } from '/runner.js'
  globalThis.runContract = runContract
</script>`

async function startChromium(): Promise<RuntimeHost> {
  const [{ bundleForBrowser }, { launchChromium }] = await Promise.all([
    import('../helpers/browser.ts'),
    import('../helpers/chromium.ts'),
  ])
  const launching = launchChromium()
  // Bundled as a browser app bundles it, while the browser starts.
  const bundling = bundleForBrowser(RUNNER)
  const [launched, bundled] = await Promise.allSettled([launching, bundling])
  if (launched.status === 'rejected') throw launched.reason
  if (bundled.status === 'rejected') {
    await launched.value.close()
    throw bundled.reason
  }
  const browser = launched.value
  const bundle = bundled.value
  const script = bundle.text
  try {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    // Everything the page loads comes from here; any other request is refused.
    await page.route('**/*', (route) => {
      const { pathname, origin } = new URL(route.request().url())
      if (origin !== ORIGIN) return route.abort()
      if (pathname === '/runner.js')
        return route.fulfill({ contentType: 'text/javascript', body: script })
      if (pathname === '/') return route.fulfill({ contentType: 'text/html', body: PAGE })
      return route.fulfill({ status: 404, body: 'not found' })
    })
    await page.goto(`${ORIGIN}/`)
    await page
      .waitForFunction(() => 'runContract' in globalThis, undefined, { timeout: 15_000 })
      .catch((error: unknown) => {
        throw new Error(`the runner did not load: ${errors.join('; ') || String(error)}`, {
          cause: error,
        })
      })
    return {
      metafile: bundle.metafile,
      async run(request) {
        return results(
          await page.evaluate(
            (run) =>
              (
                globalThis as unknown as {
                  runContract(run: RunRequest): Promise<CheckResult[]>
                }
              ).runContract(run),
            request,
          ),
        )
      },
      stop: () => browser.close(),
    }
  } catch (error) {
    await browser.close()
    throw error
  }
}

/** Every runtime, and how to start it with the runner loaded. */
export const runtimes: Record<RuntimeName, () => Promise<RuntimeHost>> = {
  node: async () => ({ run: runContract, stop: async () => {} }),
  workerd: startWorkerd,
  chromium: startChromium,
}
