import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { relay } from '../../src/client/index.ts'
import { Chat } from '../../src/core/chat.ts'
import { complete } from '../../src/core/complete.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { startTestWorker, type TestWorker } from '../worker/start-worker.ts'
import { collect, failure } from './helpers.ts'

// The relay client over real HTTP, against the Worker running in workerd.
let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker({
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    SEAL_KEYS: 'client-test-seal-key-Qm4Rt8Wz2Xc6Vb0Nk',
    HEARTBEAT_MS: '100',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  })
})

afterAll(async () => {
  await worker?.dispose()
})

const ask: Conversation = { turns: [{ role: 'user', content: 'Hello over HTTP ✓' }] }
const client = (model: string) => relay({ url: worker.url.origin, model })

describe('relay client over HTTP to the Worker in workerd', () => {
  it('streams a turn whose sealed items the Worker accepts and replays on the next turn', async () => {
    const chat = new Chat({ adapter: client('mock/echo') })
    const events = await collect(chat.send('Hello over HTTP ✓'))
    expect(events.map((e) => e.type)).toContain('thinking')
    expect(events.at(-1)?.type).toBe('done')
    const first = chat.conversation.turns[1]
    expect(first).toMatchObject({ role: 'assistant', items: { provider: 'mock', model: 'echo' } })
    expect(first?.role === 'assistant' && typeof first.items?.seal).toBe('string')
    expect(first?.role === 'assistant' && first.text).toContain('"Hello over HTTP ✓"')
    await collect(chat.send('And again'))
    expect(chat.status).toBe('ready')
    expect(chat.conversation.turns).toHaveLength(4)
  })

  it('turns an error event after the first text into a ThinkwireError, with no done', async () => {
    const { events, error } = await failure(client('test/break').stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'partial answer' }])
    expect(error).toMatchObject({ kind: 'server', provider: 'test' })
  })

  it('turns a refused call into a rate-limit error with retryAfterMs and status 429', async () => {
    const { error } = await failure(client('test/refuse').stream(ask))
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 7000 })
  })

  it('aborts the call, and the Worker cancels the upstream model call', async () => {
    const before = (await (await worker.fetch('/v1/__test/stall-calls')).json()) as unknown[]
    const controller = new AbortController()
    const seen: Event[] = []
    const { error } = await failure(
      (async function* () {
        for await (const event of client('test/stall').stream(ask, { signal: controller.signal })) {
          seen.push(event)
          yield event
          controller.abort()
        }
      })(),
    )
    expect(seen).toEqual([{ type: 'thinking', text: 'Thinking about it' }])
    expect(error).toMatchObject({ kind: 'aborted' })
    await expect
      .poll(async () => {
        const calls = (await (await worker.fetch('/v1/__test/stall-calls')).json()) as {
          aborted: boolean
        }[]
        return calls.length > before.length && calls.at(-1)?.aborted === true
      })
      .toBe(true)
  })

  it('completes on a model that pauses between deltas', async () => {
    const turn = await complete(client('test/slow'), ask, { idleTimeoutMs: 5000 })
    expect(turn.text).toContain('"Hello over HTTP ✓"')
  })
})
