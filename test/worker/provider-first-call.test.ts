import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropicModels } from '../../src/providers/anthropic/models.ts'
import { payloads, readSse } from '../relay/sse-reader.ts'
import { anthropicTextAnswer } from '../contract/upstreams/anthropic.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

// The Worker loads a provider's SDK when the provider first streams (worker/registry.ts): here,
// in workerd, its models are listed before that, and the first call, which loads the SDK, fails
// as it always did, mapped by the SDK's error classes; the next streams.

const KEY = 'sk-ant-first-call-key'

const ANSWER = anthropicTextAnswer('Loaded')

/** Requests the stand-in Anthropic API received: the first is refused, every later one answered. */
let calls = 0
let upstream: Server
let worker: TestWorker

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      if (calls++ === 0) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
        const error = { type: 'rate_limit_error', message: 'Number of requests has exceeded' }
        response.end(JSON.stringify({ type: 'error', error }))
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(ANSWER)
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const { port } = upstream.address() as AddressInfo
  worker = await startTestWorker({
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    MOCK_MODELS: 'off',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
  })
})

afterAll(async () => {
  await worker?.dispose()
  await new Promise((resolve) => upstream?.close(resolve))
})

const chat = () =>
  worker.fetch('/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'anthropic/claude-haiku-4-5',
      conversation: { turns: [{ role: 'user', content: 'Hello' }] },
    }),
  })

describe("a configured provider's first calls in workerd", () => {
  it('lists its models with their capabilities and prices before any call', async () => {
    const { models } = (await (await worker.fetch('/v1/models')).json()) as {
      models: { id: string; thinking?: unknown; pricing?: unknown }[]
    }
    const haiku = models.find((model) => model.id === 'anthropic/claude-haiku-4-5')
    expect(haiku?.thinking).toMatchObject({ mode: 'budget' })
    expect(haiku?.pricing).toBeDefined()
    const anthropic = models.filter((model) => model.id.startsWith('anthropic/'))
    expect(anthropic.map((model) => model.id)).toEqual(
      anthropicModels.map((id) => `anthropic/${id}`),
    )
    expect(calls).toBe(0)
  })

  it('maps a refusal of the first call, which loads the SDK, as before', async () => {
    const response = await chat()
    expect(response.status).toBe(429)
    const text = await response.text()
    expect(JSON.parse(text)).toMatchObject({ error: { kind: 'rate-limit' } })
    expect(text).not.toContain(KEY)
    expect(calls).toBe(1)
  })

  it('streams the next call through the loaded SDK', async () => {
    const response = await chat()
    expect(response.status).toBe(200)
    const events = payloads(await readSse(response))
    expect(events.filter((event) => event.event === 'text').map((event) => event.data)).toEqual([
      { text: 'Loaded' },
    ])
    expect(events.at(-1)?.event).toBe('done')
  })
})
