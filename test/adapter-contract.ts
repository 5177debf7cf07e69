/**
 * The first wave's contract wiring, kept so the per-provider test files that still call it keep
 * compiling and running until they are deleted. The contract itself now lives in
 * `test/contract/` (checks, the one table of adapters, and the runtimes); this runs its eight
 * basic checks, under their old names, for one adapter.
 */
import { describe, it } from 'vitest'
import {
  basicChecks,
  type CheckContext,
  type ContractSetup as Setup,
  type Upstream,
} from './contract/checks.ts'

/** One adapter wired to a fake upstream. */
export type ContractHarness = Upstream

/** How one adapter's test file plugs into the shared contract. */
export type ContractSetup = Setup & {
  /** Contract tests this adapter cannot run, each with its reason. */
  skip?: { test: string; reason: string }[] | undefined
}

// The basic checks take nothing from the context; the cross-provider check, which does, runs
// only from test/contract/.
const context: CheckContext = {
  turns: () => Promise.reject(new Error('other adapters’ turns are made in test/contract/')),
}

/**
 * Runs the eight basic contract checks (DESIGN §1–2) against one adapter.
 * @deprecated Add the adapter to `test/contract/adapters.ts` instead.
 */
export function describeAdapterContract(name: string, setup: ContractSetup): void {
  const skipped = new Map((setup.skip ?? []).map((s) => [s.test, s.reason]))
  describe(`${name}: adapter contract`, () => {
    for (const check of basicChecks) {
      const reason = skipped.get(check.name)
      if (reason === undefined) it(check.name, () => check.run(setup, context))
      else it.skip(`${check.name} (skipped: ${reason})`, () => {})
    }
  })
}
