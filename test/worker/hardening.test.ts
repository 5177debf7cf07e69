/**
 * The relay's hardening where the runtime matters: the Worker in workerd over real HTTP, with a
 * heartbeat far longer than any wait here, so nothing below can pass on the heartbeat's account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readUntil } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-hardening-0123456789'
let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker({
    RELAY_TOKENS: TOKEN,
    MOCK_DELAY_MS: '0',
    MOCK_MODELS: 'on',
    HEARTBEAT_MS: '60000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  })
})

afterAll(async () => {
  await worker?.dispose()
})

/** A request body that sends `first` and then never ends. */
function endless(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first))
    },
    pull: () => new Promise(() => {}),
  })
}

describe('the Worker under misuse', () => {
  it('answers 401, 404 and 405 while the body is still coming', async () => {
    const cases: [string, string, Record<string, string>, number][] = [
      ['/v1/chat', 'POST', {}, 401],
      ['/v1/nothing', 'POST', { authorization: `Bearer ${TOKEN}` }, 404],
      ['/v1/models', 'PUT', { authorization: `Bearer ${TOKEN}` }, 405],
    ]
    for (const [path, method, headers, status] of cases) {
      const controller = new AbortController()
      const response = await worker.fetch(path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: endless('{"model":'),
        signal: controller.signal,
        // @ts-expect-error: Node's fetch needs it for a streamed body; the DOM types lack it.
        duplex: 'half',
      })
      expect(response.status).toBe(status)
      controller.abort()
    }
  })

  it('stops a silent upstream when the client leaves, long before a heartbeat would notice', async () => {
    const before = (await (await worker.fetch('/v1/__test/stall-calls')).json()) as unknown[]
    const controller = new AbortController()
    const response = await worker.fetch('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        model: 'test/stall',
        conversation: { turns: [{ role: 'user', content: 'Hi' }] },
      }),
      signal: controller.signal,
    })
    await readUntil(response, (seen) => seen.events.length >= 1)
    controller.abort()
    // Polled for at most 5 s; the next heartbeat would come after 60 s.
    let calls: { aborted: boolean }[] = []
    for (let i = 0; i < 100; i++) {
      calls = (await (await worker.fetch('/v1/__test/stall-calls')).json()) as {
        aborted: boolean
      }[]
      if (calls.length > before.length && calls.at(-1)!.aborted) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(calls).toHaveLength(before.length + 1)
    expect(calls.at(-1)!.aborted).toBe(true)
  })
})
