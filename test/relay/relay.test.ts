import { describe, expect, it, vi } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { ErrorKind } from '../../src/core/errors.ts'
import { createRegistry } from '../../src/core/registry.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { eventually } from '../helpers/eventually.ts'
import { ask, chat, doneOf, errorBody, offline, streamed } from './helpers.ts'
import { payloads, readUntil } from './sse-reader.ts'

describe('createRelay: routes', () => {
  it('serves the models of its providers with their capabilities', async () => {
    const response = await createRelay({ providers: offline }).fetch(
      new Request('http://relay.test/v1/models'),
    )
    expect(response.status).toBe(200)
    const { models } = (await response.json()) as { models: { id: string }[] }
    expect(models.map((m) => m.id)).toEqual(['mock/echo'])
    expect(models[0]).toMatchObject({ tools: true, json: true })
  })

  it('serves nothing without providers, and says so in /v1/models', async () => {
    const relay = createRelay({})
    const response = await relay.fetch(new Request('http://relay.test/v1/models'))
    expect(await response.json()).toEqual({
      object: 'list',
      data: [],
      models: [],
      notice: 'this relay has no provider configured: give createRelay a registry or providers',
    })
    const refused = await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
    expect(refused.status).toBe(404)
    expect(await errorBody(refused)).toMatchObject({
      message: "Unknown provider 'mock' in 'mock/echo'; known: none",
    })
  })

  it('refuses a registry and providers together', () => {
    expect(() => createRelay({ registry: createRegistry({}), providers: offline })).toThrow(
      /give `registry` or `providers`, not both/,
    )
  })

  it('serves only the allowed models, exactly or by provider', async () => {
    const registry = createRegistry({
      a: { create: (model) => mock({ provider: 'a', model }), models: ['one', 'two'] },
      b: { create: (model) => mock({ provider: 'b', model }), models: ['three'] },
    })
    const relay = createRelay({ registry, models: ['a/two', 'b/*'] })
    const listed = (await (
      await relay.fetch(new Request('http://relay.test/v1/models'))
    ).json()) as {
      models: { id: string }[]
    }
    expect(listed.models.map((m) => m.id)).toEqual(['a/two', 'b/three'])
    const refused = await chat(relay, { model: 'a/one', conversation: { turns: ask() } })
    expect(refused.status).toBe(404)
    expect(await errorBody(refused)).toMatchObject({
      field: 'model',
      message: "model 'a/one' is not served by this relay",
    })
    expect(
      (
        await streamed(await chat(relay, { model: 'b/three', conversation: { turns: ask() } }))
      ).events.at(-1)?.event,
    ).toBe('done')
  })

  it('answers unknown paths with 404 and wrong methods with 405 and allow', async () => {
    const relay = createRelay({ providers: offline })
    const missing = await relay.fetch(new Request('http://relay.test/v2/chat'))
    expect(missing.status).toBe(404)
    expect(await errorBody(missing)).toEqual({
      kind: 'invalid-request',
      message: 'no route for /v2/chat',
    })
    const proto = await relay.fetch(new Request('http://relay.test/__proto__'))
    expect(proto.status).toBe(404)
    const wrong = await relay.fetch(
      new Request('http://relay.test/v1/models', { method: 'DELETE' }),
    )
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET, OPTIONS')
  })

  it('accepts entries instead of a registry', async () => {
    const relay = createRelay({ providers: { acme: [mock({ provider: 'acme', model: 'm1' })] } })
    const read = await streamed(
      await chat(relay, { model: 'acme/m1', conversation: { turns: ask() } }),
    )
    expect(doneOf(read).items?.provider).toBe('acme')
  })
})

describe('createRelay: streaming', () => {
  it('streams each event as one SSE event with its payload, and done last', async () => {
    const adapter = mock({
      script: [
        {
          thinking: 'Hmm.',
          text: 'Four.',
          toolCalls: [{ id: 'c1', name: 'log', input: { n: 4 } }],
        },
      ],
      chunkSize: 100,
    })
    const relay = createRelay({ providers: { mock: [adapter] } })
    const response = await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'content-encoding': 'identity',
      'x-accel-buffering': 'no',
    })
    const read = await streamed(response)
    const events = payloads(read)
    expect(events.slice(0, 3)).toEqual([
      { event: 'thinking', data: { text: 'Hmm.' } },
      { event: 'text', data: { text: 'Four.' } },
      { event: 'tool-call', data: { call: { id: 'c1', name: 'log', input: { n: 4 } } } },
    ])
    expect(events).toHaveLength(4)
    expect(doneOf(read)).toMatchObject({
      text: 'Four.',
      thinking: 'Hmm.',
      stopReason: 'tool-calls',
    })
    expect(read.raw.startsWith('id: 1\nevent: thinking\ndata: {"text":"Hmm."}\n\n')).toBe(true)
  })

  it('passes every checked option upstream, with its signal and idle timeout', async () => {
    const adapter = mock()
    const relay = createRelay({ providers: { mock: [adapter] }, idleTimeoutMs: 1234 })
    const tools = [{ name: 'lookup', parameters: { type: 'object' } }]
    await streamed(
      await chat(relay, {
        model: 'mock/echo',
        conversation: { turns: ask() },
        thinking: 'high',
        tools,
        toolChoice: 'required',
        maxTokens: 99,
        temperature: 0.2,
        responseFormat: { type: 'json' },
      }),
    )
    const { options } = adapter.calls[0]!
    expect(options).toMatchObject({
      thinking: 'high',
      tools,
      toolChoice: 'required',
      maxTokens: 99,
      temperature: 0.2,
      responseFormat: { type: 'json' },
      idleTimeoutMs: 1234,
    })
    expect(options.signal).toBeInstanceOf(AbortSignal)
    expect(options.providerOptions).toBeUndefined()
  })

  it('replays a returned done turn verbatim on the next call', async () => {
    const adapter = mock()
    const relay = createRelay({ providers: { mock: [adapter] } })
    const first = doneOf(
      await streamed(await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })),
    )
    await streamed(
      await chat(relay, {
        model: 'mock/echo',
        conversation: { turns: [...ask(), first, { role: 'user', content: 'Again' }] },
      }),
    )
    expect(adapter.calls[1]!.request[1]).toEqual({ role: 'assistant', replayed: first.items!.data })
  })

  const early: [ErrorKind, number][] = [
    ['rate-limit', 429],
    ['overloaded', 503],
    ['auth', 502],
    ['invalid-request', 400],
    ['context-length', 400],
    ['server', 502],
    ['timeout', 504],
  ]
  for (const [kind, status] of early) {
    it(`answers a ${kind} failure before the first event with a JSON ${status}`, async () => {
      const relay = createRelay({
        providers: {
          mock: [
            mock({ script: [{ fail: { kind, retryAfterMs: 2500, message: `upstream ${kind}` } }] }),
          ],
        },
      })
      const response = await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
      expect(response.status).toBe(status)
      expect(await errorBody(response)).toMatchObject({ kind, message: `upstream ${kind}` })
      expect(response.headers.get('retry-after')).toBe('3')
    })
  }

  it('sends an error event in place of done when the stream fails after its first event', async () => {
    const relay = createRelay({
      providers: {
        mock: [
          mock({
            script: [{ text: 'partial', fail: { kind: 'overloaded', afterEvents: 1 } }],
            chunkSize: 100,
          }),
        ],
      },
    })
    const read = await streamed(
      await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } }),
    )
    expect(payloads(read)).toEqual([
      { event: 'text', data: { text: 'partial' } },
      {
        event: 'error',
        data: { kind: 'overloaded', message: 'mock: scripted overloaded failure', retryable: true },
      },
    ])
  })

  it('ends with an error event when an adapter stops without done', async () => {
    const broken: Adapter = {
      provider: 'raw',
      model: 'm',
      async *stream() {
        yield { type: 'text', text: 'half' }
      },
    }
    const relay = createRelay({ providers: { raw: [broken] } })
    const read = await streamed(
      await chat(relay, { model: 'raw/m', conversation: { turns: ask() } }),
    )
    expect(read.events.map((e) => e.event)).toEqual(['text', 'error'])
    expect(JSON.parse(read.events[1]!.data)).toMatchObject({ kind: 'server' })
  })

  it('answers with a JSON error when the adapter throws as it starts', async () => {
    const throwing: Adapter = {
      provider: 'raw',
      model: 'm',
      stream() {
        throw new TypeError('fetch failed')
      },
    }
    const response = await chat(createRelay({ providers: { raw: [throwing] } }), {
      model: 'raw/m',
      conversation: { turns: ask() },
    })
    expect(response.status).toBe(502)
    expect(await errorBody(response)).toMatchObject({ kind: 'network' })
  })

  it('aborts the upstream call when the client aborts the request', async () => {
    const adapter = mock({
      script: [{ thinking: 'Thinking', stallAfterEvents: 1 }],
      chunkSize: 100,
    })
    const relay = createRelay({ providers: { mock: [adapter] } })
    const controller = new AbortController()
    const response = await chat(
      relay,
      { model: 'mock/echo', conversation: { turns: ask() } },
      { signal: controller.signal },
    )
    await readUntil(response, (seen) => seen.events.length === 1)
    expect(adapter.calls[0]!.signal.aborted).toBe(false)
    controller.abort()
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
  })

  it('aborts the upstream call when the response stream is cancelled', async () => {
    const adapter = mock({
      script: [{ thinking: 'Thinking', stallAfterEvents: 1 }],
      chunkSize: 100,
    })
    const relay = createRelay({ providers: { mock: [adapter] } })
    const response = await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
    const reader = response.body!.getReader()
    await reader.read()
    await reader.cancel()
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
  })

  it('sends a comment every heartbeatMs while the model is silent', async () => {
    const adapter = mock({
      script: [{ thinking: 'Thinking', stallAfterEvents: 1 }],
      chunkSize: 100,
    })
    const relay = createRelay({ providers: { mock: [adapter] }, heartbeatMs: 10 })
    const response = await chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
    const read = await readUntil(response, (seen) => seen.comments.length >= 3)
    expect(read.comments.slice(0, 3)).toEqual(['ping', 'ping', 'ping'])
    expect(read.events.map((e) => e.event)).toEqual(['thinking'])
    await response.body?.cancel().catch(() => {})
  })

  it('starts the stream after heartbeatMs when the first event is slow, and still ends it', async () => {
    // On a fake clock: on a busy machine, real timers could fire the idle timeout before the
    // stream's first heartbeat.
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    })
    try {
      const adapter = mock({ script: [{ text: 'late', stallAfterEvents: 0 }] })
      const relay = createRelay({
        providers: { mock: [adapter] },
        heartbeatMs: 10,
        idleTimeoutMs: 60,
      })
      const answer = chat(relay, { model: 'mock/echo', conversation: { turns: ask() } })
      await vi.advanceTimersByTimeAsync(10)
      const read = streamed(await answer)
      await vi.advanceTimersByTimeAsync(50)
      const { comments } = await read
      expect(comments.length).toBeGreaterThanOrEqual(1)
      expect(payloads(await read)).toEqual([
        {
          event: 'error',
          data: { kind: 'timeout', message: 'mock: no data for 60 ms', retryable: true },
        },
      ])
    } finally {
      vi.useRealTimers()
    }
  })
})
