import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInProcess } from './in-process.ts'
import { rssOf, runLoad, startLoadWorker, stopLoadWorker, type LoadWorker } from './run-load.ts'

// A modest load run; `npm run stress` runs 200 streams and prints the figures.

describe('load through the Worker in workerd', () => {
  let load: LoadWorker

  beforeAll(async () => {
    load = await startLoadWorker()
  })

  afterAll(async () => {
    await stopLoadWorker(load)
  })

  it('completes 50 concurrent streams on the mock byte-identical while 5 clients leave mid-way', async () => {
    const figures = await runLoad(load, { model: 'mock', streams: 50, label: 'test' })
    expect(figures.failed).toEqual([])
    expect(figures.mismatched).toEqual([])
    expect(figures.completed).toBe(45)
    expect(figures.calls.started).toBe(50)
    // A call whose end the Worker never saw (workerd tore its request down) or whose signal fired
    // belongs to a client that left; every other call finished.
    expect(figures.calls.running + (figures.calls.aborted ?? 0)).toBeLessThanOrEqual(figures.left)
    if (load.pid !== undefined) expect(rssOf(load.pid)).toBeGreaterThan(0)
  })

  it('leaves no provider connection open once 50 concurrent clients are done, 5 of them having left mid-way', async () => {
    const figures = await runLoad(load, { model: 'upstream', streams: 50, label: 'test' })
    expect(figures.failed).toEqual([])
    expect(figures.mismatched).toEqual([])
    expect(figures.completed).toBe(45)
    expect(figures.calls).toEqual({ started: 50, running: 0, aborted: undefined })
  })
})

// What the relay keeps of its streams once they end (requests, responses, heap) is a memory
// check: `npm run stress` runs it, with 600 streams.
describe('load through createRelay in Node', () => {
  it('aborts the upstream of exactly the clients that leave', async () => {
    const figures = await runInProcess(2, 100)
    expect(figures.streams).toBe(200)
    expect(figures.wrongAborts).toEqual([])
  })
})
