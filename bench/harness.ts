/**
 * Side-by-side measurement: variants run alternately, round after round, so that a noisy machine
 * slows them alike; each variant's figure is its median, in CPU time. No assertion depends on a
 * time.
 */
import { existsSync, openSync, readSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One way of doing the work. `run` returns how many events (or items) it processed. */
export type Variant = { name: string; run: () => Promise<number> | number }

/** One measured variant: median microseconds per event over the rounds, and every round's figure. */
export type Measured = { name: string; usPerEvent: number; events: number; samples: number[] }

const gc: (() => void) | undefined =
  typeof globalThis.gc === 'function' ? (globalThis.gc as () => void) : undefined

const SCHEDSTAT = '/proc/thread-self/schedstat'
const schedstat = existsSync(SCHEDSTAT) ? openSync(SCHEDSTAT, 'r') : undefined
const line = Buffer.alloc(64)
const nap = new Int32Array(new SharedArrayBuffer(4))

/**
 * What every timed figure is read with: the CPU time of the thread that runs the bench (Linux: the
 * first field of `/proc/thread-self/schedstat`, in ns), else the whole process's (user + system).
 * Time spent descheduled by other load does not count, nor does the work of V8's helper threads
 * (concurrent marking, background compiling), which lands on whichever run happens to be next;
 * what the main thread spends in the GC does. Node 20 has no `process.threadCpuUsage`.
 * `BENCH_CLOCK=wall` reads `performance.now()` instead, to compare the two under load.
 */
export const clock: { name: string; ms(): number } =
  process.env['BENCH_CLOCK'] === 'wall'
    ? { name: 'wall time', ms: () => performance.now() }
    : {
        name: schedstat === undefined ? 'process CPU' : 'thread CPU',
        ms() {
          if (schedstat === undefined) {
            const { user, system } = process.cpuUsage()
            return (user + system) / 1000
          }
          // The kernel brings a running thread's total up to date only at a tick or a switch
          // (steps of 1-4 ms here); a 20 µs sleep switches the thread out, so the figure is exact
          // to a few µs (a 1 µs one left it stale one read in six). A read costs about 45 µs.
          Atomics.wait(nap, 0, 0, 0.02)
          const read = readSync(schedstat, line, 0, line.length, 0)
          const text = line.toString('latin1', 0, read)
          return Number(text.slice(0, text.indexOf(' '))) / 1e6
        },
      }

/** How {@link measure} treats the heap. */
export type MeasureOptions = {
  /**
   * `'once'`: a full GC before the first round only (not between runs, which would shrink the
   * young generation and slow every run alike). `'each'`: before every run, so that no variant
   * pays for the garbage of the one before it (for variants that allocate very differently).
   * @defaultValue 'once'
   */
  collect?: 'once' | 'each' | undefined
}

/**
 * Runs every variant once a round, `warmup` rounds untimed then `rounds` timed, and reads the
 * {@link clock} around each run. A full GC first (when node runs with `--expose-gc`, as
 * `npm run bench` does) clears what earlier measurements left. Give each run at least about 10
 * ms of CPU (batch short ones): the clock's own reads then weigh under 1%.
 */
export async function measure(
  variants: Variant[],
  rounds = 7,
  warmup = 2,
  options: MeasureOptions = {},
): Promise<Measured[]> {
  const each = options.collect === 'each'
  gc?.()
  const samples = variants.map(() => [] as number[])
  const counts = variants.map(() => 0)
  for (let round = 0; round < warmup + rounds; round++) {
    // Rotate the order every round so no variant always runs first (or right after GC pressure).
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length
      if (each) gc?.()
      const start = clock.ms()
      const events = await variants[i]!.run()
      const elapsed = clock.ms() - start
      if (round >= warmup) {
        samples[i]!.push((elapsed * 1000) / Math.max(1, events))
        counts[i] = events
      }
    }
  }
  return variants.map((v, i) => ({
    name: v.name,
    usPerEvent: median(samples[i]!),
    events: counts[i]!,
    samples: samples[i]!,
  }))
}

/** `a` over `b` in every round, in which both ran back to back. */
export function ratios(a: Measured, b: Measured): number[] {
  return a.samples.map((value, round) => value / b.samples[round]!)
}

/**
 * `a` over `b`: the median of the ratios of the same round, so a burst of load from elsewhere
 * that slows one round slows both sides of its ratio.
 */
export function ratio(a: Measured, b: Measured): number {
  return median(ratios(a, b))
}

/** `1.32x (middle half 1.29-1.35x)`: the median ratio of `a` over `b` and its spread. */
export function ratioSpread(a: Measured, b: Measured): string {
  const each = ratios(a, b)
  return `${fmt(median(each))}x (middle half ${middleHalf(each)}x)`
}

export function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The mean of `values` without the `share` lowest and the `share` highest: a moment the machine
 * spent elsewhere (another object evicted, a collection) lands on one sample, and is left out on
 * both sides alike.
 */
export function trimmedMean(values: number[], share = 0.1): number {
  const sorted = values.toSorted((a, b) => a - b)
  const cut = Math.floor(sorted.length * share)
  const kept = sorted.slice(cut, sorted.length - cut)
  return kept.reduce((sum, value) => sum + value, 0) / kept.length
}

/** The middle half of `values`, as `low-high`: how much the machine moved them. */
export function middleHalf(values: number[], digits = 2): string {
  const sorted = values.toSorted((a, b) => a - b)
  const quarter = Math.floor(sorted.length / 4)
  return `${fmt(sorted[quarter]!, digits)}-${fmt(sorted[sorted.length - 1 - quarter]!, digits)}`
}

/**
 * A row of the printed table: one value, or one per column (e.g. per read size), with a note.
 * Rows with several values line their columns up with the rows around them.
 */
export type Row = {
  section: string
  name: string
  value: string | readonly string[]
  note?: string | undefined
}

export function printTable(rows: Row[]): void {
  const valuesOf = (row: Row) => (typeof row.value === 'string' ? [row.value] : row.value)
  let name = 0
  const widths: number[] = []
  for (const row of rows) {
    name = Math.max(name, row.name.length)
    valuesOf(row).forEach((value, i) => (widths[i] = Math.max(widths[i] ?? 0, value.length)))
  }
  // Each section on a line of its own, its rows indented below it.
  let section: string | undefined
  for (const row of rows) {
    if (row.section !== section) console.log(`${section === undefined ? '' : '\n'}${row.section}`)
    section = row.section
    const values = valuesOf(row).map((value, i) => value.padStart(widths[i]!))
    console.log(['', row.name.padEnd(name), ...values, row.note ?? ''].join('  ').trimEnd())
  }
}

/**
 * A measured ratio beside its target, e.g. `1.32x ok` or `1.71x MISSED`: `limit` is the most the
 * ratio may be (`at: 'most'`) or the least (`at: 'least'`).
 */
export function verdict(value: number, limit: number, at: 'most' | 'least' = 'most'): string {
  const met = at === 'most' ? value <= limit : value >= limit
  return `${fmt(value)}x ${met ? 'ok' : 'MISSED'}`
}

/** `target ≤ 1.5x: 1.32x ok, 1.71x MISSED`, one verdict per read size. */
export function targetNote(
  label: string,
  values: readonly number[],
  limit: number,
  at: 'most' | 'least' = 'most',
): string {
  const sign = at === 'most' ? '≤' : '≥'
  return `${label} ${values.map((v) => verdict(v, limit, at)).join(', ')} (target ${sign} ${limit}x)`
}

export const fmt = (n: number, digits = 2): string => n.toFixed(digits)

/** True when the module at `url` is the script node was started with (`npx tsx bench/x.ts`). */
export function isMain(url: string): boolean {
  const script = process.argv[1]
  return script !== undefined && fileURLToPath(url) === resolve(script)
}
