import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { relay } from '../../src/client/index.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { withRetry } from '../../src/middleware/retry.ts'
import { parseSse } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from '../worker/start-worker.ts'
import { fault as faultNamed, type FaultName } from './faults.ts'
import { KEYS, KITS, type FaultKit } from './kits.ts'
import { eventually } from '../helpers/eventually.ts'
import { collect } from '../helpers/stream.ts'
import { drive } from './rig.ts'
import { expected, jsonStatus } from './table.ts'

// A subset of the fault matrix over real HTTP: the Worker as deployed, in workerd, serving each
// real adapter on a faulting upstream (test/faults/fixtures/fault-worker.ts), read by `relay()`.

const IDLE_TIMEOUT_MS = 300
let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker(
    {
      MOCK_MODELS: 'off',
      IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      HEARTBEAT_MS: '5000',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
      RATE_LIMIT_TOKENS_PER_MINUTE: '0',
    },
    'test/faults/fixtures/fault-worker.ts',
  )
})

afterAll(async () => {
  await worker?.dispose()
})

const ask: Conversation = { turns: [{ role: 'user', content: 'Quelle heure est-il ?' }] }
let nonce = 0

type CallReport = { model: string; requests: number; aborted: boolean; open: number }

/** What the Worker's upstream calls for `model` saw. */
async function callsOf(model: string): Promise<CallReport[]> {
  const all = (await (await worker.fetch('/v1/__faults/calls')).json()) as CallReport[]
  return all.filter((call) => call.model === model)
}

function client(kit: FaultKit, model: string) {
  return relay({ url: worker.url.origin, model: `${kit.provider}/${model}` })
}

const SUBSET: FaultName[] = [
  'http-429-retry-after',
  'http-500',
  'refused',
  'cut-after-first-event',
  'malformed-sse-line',
  'error-event',
  'ended-after-first-event',
  'stall-before-first-event',
  'stall-after-first-event',
  'abort-after-first-event',
]

describe.concurrent('fault matrix over HTTP, against the Worker in workerd', () => {
  for (const kit of KITS) {
    for (const name of SUBSET) {
      const fault = faultNamed(name)
      const { expect: want, relay: answer } = expected(kit, name)
      it(`${kit.name} × ${name}: ${want.kind} (${want.retryable ? 'retryable' : 'final'}), no done, the upstream closed`, async () => {
        const model = `${name}.${++nonce}`
        const id = `${kit.provider}/${model}`
        const controller = new AbortController()
        const outcome = await drive(client(kit, model).stream(ask, { signal: controller.signal }), {
          fault,
          controller,
          requested: () => false,
        })
        const { error, events } = outcome
        if (!isThinkwireError(error))
          throw new Error(`expected a ThinkwireError, got ${String(error)}`)
        expect({ kind: error.kind, retryable: error.retryable }).toEqual(want)
        expect(events.some((event) => event.type === 'done')).toBe(false)
        expect(events.length).toBe(fault.phase === 'after' ? 1 : 0)
        const status = jsonStatus(answer, want)
        if (status !== undefined) expect(error.status).toBe(status)
        if (name === 'http-429-retry-after') expect(error.retryAfterMs).toBe(1000)
        for (const key of Object.values(KEYS)) expect(error.message).not.toContain(key)

        await eventually(
          async () => {
            const [call] = await callsOf(id)
            return call !== undefined && call.open === 0
          },
          'the upstream connection to close',
          { ms: 3_000 },
        )
        const [call] = await callsOf(id)
        expect(call?.requests).toBe(1)
        if (fault.stalls === true || fault.abort !== undefined) expect(call?.aborted).toBe(true)
      })
    }

    it(`${kit.name}: ends a stream that fails after its first event with an SSE error event in place of done`, async () => {
      const response = await worker.fetch('/v1/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: `${kit.provider}/error-event.${++nonce}`,
          conversation: ask,
        }),
      })
      expect(response.status).toBe(200)
      const events = parseSse(await response.text()).events.map((e) => e.event)
      expect(events.at(-1)).toBe('error')
      expect(events).not.toContain('done')
    })

    it(`${kit.name}: a 503 before the first event is retried through the Worker, and the answer completes`, async () => {
      const reference = await collect(client(kit, `ok.${++nonce}`).stream(ask))
      expect(reference.at(-1)?.type).toBe('done')
      const model = `http-503.then-ok.${++nonce}`
      const retrying = withRetry(client(kit, model), { initialDelayMs: 1, random: () => 0 })
      expect(await collect(retrying.stream(ask))).toEqual(reference)
      expect(await callsOf(`${kit.provider}/${model}`)).toHaveLength(2)
    })
  }

  it('takes its idle timeout from IDLE_TIMEOUT_MS: a stalled upstream ends in a timeout error event', async () => {
    const response = await worker.fetch('/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: `anthropic/stall-after-first-event.${++nonce}`,
        conversation: ask,
      }),
    })
    const events = parseSse(await response.text()).events
    expect(events.map((e) => e.event)).toEqual(['text', 'error'])
    expect(JSON.parse(events[1]!.data)).toMatchObject({ kind: 'timeout', retryable: true })
  })
})
