import type { MockOptions } from '../../src/providers/mock/index.ts'

/**
 * The steady model of the load runs: the mock's default answer (thinking, then a quote of the
 * question), in small deltas with a pause before each, so that hundreds of streams overlap.
 */
export const LOAD_MODEL = { chunkSize: 6, delayMs: 3, repeat: 2 } as const satisfies MockOptions
