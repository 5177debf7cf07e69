/**
 * `npm run stress`: the long runs behind the fuzz and load tests, with their figures.
 *
 * 1. The relay over HTTP, fuzzed (method, path, origin, authorization, content-type,
 *    content-length, body), 10,000+ cases, each answered with its predicted status.
 * 2. SSE under random chunk boundaries: random events through the relay's encoder and `relay()`,
 *    thinkwire's parser against eventsource-parser on random streams, and every provider fixture
 *    cut at many points at once.
 * 3. Memory: the stream guard keeps no event alive, and the relay in Node keeps nothing of its
 *    streams (requests, responses, heap) once they end.
 * 4. Misuse at scale: matching tool results to calls in a 1 MiB body costs what a benign body of the
 *    same size does; many parallel calls against one token window; refusals counted.
 * 5. Load: 200 concurrent streams through the Worker in workerd, a tenth of the clients leaving
 *    mid-way, on the mock model and on a real adapter calling a loopback provider, in several
 *    bursts, with the workerd process's resident memory after each.
 *
 * Seeds are fixed (so a failure reproduces) unless STRESS_SEED is set. FUZZ_CASES and
 * LOAD_STREAMS change the sizes. Exits with 1 when any check fails.
 */
import fc from 'fast-check'
import { fuzzRelayHttp } from '../test/fuzz/relay-http.ts'
import {
  fixtureChunkingProperty,
  providerFixtures,
  relayChunkingProperty,
} from '../test/fuzz/sse-chunking.ts'
import { sameAsReference } from '../test/fuzz/sse-parser.ts'
import { guardRetention } from '../test/load/guard-retention.ts'
import { runInProcess } from '../test/load/in-process.ts'
import { parallelAdmission, refusalsCounted, validationRatio } from '../test/load/misuse.ts'
import {
  rssOf,
  runLoad,
  startLoadWorker,
  stopLoadWorker,
  type LoadFigures,
} from '../test/load/run-load.ts'

const seed = Number(process.env['STRESS_SEED'] ?? 20_260_702)
const fuzzCases = Number(process.env['FUZZ_CASES'] ?? 10_000)
const loadStreams = Number(process.env['LOAD_STREAMS'] ?? 200)
const LOAD_BURSTS = 3
const WARM_UP_ROUNDS = 8
/** A warm-up round that adds less than this to workerd's resident memory means it is warm. */
const RSS_STEP = 12 * 1024 * 1024
/** Growth of workerd's resident memory across the measured rounds that counts as a leak. */
const RSS_TOLERANCE = 48 * 1024 * 1024

const failures: string[] = []
const mib = (bytes: number | undefined) =>
  bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`

async function step(name: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now()
  process.stdout.write(`\n== ${name}\n`)
  try {
    await run()
    process.stdout.write(`   ok in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
  } catch (error) {
    failures.push(name)
    process.stdout.write(`   FAILED: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}

await step(`relay over HTTP, fuzzed: ${fuzzCases} cases, seed ${seed}`, async () => {
  const stats = await fuzzRelayHttp(fuzzCases, seed)
  const statuses = Object.entries(stats.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ')
  process.stdout.write(`   ${stats.cases} requests; statuses ${statuses}\n`)
  process.stdout.write(`   ${stats.modelCalls} model calls, each checked against the contract\n`)
})

await step(`SSE: relay encoder → relay() under random chunkings, seed ${seed}`, async () => {
  const runs = 2_000
  await fc.assert(relayChunkingProperty(5), { numRuns: runs, seed })
  process.stdout.write(`   ${runs} random event lists × 5 chunkings each, all identical\n`)
})

await step(`SSE: thinkwire's parser against eventsource-parser, seed ${seed}`, async () => {
  const runs = 100_000
  fc.assert(sameAsReference, { numRuns: runs, seed })
  process.stdout.write(`   ${runs} random streams, each cut at random points, all identical\n`)
})

await step(`SSE: provider fixtures under random multi-point chunkings, seed ${seed}`, async () => {
  const fixtures = providerFixtures()
  const runs = 300
  for (const fixture of fixtures) await fixtureChunkingProperty(fixture, runs, seed)
  process.stdout.write(`   ${fixtures.length} fixtures × ${runs} chunkings, all identical\n`)
})

await step('memory: guardStream keeps no event alive once the consumer dropped it', async () => {
  const results = await guardRetention()
  for (const { name, retained } of results) {
    process.stdout.write(`   ${name}: ${retained} of 10 dropped events still reachable\n`)
  }
  const held = results.filter((result) => result.retained !== 0)
  if (held.length > 0) throw new Error(`events held with ${held.map((r) => r.name).join('; ')}`)
})

await step('misuse: bounded validation, reserved budgets, counted refusals', async () => {
  const { ratio, bytes } = validationRatio(10_000)
  process.stdout.write(
    `   10,000 calls answered by 10,000 results in one turn pair (${mib(bytes)}): ${ratio.toFixed(2)}x` +
      ' the time of the same calls one per turn\n',
  )
  if (ratio > 2) throw new Error(`matching results to calls is not linear (${ratio.toFixed(1)}x)`)
  const { admitted, refused } = await parallelAdmission(500, 4000, 200_000)
  process.stdout.write(
    `   500 parallel calls reserving 4,000 tokens each against a 200,000-token minute: ${admitted} admitted, ${refused} refused\n`,
  )
  if (admitted !== 49) throw new Error(`${admitted} admitted where 49 fit`)
  const counted = await refusalsCounted(1000, 100)
  process.stdout.write(
    `   1,000 bad bodies against 100 requests a minute: ${counted} answered 400, the rest 429\n`,
  )
  if (counted !== 100) throw new Error(`${counted} refusals were free`)
})

await step(
  `load in Node: createRelay, ${LOAD_BURSTS} bursts of ${loadStreams} streams`,
  async () => {
    const figures = await runInProcess(LOAD_BURSTS, loadStreams)
    process.stdout.write(
      `   ${figures.streams} streams; heap ${mib(figures.heapBaseline)} before, ${mib(figures.heapAfter)} after;` +
        ` ${figures.retained} requests or responses still reachable; ${figures.wrongAborts.length} wrong aborts\n`,
    )
    if (figures.wrongAborts.length > 0) throw new Error(figures.wrongAborts.slice(0, 3).join('; '))
    if (figures.retained > 0) throw new Error(`${figures.retained} requests or responses leaked`)
    if (figures.heapAfter - figures.heapBaseline > 8 * 1024 * 1024) throw new Error('the heap grew')
  },
)

await step(`load: ${loadStreams} concurrent streams per model in workerd`, async () => {
  const load = await startLoadWorker()
  try {
    const problems: string[] = []
    const report = (name: string, figures: LoadFigures) => {
      const { calls } = figures
      const upstream =
        figures.model === 'upstream'
          ? `provider connections opened ${calls.started}, still open ${calls.running}`
          : `model calls ${calls.started}, signals aborted ${calls.aborted},` +
            ` torn down by workerd without a signal ${calls.running}`
      process.stdout.write(
        `   ${figures.model} ${name}: ${figures.completed}/${figures.streams - figures.left} complete,` +
          ` ${figures.mismatched.length} differ, ${figures.failed.length} failed,` +
          ` ${figures.left} left mid-way, ${figures.wallMs} ms; ${upstream};` +
          ` workerd RSS ${mib(rssOf(load.pid))}\n`,
      )
      const at = `${figures.model} ${name}`
      if (figures.failed.length > 0)
        problems.push(`${at}: ${figures.failed.slice(0, 3).join('; ')}`)
      if (figures.mismatched.length > 0)
        problems.push(`${at}: ${figures.mismatched.length} streams differ`)
      if (figures.completed !== figures.streams - figures.left)
        problems.push(`${at}: not every staying client completed`)
      if (calls.started !== figures.streams)
        problems.push(`${at}: ${calls.started} upstream calls for ${figures.streams} streams`)
      if (figures.model === 'upstream' && calls.running !== 0) {
        problems.push(`${at}: ${calls.running} provider connections outlived their clients`)
      }
      if (figures.model === 'mock' && calls.running + (calls.aborted ?? 0) > figures.left) {
        problems.push(`${at}: a call of a client that stayed did not finish`)
      }
    }
    process.stdout.write(
      `   workerd pid ${load.pid ?? 'unknown'}, RSS at start ${mib(rssOf(load.pid))}\n`,
    )
    const round = async (label: string) => {
      for (const model of ['mock', 'upstream'] as const) {
        report(label, await runLoad(load, { model, streams: loadStreams, label }))
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
      return rssOf(load.pid)
    }
    // workerd's heap grows to a working size and stays there; a leak keeps growing. Warm up
    // until a round adds little (at most WARM_UP_ROUNDS rounds), then measure.
    let baseline = await round('warm-up 1')
    for (let n = 2; n <= WARM_UP_ROUNDS; n++) {
      const next = await round(`warm-up ${n}`)
      const settled = baseline !== undefined && next !== undefined && next - baseline < RSS_STEP
      baseline = next
      if (settled) break
    }
    process.stdout.write(`   baseline RSS once warm: ${mib(baseline)}\n`)
    let final = baseline
    for (let burst = 1; burst <= LOAD_BURSTS; burst++) final = await round(`burst ${burst}`)
    if (baseline !== undefined && final !== undefined) {
      const grown = final - baseline
      process.stdout.write(
        `   RSS after ${LOAD_BURSTS} more rounds (${2 * LOAD_BURSTS * loadStreams} streams): ${mib(final)}` +
          ` (${grown >= 0 ? '+' : ''}${mib(grown)} over the baseline)\n`,
      )
      if (grown > RSS_TOLERANCE) problems.push(`workerd RSS grew by ${mib(grown)}`)
    }
    if (problems.length > 0) throw new Error(problems.join('\n   '))
  } finally {
    await stopLoadWorker(load)
  }
})

process.stdout.write(
  failures.length === 0 ? '\nstress: all passed\n' : `\nstress: FAILED: ${failures.join(', ')}\n`,
)
process.exit(failures.length === 0 ? 0 : 1)
