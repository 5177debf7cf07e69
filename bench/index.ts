/**
 * `npm run bench`: every benchmark, side by side, printed as one table. Numbers, never assertions.
 * `npm run bench -- relay` runs only the rows whose name contains "relay" (names: core, adapter,
 * relay, e2e, bundle, react, memory; several may be given).
 */
import { benchAdapterOverhead } from './adapter-overhead.ts'
import { benchBundles } from './bundles.ts'
import { benchCore } from './core.ts'
import { benchEndToEnd } from './end-to-end.ts'
import { printTable, type Row } from './harness.ts'
import { benchMemory } from './memory.ts'
import { benchReactRenders } from './react-renders.ts'
import { benchRelayCpu } from './relay-cpu.ts'

/** Listed in the order the table shows them; `runFirst` rows run before the others. */
const benches: readonly { name: string; run: () => Promise<Row[]>; runFirst?: boolean }[] = [
  { name: 'core', run: benchCore },
  { name: 'adapter', run: benchAdapterOverhead },
  { name: 'relay', run: benchRelayCpu },
  { name: 'e2e', run: benchEndToEnd },
  { name: 'bundle', run: benchBundles },
  { name: 'react', run: benchReactRenders },
  // Its baseline wants a heap with no other row's garbage in it.
  { name: 'memory', run: benchMemory, runFirst: true },
]

const filters = process.argv.slice(2).map((arg) => arg.toLowerCase())
const chosen = benches.filter(
  ({ name }) => filters.length === 0 || filters.some((filter) => name.includes(filter)),
)
if (chosen.length === 0) {
  const names = benches.map(({ name }) => name).join(', ')
  console.error(`No benchmark matches ${filters.join(', ')}; names: ${names}`)
  process.exit(2)
}

const started = performance.now()
const results = new Map<string, Row[]>()
for (const bench of [...chosen.filter((b) => b.runFirst), ...chosen.filter((b) => !b.runFirst)]) {
  const before = performance.now()
  results.set(bench.name, await bench.run())
  console.error(`${bench.name}: ${((performance.now() - before) / 1000).toFixed(1)} s`)
}
console.log()
printTable(chosen.flatMap(({ name }) => results.get(name) ?? []))
console.log(
  `\n${chosen.length} benchmarks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
)
