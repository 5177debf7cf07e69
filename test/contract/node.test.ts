import { describe, it } from 'vitest'
import { foreignTurns } from './checks.ts'
import { adapters } from './adapters.ts'
import { checksFor } from './runner.ts'

// The contract in Node: one named test per adapter and check, run concurrently (each check builds
// its own upstream; the turns for the cross-provider check are made once and shared).
const context = { turns: foreignTurns(adapters) }

describe.concurrent('adapter contract in Node', () => {
  for (const entry of adapters) {
    for (const check of checksFor('node')) {
      it(`${entry.name}: ${check.name}`, () => check.run(entry, context))
    }
  }
})
