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

export async function measure(variants: Variant[], rounds = 7, warmup = 2): Promise<Measured[]> {
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

/** A row of the printed table. */
export type Row = { section: string; name: string; value: string; note?: string | undefined }

export function printTable(rows: Row[]): void {
  const widths = [0, 0, 0]
  for (const row of rows) {
    widths[0] = Math.max(widths[0]!, row.section.length)
    widths[1] = Math.max(widths[1]!, row.name.length)
    widths[2] = Math.max(widths[2]!, row.value.length)
  }
  let section = ''
  for (const row of rows) {
    const head = row.section === section ? '' : row.section
    section = row.section
    console.log(
      `${head.padEnd(widths[0]!)}  ${row.name.padEnd(widths[1]!)}  ${row.value.padStart(widths[2]!)}  ${row.note ?? ''}`.trimEnd(),
    )
  }
}

export const fmt = (n: number, digits = 2): string => n.toFixed(digits)

/** True when the module at `url` is the script node was started with (`npx tsx bench/x.ts`). */
export function isMain(url: string): boolean {
  const script = process.argv[1]
  return script !== undefined && fileURLToPath(url) === resolve(script)
}
