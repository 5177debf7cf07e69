import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { relay } from '../../src/client/index.ts'
import type { CallOptions } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { everySplit, replayFetch, sse, type ReplaySpec } from '../helpers/replay-fetch.ts'
import { collect, failure, RELAY_URL } from './helpers.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Hi' }] }

function client(spec: ReplaySpec | ReplaySpec[]) {
  const replay = replayFetch(Array.isArray(spec) ? spec : [spec])
  const adapter = relay({ url: RELAY_URL, model: 'mock/echo', fetch: replay.fetch })
  return { adapter, replay }
}

/**
 * A relay client whose answer body sends `text` and then neither ends nor heeds the request's
 * signal (as a proxy may keep it open, or an in-process fetch ignore an abort); `cancelled()` says
 * whether the client cancelled it.
 */
function clientOfOpenBody(text: string) {
  let cancelled = false
  const fetch = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text))
        },
        pull: () => new Promise<void>(() => {}),
        cancel() {
          cancelled = true
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    )
  return {
    adapter: relay({ url: RELAY_URL, model: 'mock/echo', fetch }),
    cancelled: () => cancelled,
  }
}

const turn = {
  role: 'assistant',
  text: 'Hi',
  usage: { inputTokens: 3, outputTokens: 1 },
  stopReason: 'stop',
  items: { provider: 'mock', model: 'echo', thinkingMode: 'default', data: [{ any: 'thing' }] },
}

describe('relay client on the wire', () => {
  /** Bytes the relay really wrote, with a heartbeat and an event this client does not know. */
  let body = ''
  let reference: Event[] = []

  beforeAll(async () => {
    const server = createRelay({
      providers: {
        mock: [
          mock({
            chunkSize: 3,
            script: [
              {
                thinking: 'Dvě a dvě… 🤔 ',
                text: 'Čtyři: 4 ✓ 你好\nline two 🎉',
                toolCalls: [{ id: 'c1', name: 'log', input: { note: 'é\r\n"quoted"' } }],
              },
            ],
          }),
        ],
      },
    })
    const response = await server.fetch(
      new Request(`${RELAY_URL}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', conversation: ask }),
      }),
    )
    const wire = await response.text()
    const second = wire.indexOf('\n\n') + 2
    body = `${wire.slice(0, second)}: ping\n\nid: 99\nevent: future-event\ndata: {"x":1}\n\n${wire.slice(second)}`
    reference = await collect(client({ body }).adapter.stream(ask))
  })

  it('reads the relay wire format into the same events as the relay sent', () => {
    const types = reference.map((e) => e.type)
    expect(types.at(-1)).toBe('done')
    expect(types).toContain('thinking')
    expect(types).toContain('tool-call')
    const text = reference.map((e) => (e.type === 'text' ? e.text : '')).join('')
    expect(text).toBe('Čtyři: 4 ✓ 你好\nline two 🎉')
    expect(reference.find((e) => e.type === 'tool-call')).toEqual({
      type: 'tool-call',
      call: { id: 'c1', name: 'log', input: { note: 'é\r\n"quoted"' } },
    })
  })

  it('gives identical events for a split at every byte offset', async () => {
    const splits = everySplit(body)
    expect(splits.length).toBeGreaterThan(500)
    for (const splitAt of splits) {
      const events = await collect(client({ body, splitAt }).adapter.stream(ask))
      expect(events).toEqual(reference)
    }
  })

  it('gives identical events one byte at a time', async () => {
    const events = await collect(client({ body, splitAt: 'bytes' }).adapter.stream(ask))
    expect(events).toEqual(reference)
  })

  it(
    'gives identical events for random chunkings',
    async () => {
      const length = new TextEncoder().encode(body).length
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: length - 1 }), { maxLength: 40 }),
          async (splitAt) => {
            const events = await collect(client({ body, splitAt }).adapter.stream(ask))
            expect(events).toEqual(reference)
          },
        ),
        { numRuns: 300, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('passes the done turn through untouched, items included', async () => {
    const { adapter } = client({
      body: sse([
        ['text', { text: 'Hi' }],
        ['done', { turn }],
      ]),
    })
    const events = await collect(adapter.stream(ask))
    expect(events).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'done', turn },
    ])
  })

  it("builds the done turn's text, thinking and tool calls from the events, as every adapter does", async () => {
    // A relay never sends a done that disagrees with its events; if one did, the events win.
    const { adapter } = client({
      body: sse([
        ['thinking', { text: 'Hm' }],
        ['text', { text: 'Hello' }],
        ['done', { turn: { ...turn, text: 'something else', thinking: 'other' } }],
      ]),
    })
    const events = await collect(adapter.stream(ask))
    expect(events.at(-1)).toEqual({
      type: 'done',
      turn: { ...turn, text: 'Hello', thinking: 'Hm' },
    })
  })

  it('posts the model, the conversation and the call options, but not the local ones', async () => {
    const { adapter, replay } = client({ body: sse([['done', { turn }]]) })
    const options: CallOptions = {
      thinking: 'high',
      tools: [{ name: 'log', parameters: { type: 'object' } }],
      toolChoice: 'auto',
      maxTokens: 100,
      temperature: 0.5,
      responseFormat: { type: 'json' },
      idleTimeoutMs: 60_000,
      providerOptions: { mock: { secret: 1 } },
      signal: new AbortController().signal,
    }
    await collect(adapter.stream(ask, options))
    const [request] = replay.requests
    expect(request?.method).toBe('POST')
    expect(request?.url).toBe(`${RELAY_URL}/v1/chat`)
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.body).toEqual({
      model: 'mock/echo',
      conversation: ask,
      thinking: 'high',
      tools: [{ name: 'log', parameters: { type: 'object' } }],
      toolChoice: 'auto',
      maxTokens: 100,
      temperature: 0.5,
      responseFormat: { type: 'json' },
    })
  })

  it('turns an error event into a ThinkwireError with its kind, message and retryable', async () => {
    const { adapter } = client({
      body: sse([
        ['text', { text: 'par' }],
        [
          'error',
          { kind: 'context-length', message: 'the conversation is too long', retryable: false },
        ],
        ['done', { turn }],
      ]),
    })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'par' }])
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({
      kind: 'context-length',
      message: 'the conversation is too long',
      retryable: false,
      provider: 'mock',
    })
  })

  it('takes retryAfterMs from an error event, and a server error for an unknown kind', async () => {
    const rate = client({
      body: sse([['error', { kind: 'rate-limit', message: 'slow down', retryAfterMs: 2500 }]]),
    })
    expect((await failure(rate.adapter.stream(ask))).error).toMatchObject({
      kind: 'rate-limit',
      retryAfterMs: 2500,
      retryable: true,
    })
    const odd = client({ body: sse([['error', { kind: 'weird', message: 'hm' }]]) })
    expect((await failure(odd.adapter.stream(ask))).error).toMatchObject({
      kind: 'server',
      message: 'hm',
    })
  })

  it('turns a JSON 429 into a rate-limit error with retryAfterMs from retry-after', async () => {
    const { adapter } = client({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '7' },
      body: JSON.stringify({ error: { kind: 'rate-limit', message: 'rate limit reached' } }),
    })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 7000,
      retryable: true,
      message: 'rate limit reached',
    })
  })

  it('maps a non-JSON error answer by its status', async () => {
    const cases: [number, string][] = [
      [401, 'auth'],
      [404, 'invalid-request'],
      [413, 'invalid-request'],
      [500, 'server'],
      [503, 'overloaded'],
    ]
    for (const [status, kind] of cases) {
      const { adapter } = client({
        status,
        headers: { 'content-type': 'text/html' },
        body: '<h1>no</h1>',
      })
      expect((await failure(adapter.stream(ask))).error).toMatchObject({ kind, status })
    }
  })

  it('refuses a 200 answer that is not an event stream', async () => {
    const { adapter } = client({ headers: { 'content-type': 'text/html' }, body: '<html></html>' })
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'server', status: 200 })
    expect((error as Error).message).toMatch(/not an event stream/)
  })

  it('turns malformed event data into a server error', async () => {
    for (const [name, data] of [
      ['text', '{"text":1}'],
      ['done', '{"turn":{"role":"user"}}'],
      ['tool-call', '{"call":{"name":"x"}}'],
      ['thinking', 'not json'],
    ]) {
      const { adapter } = client({ body: `event: ${name}\ndata: ${data}\n\n` })
      const { error } = await failure(adapter.stream(ask))
      expect(error).toMatchObject({ kind: 'server' })
      expect((error as Error).message).toContain(`malformed '${name}'`)
    }
  })

  it('fails with a network error and no done when the connection drops mid-stream', async () => {
    const full = sse([
      ['text', { text: 'Hello' }],
      ['text', { text: ' world' }],
      ['done', { turn }],
    ])
    const cut = full.indexOf('event: done') + 5
    const dropped = client({ body: full, cutAfterBytes: cut })
    const { events, error } = await failure(dropped.adapter.stream(ask))
    expect(events).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'text', text: ' world' },
    ])
    expect(error).toMatchObject({ kind: 'network', retryable: true })

    // A body that simply ends, even in the middle of the done event, is a drop too.
    const ended = client({ body: full.slice(0, full.lastIndexOf('}')) })
    const result = await failure(ended.adapter.stream(ask))
    expect(result.events.some((e) => e.type === 'done')).toBe(false)
    expect(result.error).toMatchObject({ kind: 'network' })
  })

  it('takes a done event the body ends without its blank line: nothing of it is missing', async () => {
    const whole = sse([
      ['text', { text: 'Hi' }],
      ['done', { turn }],
    ])
    const { adapter } = client({ body: whole.slice(0, -1) })
    expect((await collect(adapter.stream(ask))).at(-1)).toEqual({ type: 'done', turn })
  })

  it('fails with a network error when the relay cannot be reached', async () => {
    const { adapter } = client({ body: '', refuse: true })
    expect((await failure(adapter.stream(ask))).error).toMatchObject({ kind: 'network' })
  })

  it('cancels the request when the signal aborts mid-stream', async () => {
    const full = sse([
      ['text', { text: 'Hello' }],
      ['text', { text: ' world' }],
      ['done', { turn }],
    ])
    const { adapter, replay } = client({ body: full, stallAfterBytes: full.indexOf('\n\n') + 2 })
    const controller = new AbortController()
    const events: Event[] = []
    const { error } = await failure(
      (async function* () {
        for await (const event of adapter.stream(ask, { signal: controller.signal })) {
          events.push(event)
          yield event
          controller.abort()
        }
      })(),
    )
    expect(events).toEqual([{ type: 'text', text: 'Hello' }])
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(replay.requests[0]?.signal?.aborted).toBe(true)
    expect(replay.aborted()).toBe(true)
  })

  it('cancels the response body when the consumer stops early', async () => {
    const { adapter, cancelled } = clientOfOpenBody(sse([['text', { text: 'one' }]]))
    for await (const event of adapter.stream(ask)) {
      expect(event).toEqual({ type: 'text', text: 'one' })
      break
    }
    await expect.poll(cancelled).toBe(true)
  })

  it('leaves a body still open after done to end by itself, and cancels it 2 s later', async () => {
    // Stays open after done, as a proxy may keep it.
    const { adapter, cancelled } = clientOfOpenBody(
      sse([
        ['text', { text: 'Hi' }],
        ['done', { turn }],
      ]),
    )
    expect((await collect(adapter.stream(ask))).at(-1)).toEqual({ type: 'done', turn })
    // Not at done: a browser shows a fetch cancelled in its last bytes as a failed request.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(cancelled()).toBe(false)
    await expect.poll(cancelled, { timeout: 5000 }).toBe(true)
  })

  it('cancels a body that does not end on abort by itself (an in-process or polyfilled fetch)', async () => {
    const { adapter, cancelled } = clientOfOpenBody(sse([['text', { text: 'one' }]]))
    const controller = new AbortController()
    const { events, error } = await failure(
      (async function* () {
        for await (const event of adapter.stream(ask, { signal: controller.signal })) {
          yield event
          setTimeout(() => controller.abort(), 5)
        }
      })(),
    )
    expect(events).toEqual([{ type: 'text', text: 'one' }])
    expect(error).toMatchObject({ kind: 'aborted' })
    await expect.poll(cancelled).toBe(true)
  })
})
