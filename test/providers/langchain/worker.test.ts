import { join } from 'node:path'
import { startBundledWorker, type BundledWorker } from '../../helpers/workerd.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromLangChain } from '../../../src/providers/langchain/index.ts'
import { collect } from './helpers.ts'
import { modelFor, type ScriptedChunk } from './worker-entry.ts'

let worker: BundledWorker | undefined

beforeAll(async () => {
  worker = await startBundledWorker(join(import.meta.dirname, 'worker-entry.ts'))
})

afterAll(async () => {
  await worker?.dispose()
})

const script: ScriptedChunk[] = [
  { content: '', additional_kwargs: { reasoning_content: 'Zwei und zwei … ' } },
  { content: [{ type: 'reasoning', reasoning: 'vier 🧮' }] },
  { content: 'Es ist ' },
  { content: 'vier.' },
  {
    content: '',
    tool_call_chunks: [
      { id: 'call_1', name: 'log', args: '{"n":', index: 0, type: 'tool_call_chunk' },
    ],
  },
  { content: '', tool_call_chunks: [{ args: ' 4}', index: 0, type: 'tool_call_chunk' }] },
  { usage: { input_tokens: 12, output_tokens: 9, total_tokens: 21 } },
]

describe('fromLangChain in a Worker', () => {
  it('streams thinking, text and a tool call from a LangChain model in workerd as in Node', async () => {
    const response = await worker!.mf.dispatchFetch('http://worker/', {
      method: 'POST',
      body: JSON.stringify(script),
    })
    expect(response.status).toBe(200)
    const inWorker: unknown = await response.json()
    const inNode = await collect(
      fromLangChain(modelFor(script)).stream({ turns: [{ role: 'user', content: '2 + 2?' }] }),
    )
    expect(inNode.map((event) => event.type)).toEqual([
      'thinking',
      'thinking',
      'text',
      'text',
      'tool-call',
      'done',
    ])
    expect(inWorker).toEqual(JSON.parse(JSON.stringify(inNode)))
  })
})
