import { join } from 'node:path'
import { startBundledWorker, type BundledWorker } from '../../helpers/workerd.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, compatibleWith, fixture } from './helpers.ts'

let worker: BundledWorker | undefined

beforeAll(async () => {
  worker = await startBundledWorker(join(import.meta.dirname, 'worker-entry.ts'))
})

afterAll(async () => {
  await worker?.dispose()
})

describe('openai-compatible in a Worker', () => {
  it.each([
    ['deepseek', 'deepseek-reasoner', 'deepseek-answer.sse', 'text'],
    ['deepseek', 'deepseek-reasoner', 'deepseek-tool-call.sse', 'tool-call'],
    ['groq', 'qwen/qwen3-32b', 'think-tags.sse', 'text'],
  ] as const)(
    'streams %s %s %s in workerd as in Node, thinking then %s',
    async (preset, model, name, kind) => {
      const body = fixture(name)
      const response = await worker!.mf.dispatchFetch(`http://worker/${preset}/${model}`, {
        method: 'POST',
        body,
      })
      expect(response.status).toBe(200)
      const inWorker: unknown = await response.json()
      const { adapter } = compatibleWith([{ body }], {
        ...presets[preset],
        model,
        apiKey: 'sk-test-key-0123456789',
      })
      const inNode = await collect(
        adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }),
      )
      expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
      expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
    },
  )
})
