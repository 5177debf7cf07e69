/**
 * A test run prints the runner's report and nothing else: whatever a test writes to
 * `console.warn` or `console.error` (an SDK's deprecation notice, a React warning, a forgotten log)
 * fails that test, naming what was written. A test that expects such output spies on the console
 * itself (`vi.spyOn(console, 'warn').mockImplementation(...)`), which this watch never sees.
 */
import { format } from 'node:util'

/** The methods watched: what reaches the terminal's stderr. */
const WATCHED = ['warn', 'error'] as const

/** Starts recording what reaches `console.warn` / `console.error`; `stop()` restores them. */
export function watchConsole(): { stop(): void; written(): string[] } {
  const written: string[] = []
  const originals = WATCHED.map((method) => [method, console[method]] as const)
  for (const method of WATCHED) {
    console[method] = (...args: unknown[]) => {
      written.push(`console.${method}: ${format(...args)}`)
    }
  }
  return {
    stop() {
      for (const [method, original] of originals) console[method] = original
    },
    written: () => written,
  }
}

/** The error a test fails with when it wrote to the console. */
export function consoleError(written: readonly string[]): Error | undefined {
  if (written.length === 0) return undefined
  const shown = written.map((line) => (line.length > 500 ? `${line.slice(0, 500)}…` : line))
  return new Error(
    `the test wrote to the console (spy on it if that is expected):\n${shown.join('\n')}`,
  )
}
