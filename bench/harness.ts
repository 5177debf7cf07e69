/**
 * Side-by-side measurement: variants run alternately, round after round, so that a noisy machine
 * slows them alike; each variant's figure is its median. No assertion depends on a time.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One way of doing the work. `run` returns how many events (or items) it processed. */
export type Variant = { name: string; run: () => Promise<number> | number }

/** One measured variant: median microseconds per event over the rounds, and every round's figure. */
export type Measured = { name: string; usPerEvent: number; events: number; samples: number[] }

const gc: (() => void) | undefined =
  typeof globalThis.gc === 'function' ? (globalThis.gc as () => void) : undefined

/**
 * Runs every variant once a round, `warmup` rounds untimed then `rounds` timed. A full GC first
 * (when node runs with `--expose-gc`, as `npm run bench` does) clears what earlier measurements
 * left; not between runs, which would shrink the young generation and slow every run alike.
 */
export async function measure(variants: Variant[], rounds = 7, warmup = 2): Promise<Measured[]> {
  gc?.()
  const samples = variants.map(() => [] as number[])
  const counts = variants.map(() => 0)
  for (let round = 0; round < warmup + rounds; round++) {
    // Rotate the order every round so no variant always runs first (or right after GC pressure).
    for (let k = 0; k < variants.length; k++) {
      const i = (k + round) % variants.length
      const start = performance.now()
      const events = await variants[i]!.run()
      const elapsed = performance.now() - start
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

/**
 * `a` over `b`: the median of the ratios of the same round, in which both ran back to back, so a
 * burst of load from elsewhere that slows one round slows both sides of its ratio.
 */
export function ratio(a: Measured, b: Measured): number {
  return median(a.samples.map((value, round) => value / b.samples[round]!))
}

export function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
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
