import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropicTextAnswer } from '../contract/upstreams/anthropic.ts'
import { payloads, readSse } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker, type WorkerAnswers } from './start-worker.ts'

/** What the stand-in Anthropic API received. */
type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: unknown }

const ANSWER = anthropicTextAnswer('Via the gateway')

const seen: Seen[] = []
let upstream: Server
let upstreamUrl: string
let worker: TestWorker
let misconfigured: WorkerAnswers

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
      })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(ANSWER)
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/gateway/anthropic`
  worker = await startTestWorker({
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
    ANTHROPIC_BASE_URL: upstreamUrl,
    MOCK_MODELS: 'off',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
  })
  // The same Worker, answering as one started with a base URL that is not http(s).
  misconfigured = worker.withSettings({
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
    ANTHROPIC_BASE_URL: 'gateway.example.com/anthropic',
    MOCK_MODELS: 'off',
  })
})

afterAll(async () => {
  await worker?.dispose()
  await new Promise((resolve) => upstream?.close(resolve))
})

const chat = (target: WorkerAnswers) =>
  target.fetch('/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'anthropic/claude-haiku-4-5',
      conversation: { turns: [{ role: 'user', content: 'Hello' }] },
    }),
  })

describe('ANTHROPIC_BASE_URL', () => {
  it('sends Anthropic calls to the configured base URL, with the key, and streams the answer', async () => {
    const response = await chat(worker)
    expect(response.status).toBe(200)
    const events = payloads(await readSse(response))
    expect(events.filter((e) => e.event === 'text').map((e) => e.data)).toEqual([
      { text: 'Via the gateway' },
    ])
    expect(events.at(-1)?.event).toBe('done')
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/gateway/anthropic/v1/messages',
      body: { model: 'claude-haiku-4-5', stream: true },
    })
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-ant-test-key')
  })

  it('refuses to start with a base URL that is not http(s), naming the setting', async () => {
    const response = await chat(misconfigured)
    expect(response.status).toBe(500)
    const body = (await response.json()) as { error: { kind: string; message: string } }
    expect(body.error).toEqual({
      kind: 'server',
      message: 'ANTHROPIC_BASE_URL must be an http(s) URL',
    })
  })
})
