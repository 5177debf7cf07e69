/**
 * `npm run bench`: every benchmark, side by side, printed as one table. Numbers, never assertions.
 */
import { benchCore } from './core.ts'
import { printTable, type Row } from './harness.ts'

const rows: Row[] = []
rows.push(...(await benchCore()))
printTable(rows)
