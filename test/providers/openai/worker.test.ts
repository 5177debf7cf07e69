import { join } from 'node:path'
import { startBundledWorker, type BundledWorker } from '../../helpers/workerd.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, replayOnce } from './support.ts'

let worker: BundledWorker | undefined

beforeAll(async () => {
  worker = await startBundledWorker(join(import.meta.dirname, 'worker-entry.ts'))
})

afterAll(async () => {
  await worker?.dispose()
})

describe('openai in a Worker', () => {
  it('streams the same events in workerd as in Node', async () => {
    const body = fixture('reasoning-then-function-calls.sse')
    const response = await worker!.mf.dispatchFetch('http://worker/', { method: 'POST', body })
    expect(response.status).toBe(200)
    const inWorker: unknown = await response.json()
    const inNode = await replayOnce(body)
    expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode.events)))
  })
})
