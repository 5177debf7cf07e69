/**
 * The relay under attack and misuse, in process: each class of problem with the request that
 * finds it. The same classes run in workerd in `test/worker/`.
 */
import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { DROP_LIMITS } from '../../src/relay/read-body.ts'
import {
  createRelay,
  memoryRateLimiter,
  type RateLimiter,
  type RelayLogEntry,
} from '../../src/relay/index.ts'
import { eventually } from '../helpers/eventually.ts'
import { ask, chat, doneOf, errorBody, offline, streamed } from './helpers.ts'

/** The mock model's output cap: what a call without `maxTokens` reserves. */
const MOCK_MAX_OUTPUT = mock().capabilities!.maxOutputTokens!
import { payloads, readSse } from './sse-reader.ts'

const body = { model: 'mock/echo', conversation: { turns: ask() } }

/** A request body that sends `first` and then never ends (or never starts, without `first`). */
function endless(first?: string): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first !== undefined) controller.enqueue(new TextEncoder().encode(first))
    },
    pull() {
      pulled++
      return new Promise(() => {})
    },
  })
  return { stream, pulled: () => pulled }
}

/** A body that keeps sending 1 KiB chunks for as long as it is read, counting the bytes read. */
function flood(): { stream: ReadableStream<Uint8Array>; bytes(): number } {
  let bytes = 0
  const chunk = new TextEncoder().encode(`"${'x'.repeat(1022)}",`)
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      bytes += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  return { stream, bytes: () => bytes }
}

function post(
  path: string,
  stream: ReadableStream<Uint8Array>,
  init: { method?: string; headers?: Record<string, string> } = {},
): Request {
  return new Request(`http://relay.test${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: stream,
    // @ts-expect-error: Node's fetch needs it for a streamed body; the DOM types lack it.
    duplex: 'half',
  })
}

/** A rate limiter that records what it was asked and told. */
function recordingLimiter(decide: () => boolean = () => true) {
  const checks: number[] = []
  const reports: { tokens: number; estimatedTokens: number }[] = []
  const limiter: RateLimiter = {
    check(_, cost) {
      checks.push(cost.tokens)
      return decide() ? { ok: true } : { ok: false, retryAfterMs: 1000 }
    },
    report(_, usage) {
      reports.push(usage)
    },
  }
  return { limiter, checks, reports }
}

/** An adapter that yields `events` and then waits for its signal; counts its calls. */
function scripted(events: Event[], options: { hang?: boolean } = {}) {
  let calls = 0
  let aborted = false
  const adapter: Adapter = {
    provider: 'mock',
    model: 'echo',
    async *stream(_conversation: Conversation, callOptions = {}) {
      calls++
      for (const event of events) yield event
      if (options.hang === true) {
        const signal = callOptions.signal!
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve()
          signal.addEventListener('abort', () => resolve(), { once: true })
        })
        aborted = true
        throw new Error('aborted')
      }
    },
  }
  return { adapter, calls: () => calls, aborted: () => aborted }
}

describe('relay hardening: fail closed', () => {
  it('admits a request only when the auth hook names a client', async () => {
    const clients = new Map([['good-token-0123456789', 'alice']])
    const hooks = [
      (request: Request) => clients.get(request.headers.get('x-token') ?? ''),
      () => undefined,
      () => false,
      () => '',
      () => 0,
      () => ({ id: 'alice' }),
    ]
    for (const auth of hooks) {
      // The hooks a JavaScript app may write, whatever their declared type.
      const relay = createRelay({ providers: offline, auth: auth as () => string })
      expect((await chat(relay, body, { headers: { 'x-token': 'wrong' } })).status).toBe(401)
    }
    const relay = createRelay({
      providers: offline,
      auth: (request) => clients.get(request.headers.get('x-token') ?? '') ?? null,
    })
    const ok = await chat(relay, body, { headers: { 'x-token': 'good-token-0123456789' } })
    expect(ok.status).toBe(200)
  })
})

describe('relay hardening: no waiting on a body the answer does not need', () => {
  // An answer that needs no body waits for one on its way at most min(1 s, bodyTimeoutMs).
  const relay = createRelay({
    providers: offline,
    auth: ['token-0123456789abcdef'],
    limits: { bodyTimeoutMs: 100 },
  })

  it('answers 401, 404 and 405 while the body is still coming', async () => {
    const cases: [Request, number][] = [
      [post('/v1/chat', endless('{"model":').stream), 401],
      [post('/v1/nothing', endless('{').stream), 404],
      [post('/v1/models', endless('{').stream), 405],
    ]
    for (const [request, status] of cases) {
      expect((await relay.fetch(request)).status).toBe(status)
    }
  })

  it('answers 403 for a foreign origin while the body is still coming', async () => {
    const guarded = createRelay({
      providers: offline,
      cors: { origins: ['https://app.test'] },
      limits: { bodyTimeoutMs: 100 },
    })
    const request = post('/v1/chat', endless('{').stream, {
      headers: { origin: 'https://evil.test' },
    })
    expect((await guarded.fetch(request)).status).toBe(403)
  })

  it('gives a chat body that does not arrive in time a 408', async () => {
    const slow = createRelay({ providers: offline, limits: { bodyTimeoutMs: 50 } })
    const response = await slow.fetch(post('/v1/chat', endless('{"model":').stream))
    expect(response.status).toBe(408)
    expect(await errorBody(response)).toEqual({
      kind: 'invalid-request',
      message: 'body must arrive within 50 ms',
    })
  })

  it('holds nothing past the size limit and reads at most DROP_LIMITS limits of an endless body', async () => {
    const small = createRelay({ providers: offline, limits: { bodyBytes: 8 * 1024 } })
    const sent = flood()
    const response = await small.fetch(post('/v1/chat', sent.stream))
    expect(response.status).toBe(413)
    // The limit, then what follows dropped as it comes up to DROP_LIMITS limits, and one read ahead.
    expect(sent.bytes()).toBeLessThanOrEqual(DROP_LIMITS * 8 * 1024 + 2 * 1024)
  })

  /** A body of `kib` KiB in 1 KiB chunks that notes when it was read to its end. */
  function sized(kib: number): { stream: ReadableStream<Uint8Array>; ended(): boolean } {
    let ended = false
    let left = kib
    const chunk = new TextEncoder().encode('x'.repeat(1024))
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (left-- > 0) return controller.enqueue(chunk)
        ended = true
        controller.close()
      },
    })
    return { stream, ended: () => ended }
  }

  // An answer sent while the body is partly read costs the connection: workerd closes it after the
  // answer (a client still writing sees a reset instead of the answer, and its next request on it
  // fails), and wrangler dev's proxy answers the next request of any client with a 503.
  it.each([
    ['/v1/chat', 'application/json', 413, 12, 'a little over the limit'],
    ['/v1/chat', 'application/json', 413, 24, 'three times the limit'],
    ['/v1/chat', 'application/json', 413, DROP_LIMITS * 8, 'DROP_LIMITS times the limit'],
    ['/v1/chat/completions', 'application/json', 413, 24, 'three times the limit'],
    ['/v1/chat', 'text/plain', 415, 24, 'three times the limit'],
    ['/v1/nothing', 'application/json', 404, 24, 'three times the limit'],
  ] as const)(
    'reads a body to %s (%s) to its end before the %i when it is %i KiB, %s',
    async (path, type, status, kib, _size) => {
      const small = createRelay({ providers: offline, limits: { bodyBytes: 8 * 1024 } })
      for (const length of [String(kib * 1024), undefined]) {
        const sent = sized(kib)
        const headers: Record<string, string> = { 'content-type': type }
        if (length !== undefined) headers['content-length'] = length
        const response = await small.fetch(post(path, sent.stream, { headers }))
        expect(response.status).toBe(status)
        expect(sent.ended()).toBe(true)
      }
    },
  )

  it('names the limit in the 413 of a body read to its end', async () => {
    const small = createRelay({ providers: offline, limits: { bodyBytes: 8 * 1024 } })
    const response = await small.fetch(post('/v1/chat', sized(24).stream))
    expect(await errorBody(response)).toEqual({
      kind: 'invalid-request',
      message: 'body must be at most 8192 bytes',
    })
  })

  it('reads nothing of a body whose content-length is over DROP_LIMITS limits', async () => {
    const small = createRelay({ providers: offline, limits: { bodyBytes: 8 * 1024 } })
    const length = String(DROP_LIMITS * 8 * 1024 + 1)
    for (const [path, status] of [
      ['/v1/chat', 413],
      ['/v1/nothing', 404],
    ] as const) {
      const sent = flood()
      const headers = { 'content-length': length }
      expect((await small.fetch(post(path, sent.stream, { headers }))).status).toBe(status)
      // A stream pulls one chunk (1 KiB) ahead of its reader: nothing past that was asked for.
      expect(sent.bytes()).toBeLessThan(2 * 1024)
    }
  })
})

describe('relay hardening: bounded, counted work', () => {
  it('counts refused bodies against the request rate, so refusals are not free', async () => {
    const relay = createRelay({
      providers: offline,
      rateLimiter: memoryRateLimiter({ requestsPerMinute: 2 }),
    })
    expect((await chat(relay, { model: 42 })).status).toBe(400)
    expect((await chat(relay, '{"not json')).status).toBe(400)
    const third = await chat(relay, { model: 42 })
    expect(third.status).toBe(429)
    expect((await chat(relay, body)).status).toBe(429)
  })
})

describe('relay hardening: honest budgets', () => {
  it('reserves the output a call may produce at admission', async () => {
    const { limiter, checks } = recordingLimiter()
    const relay = createRelay({ providers: offline, rateLimiter: limiter })
    const payload = JSON.stringify(body)
    const input = Math.ceil(new TextEncoder().encode(payload).length / 4)
    await streamed(await chat(relay, payload))
    const capped = JSON.stringify({ ...body, maxTokens: 100 })
    await streamed(await chat(relay, capped))
    // Without maxTokens, the model's own cap: what the call may really produce.
    expect(checks).toEqual([
      input + MOCK_MAX_OUTPUT,
      Math.ceil(new TextEncoder().encode(capped).length / 4) + 100,
    ])
  })

  it('lets no more parallel calls through a token window than their reserved output fits', async () => {
    const relay = createRelay({
      providers: { mock: { create: () => mock({ model: 'echo', delayMs: 5 }), models: ['echo'] } },
      rateLimiter: memoryRateLimiter({ tokensPerMinute: 20_000 }),
    })
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => chat(relay, { ...body, maxTokens: 4000 })),
    )
    const admitted = answers.filter((answer) => answer.status === 200).length
    await Promise.all(answers.map((answer) => answer.text()))
    expect(admitted).toBe(4)
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(16)
  })

  it('charges a client that leaves before done what was reserved, never less than what streamed', async () => {
    // The provider's usage is not known when the answer is cut: it may have thought through
    // thousands of tokens it never streamed, so the call is charged what admission reserved.
    const cases: [maxTokens: number, charged: number][] = [
      [1000, 1000],
      // 800 characters streamed (200 tokens) past a reserve of 100: what streamed.
      [100, 200],
    ]
    for (const [maxTokens, output] of cases) {
      const { limiter, reports } = recordingLimiter()
      const upstream = scripted(
        [
          { type: 'thinking', text: 'a'.repeat(400) },
          { type: 'text', text: 'b'.repeat(400) },
        ],
        { hang: true },
      )
      const relay = createRelay({ providers: { mock: [upstream.adapter] }, rateLimiter: limiter })
      const payload = JSON.stringify({ ...body, maxTokens })
      const response = await chat(relay, payload)
      const reader = response.body!.getReader()
      let seen = ''
      while (!seen.includes('bbbb')) seen += new TextDecoder().decode((await reader.read()).value)
      await reader.cancel()
      await eventually(() => reports.length === 1, 'the report')
      const input = Math.ceil(new TextEncoder().encode(payload).length / 4)
      expect(reports[0]).toMatchObject({
        tokens: input + output,
        estimatedTokens: input + maxTokens,
      })
      await eventually(() => upstream.aborted(), 'the upstream abort')
    }
  })

  it('charges a stream that fails part-way what was reserved, and one the model refused nothing', async () => {
    const { limiter, reports } = recordingLimiter()
    const failing = (fail: { kind: 'server'; afterEvents: number; status?: number }) =>
      createRelay({
        providers: { mock: [mock({ script: [{ text: 'c'.repeat(80), fail }] })] },
        rateLimiter: limiter,
      })
    const payload = JSON.stringify({ ...body, maxTokens: 300 })
    const input = Math.ceil(new TextEncoder().encode(payload).length / 4)
    const read = await streamed(await chat(failing({ kind: 'server', afterEvents: 1 }), payload))
    expect(payloads(read).at(-1)?.event).toBe('error')
    expect(reports).toEqual([expect.objectContaining({ tokens: input + 300 })])
    reports.length = 0
    // An HTTP error before any event: the provider made nothing to bill.
    const refused = await chat(failing({ kind: 'server', afterEvents: 0, status: 500 }), payload)
    expect(refused.status).toBe(502)
    expect(reports).toEqual([expect.objectContaining({ tokens: 0 })])
  })

  it('sends whole non-negative usage, and an input on every tool call', async () => {
    const { limiter, reports } = recordingLimiter()
    const upstream: Adapter = {
      provider: 'mock',
      model: 'echo',
      async *stream() {
        const call = { id: 'call_1', name: 'ping', input: undefined }
        yield { type: 'tool-call', call }
        yield {
          type: 'done',
          turn: {
            role: 'assistant',
            text: '',
            toolCalls: [call],
            usage: { inputTokens: -500, outputTokens: 2.6, reasoningTokens: Number.NaN },
            stopReason: 'tool-calls',
          },
        }
      },
    }
    const relay = createRelay({ providers: { mock: [upstream] }, rateLimiter: limiter })
    const read = await streamed(await chat(relay, body))
    const events = payloads(read)
    expect(events[0]).toEqual({
      event: 'tool-call',
      data: { call: { id: 'call_1', name: 'ping', input: {} } },
    })
    const turn = doneOf(read)
    expect(turn.usage).toEqual({ inputTokens: 0, outputTokens: 3, reasoningTokens: 0 })
    expect(turn.toolCalls).toEqual([{ id: 'call_1', name: 'ping', input: {} }])
    expect(reports[0]!.tokens).toBe(3)

    // The relay takes its own turn back.
    const again = await chat(relay, {
      ...body,
      conversation: {
        turns: [
          ...ask(),
          turn,
          { role: 'tool', results: [{ callId: 'call_1', name: 'ping', output: 'pong' }] },
        ],
      },
    })
    expect(again.status).toBe(200)
    await readSse(again)
  })
})

describe('relay hardening: abort at any moment', () => {
  it('never starts the upstream for a client that left while its body was read', async () => {
    const upstream = scripted([{ type: 'text', text: 'x' }], { hang: true })
    const relay = createRelay({ providers: { mock: [upstream.adapter] } })
    const controller = new AbortController()
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    const payload = new TextEncoder().encode(JSON.stringify(body))
    const stream = new ReadableStream<Uint8Array>({
      async pull(c) {
        await gate
        c.enqueue(payload)
        c.close()
      },
    })
    const request = new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      signal: controller.signal,
      // @ts-expect-error: Node's fetch needs it for a streamed body; the DOM types lack it.
      duplex: 'half',
    })
    const answer = relay.fetch(request)
    controller.abort()
    release()
    const response = await answer
    expect(response.status).toBe(499)
    expect(upstream.calls()).toBe(0)
  })

  it('never starts the upstream for a client that left while the rate limiter answered', async () => {
    const upstream = scripted([{ type: 'text', text: 'x' }])
    const controller = new AbortController()
    const relay = createRelay({
      providers: { mock: [upstream.adapter] },
      rateLimiter: {
        async check() {
          controller.abort()
          return { ok: true }
        },
      },
    })
    const response = await chat(relay, body, { signal: controller.signal })
    expect(response.status).toBe(499)
    expect(upstream.calls()).toBe(0)
  })
})

describe('relay hardening: clean logs', () => {
  it('logs field paths and kinds, never client text, parse snippets or upstream messages', async () => {
    const entries: RelayLogEntry[] = []
    const planted = 'PLANTED-PROMPT-7f3a'
    const relay = createRelay({
      providers: {
        mock: [mock({ script: [{ fail: { kind: 'server', message: `echo: ${planted}` } }] })],
      },
      log: (entry) => entries.push(entry),
    })
    const answers = [
      await chat(relay, { ...body, thinking: planted }),
      await chat(relay, `{"model": "${planted}`),
      await chat(relay, { ...body, model: `mock/${planted}` }),
      await chat(relay, { ...body, conversation: { turns: [{ role: 'user', content: planted }] } }),
      await relay.fetch(new Request(`http://relay.test/v1/${planted}`)),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 404, 502, 404])
    // The answers may quote the client; the log may not.
    expect(await answers[0]!.text()).toContain(planted)
    expect(JSON.stringify(entries)).not.toContain(planted)
    expect(entries[0]).toMatchObject({
      path: '/v1/chat',
      error: { kind: 'invalid-request', field: 'thinking' },
    })
    expect(entries[3]).toMatchObject({ model: 'mock/echo', error: { kind: 'server' } })
    expect(entries[4]).toMatchObject({ path: 'unknown', status: 404 })
  })
})
