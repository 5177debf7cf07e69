import { join } from 'node:path'
import { startBundledWorker, type BundledWorker } from '../../helpers/workerd.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collect, fixture, geminiWith } from './helpers.ts'

let worker: BundledWorker | undefined

beforeAll(async () => {
  worker = await startBundledWorker(join(import.meta.dirname, 'worker-entry.ts'))
})

afterAll(async () => {
  await worker?.dispose()
})

describe('gemini in a Worker', () => {
  it.each([
    ['thinking-then-text.sse', 'text'],
    ['function-call-signed.sse', 'tool-call'],
  ])('streams %s in workerd as in Node, thinking then %s', async (name, kind) => {
    const body = fixture(name)
    const response = await worker!.mf.dispatchFetch('http://worker/', { method: 'POST', body })
    expect(response.status).toBe(200)
    const inWorker: unknown = await response.json()
    const inNode = await collect(
      geminiWith([{ body }]).adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }),
    )
    expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
    expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
  })
})
