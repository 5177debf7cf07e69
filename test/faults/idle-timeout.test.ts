import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallOptions } from '../../src/core/adapter.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { startTestWorker, type TestWorker, type WorkerAnswers } from '../worker/start-worker.ts'

// The idle timeout is on by default wherever the relay runs: a provider that goes silent ends in a
// `timeout` error instead of holding the client (and the upstream call) forever. How each real
// adapter turns a stalled body into `timeout` is the stall column of the fault matrix.

const ask = { turns: [{ role: 'user', content: 'Hi' }] }

async function optionsSeenBy(
  relayOptions: Parameters<typeof createRelay>[0],
): Promise<CallOptions> {
  const adapter = mock()
  const relay = createRelay({ ...relayOptions, providers: { mock: [adapter] } })
  const response = await relay.fetch(
    new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', conversation: ask }),
    }),
  )
  await response.text()
  return adapter.calls[0]!.options
}

describe('idle timeout in createRelay', () => {
  it('passes 60 s upstream when no idleTimeoutMs is given', async () => {
    expect((await optionsSeenBy({})).idleTimeoutMs).toBe(60_000)
  })

  it('passes the configured idleTimeoutMs, and none when it is 0', async () => {
    expect((await optionsSeenBy({ idleTimeoutMs: 250 })).idleTimeoutMs).toBe(250)
    expect((await optionsSeenBy({ idleTimeoutMs: 0 })).idleTimeoutMs).toBeUndefined()
  })

  it('ends a stalled model with a timeout error event, not a silent open stream', async () => {
    const stall = mock({ script: [{ text: 'Un début', stallAfterEvents: 1 }], chunkSize: 100 })
    const relay = createRelay({ providers: { mock: [stall] }, idleTimeoutMs: 50 })
    const response = await relay.fetch(
      new Request('http://relay.test/v1/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', conversation: ask }),
      }),
    )
    const text = await response.text()
    expect(text).toMatch(/event: error\ndata: \{"kind":"timeout"/)
    expect(text).not.toContain('event: done')
    expect(stall.calls[0]!.signal.aborted).toBe(true)
  })
})

describe('idle timeout in the Worker', () => {
  const base = {
    MOCK_MODELS: 'off',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
  }
  let defaults: TestWorker

  beforeAll(async () => {
    defaults = await startTestWorker(base, 'test/faults/fixtures/fault-worker.ts')
  })

  afterAll(async () => {
    await defaults?.dispose()
  })

  async function idleTimeoutOf(worker: WorkerAnswers): Promise<unknown> {
    const response = await worker.fetch('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'record/idle', conversation: ask }),
    })
    expect(response.status).toBe(200)
    await response.text()
    return ((await (await worker.fetch('/v1/__faults/idle-timeouts')).json()) as unknown[]).at(-1)
  }

  it('ships IDLE_TIMEOUT_MS = 60000 in wrangler.toml and passes it upstream', async () => {
    expect(defaults.configVars['IDLE_TIMEOUT_MS']).toBe('60000')
    expect(await idleTimeoutOf(defaults)).toBe(60_000)
  })

  it('falls back to 60 s when IDLE_TIMEOUT_MS is empty', async () => {
    const unset = defaults.withSettings({ ...base, IDLE_TIMEOUT_MS: '' })
    expect(await idleTimeoutOf(unset)).toBe(60_000)
  })
})
