import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RuntimeName } from './checks.ts'
import { adapters } from './adapters.ts'
import { baselineEvents, checksFor, type CheckResult } from './runner.ts'
import { runtimes, type RuntimeHost } from './runtimes.ts'

/**
 * Runs the whole contract once in `runtime` (one instance, every check of every adapter at once)
 * and gives each adapter one test that fails with the message of every check it failed there.
 */
export function describeRuntime(
  runtime: Exclude<RuntimeName, 'node'>,
  more?: (host: () => RuntimeHost) => void,
): void {
  describe(`adapter contract in ${runtime}`, () => {
    let host: RuntimeHost | undefined
    let results: CheckResult[] = []

    // Bundling, starting the runtime and running every check: generous, for a busy machine.
    beforeAll(async () => {
      const [started, baseline] = await Promise.all([runtimes[runtime](), baselineEvents()])
      host = started
      results = await host.run({ runtime, baseline })
    }, 120_000)

    afterAll(async () => {
      await host?.stop()
    })

    for (const entry of adapters) {
      it(`${entry.name}: every contract check passes in ${runtime}`, () => {
        const mine = results.filter((result) => result.adapter === entry.name)
        const failures = checksFor(runtime).flatMap((check) => {
          const result = mine.find((r) => r.check === check.name)
          if (result === undefined) return [`${check.name}: no result`]
          return result.ok ? [] : [`${check.name}: ${result.error ?? 'failed'}`]
        })
        expect(failures, `${entry.name} in ${runtime}`).toEqual([])
      })
    }

    more?.(() => {
      if (host === undefined) throw new Error(`${runtime} did not start`)
      return host
    })
  })
}
