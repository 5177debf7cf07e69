/**
 * `npm run bench`: every benchmark, side by side, printed as one table. Numbers, never assertions.
 * `npm run bench -- relay` runs only the rows whose name contains "relay" (names: core, calls,
 * adapter, relay, telemetry, completions, dialects, e2e, bundle, startup, react, memory,
 * conversations, agents; several may be given).
 *
 * Each row runs in a process of its own (node's flags passed on), so that its figures do not
 * depend on which rows ran before it: the code one row warmed up (or made polymorphic) and the
 * heap another left behind changed per-event figures by up to 40% when they shared a process.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { printTable, type Row } from './harness.ts'

/** Listed in the order the table shows them. */
const benches: readonly { name: string; run: () => Promise<Row[]> }[] = [
  { name: 'core', run: async () => (await import('./core.ts')).benchCore() },
  { name: 'calls', run: async () => (await import('./tool-calls.ts')).benchToolCalls() },
  {
    name: 'adapter',
    run: async () => (await import('./adapter-overhead.ts')).benchAdapterOverhead(),
  },
  { name: 'relay', run: async () => (await import('./relay-cpu.ts')).benchRelayCpu() },
  { name: 'telemetry', run: async () => (await import('./telemetry.ts')).benchTelemetry() },
  {
    name: 'completions',
    run: async () => (await import('./completions-cpu.ts')).benchCompletionsCpu(),
  },
  { name: 'dialects', run: async () => (await import('./dialects.ts')).benchDialects() },
  { name: 'e2e', run: async () => (await import('./end-to-end.ts')).benchEndToEnd() },
  { name: 'bundle', run: async () => (await import('./bundles.ts')).benchBundles() },
  { name: 'startup', run: async () => (await import('./worker-startup.ts')).benchWorkerStartup() },
  { name: 'react', run: async () => (await import('./react-renders.ts')).benchReactRenders() },
  { name: 'memory', run: async () => (await import('./memory.ts')).benchMemory() },
  {
    name: 'conversations',
    run: async () => (await import('./conversations.ts')).benchConversations(),
  },
  { name: 'agents', run: async () => (await import('./agent-loop.ts')).benchAgentLoop() },
]

/** Runs one row in a child process and receives its rows over IPC. */
function runAlone(name: string): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--row', name], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let rows: Row[] | undefined
    child.on('message', (message) => (rows = message as Row[]))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (rows !== undefined) resolve(rows)
      else reject(new Error(`bench '${name}' ended (${signal ?? code}) without its rows`))
    })
  })
}

const row = process.argv[2] === '--row' ? process.argv[3] : undefined
if (row !== undefined) {
  // In the child: run the one row, hand its rows to the parent, and let the channel close.
  const bench = benches.find(({ name }) => name === row)
  if (bench === undefined || process.send === undefined) throw new Error(`no bench '${row}'`)
  const rows = await bench.run()
  process.send(rows, () => process.disconnect())
} else {
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
  const rows: Row[] = []
  for (const bench of chosen) {
    const before = performance.now()
    rows.push(...(await runAlone(bench.name)))
    console.error(`${bench.name}: ${((performance.now() - before) / 1000).toFixed(1)} s`)
  }
  console.log()
  printTable(rows)
  console.log(
    `\n${chosen.length} benchmarks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  )
}
