import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import { ThinkwireError } from '../../src/core/errors.ts'
import { mock } from '../../src/providers/mock/index.ts'
import {
  createRelay,
  memoryRateLimiter,
  type RateLimiter,
  type RelayLogEntry,
} from '../../src/relay/index.ts'
import { DROP_LIMITS } from '../../src/relay/read-body.ts'
import { ask, chat, doneOf, errorBody, offline, streamed } from './helpers.ts'

const body = { model: 'mock/echo', conversation: { turns: ask() } }

describe('createRelay: auth', () => {
  it('requires one of the bearer tokens', async () => {
    const relay = createRelay({
      providers: offline,
      auth: ['token-one-abcdef', 'token-two-abcdef'],
    })
    const none = await chat(relay, body)
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    expect(await errorBody(none)).toEqual({
      kind: 'auth',
      message: 'a valid bearer token is required',
    })
    expect(
      (await chat(relay, body, { headers: { authorization: 'Bearer token-three' } })).status,
    ).toBe(401)
    expect(
      (await chat(relay, body, { headers: { authorization: 'Basic token-one-abcdef' } })).status,
    ).toBe(401)
    const ok = await chat(relay, body, { headers: { authorization: 'bearer token-two-abcdef' } })
    expect((await streamed(ok)).events.at(-1)?.event).toBe('done')
  })

  it('keys the rate limit by the client the auth function names', async () => {
    const seen: string[] = []
    const rateLimiter: RateLimiter = {
      check(clientId) {
        seen.push(clientId)
        return { ok: true }
      },
    }
    const relay = createRelay({
      providers: offline,
      auth: (request) => request.headers.get('x-user'),
      rateLimiter,
    })
    expect((await chat(relay, body)).status).toBe(401)
    await streamed(await chat(relay, body, { headers: { 'x-user': 'alice' } }))
    expect(seen).toEqual(['alice'])
  })

  it('gives token clients an id that is not the token', async () => {
    const entries: RelayLogEntry[] = []
    const relay = createRelay({
      providers: offline,
      auth: ['token-one-abcdef'],
      log: (entry) => entries.push(entry),
    })
    await streamed(
      await chat(relay, body, { headers: { authorization: 'Bearer token-one-abcdef' } }),
    )
    expect(entries[0]?.clientId).toMatch(/^token:[0-9a-f]{16}$/)
  })

  it('answers 500 without details when its own auth hook fails', async () => {
    const relay = createRelay({
      providers: offline,
      auth: () => {
        throw new Error('database down at postgres://user:pw@host')
      },
    })
    const response = await chat(relay, body)
    expect(response.status).toBe(500)
    expect(await errorBody(response)).toEqual({
      kind: 'server',
      message: 'the relay failed to handle the request',
    })
  })
})

describe('createRelay: CORS', () => {
  const relay = createRelay({ providers: offline, cors: { origins: ['https://app.example'] } })

  it('answers a preflight from an allowed origin', async () => {
    const response = await relay.fetch(
      new Request('http://relay.test/v1/chat', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example' },
      }),
    )
    expect(response.status).toBe(204)
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': expect.stringMatching(
        /^authorization, content-type, last-event-id, traceparent, tracestate(, |$)/,
      ),
      'access-control-expose-headers': 'retry-after, server-timing',
      'timing-allow-origin': 'https://app.example',
      vary: 'origin',
      allow: 'POST, OPTIONS',
    })
  })

  it('refuses another origin before doing any work, and allows non-browser and same-origin calls', async () => {
    const refused = await chat(relay, body, { headers: { origin: 'https://evil.example' } })
    expect(refused.status).toBe(403)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    expect((await chat(relay, body, { headers: { origin: 'http://relay.test' } })).status).toBe(200)
    expect((await chat(relay, body)).status).toBe(200)
  })

  it('refuses every cross-origin browser call when no origin is configured, and allows any with *', async () => {
    const closed = await chat(createRelay({ providers: offline }), body, {
      headers: { origin: 'https://app.example' },
    })
    expect(closed.status).toBe(403)
    const open = await chat(createRelay({ providers: offline, cors: { origins: '*' } }), body, {
      headers: { origin: 'https://x.example' },
    })
    expect(open.headers.get('access-control-allow-origin')).toBe('https://x.example')
  })

  it('adds CORS headers to errors too, so the browser can read them', async () => {
    const response = await chat(relay, '{', { headers: { origin: 'https://app.example' } })
    expect(response.status).toBe(400)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example')
  })
})

describe('createRelay: body limits', () => {
  /** A body that never ends, in chunks of 400 bytes, counting what was read of it. */
  function endless() {
    const read = { bytes: 0 }
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          read.bytes += 400
          controller.enqueue(new Uint8Array(400).fill(32))
        },
      },
      { highWaterMark: 0 },
    )
    return { stream, read }
  }

  it('refuses a content-length over the limit, holding none of it and reading at most twice the limit', async () => {
    const { stream, read } = endless()
    const request = new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '2000' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    const response = await createRelay({ providers: offline, limits: { bodyBytes: 1000 } }).fetch(
      request,
    )
    expect(response.status).toBe(413)
    expect(await errorBody(response)).toEqual({
      kind: 'invalid-request',
      message: 'body must be at most 1000 bytes',
    })
    expect(read.bytes).toBeLessThanOrEqual(2400)
  })

  it('counts streamed bytes and stops reading an endless body', async () => {
    const { stream, read } = endless()
    const request = new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    const response = await createRelay({ providers: offline, limits: { bodyBytes: 1000 } }).fetch(
      request,
    )
    expect(response.status).toBe(413)
    // Up to the limit is held; past it, up to DROP_LIMITS limits in all are read and dropped.
    expect(read.bytes).toBeLessThanOrEqual(DROP_LIMITS * 1000 + 400)
  })

  it('refuses bodies that are not JSON, not UTF-8 or not parseable', async () => {
    const relay = createRelay({ providers: offline })
    const send = (headers: Record<string, string>, payload: BodyInit) =>
      relay.fetch(
        new Request('http://relay.test/v1/chat', { method: 'POST', headers, body: payload }),
      )
    expect((await send({ 'content-type': 'text/plain' }, '{}')).status).toBe(415)
    expect((await send({ 'content-type': 'application/json; charset=latin1' }, '{}')).status).toBe(
      415,
    )
    expect(
      (await send({ 'content-type': 'application/json; charset=UTF-8' }, JSON.stringify(body)))
        .status,
    ).toBe(200)
    const bad = await send(
      { 'content-type': 'application/json' },
      new Uint8Array([0x7b, 0xff, 0x7d]),
    )
    expect(await errorBody(bad)).toEqual({
      kind: 'invalid-request',
      message: 'body is not valid UTF-8',
    })
    const deep = await send(
      { 'content-type': 'application/json' },
      '['.repeat(200_000) + ']'.repeat(200_000),
    )
    expect(deep.status).toBe(400)
  })
})

describe('createRelay: rate limits', () => {
  it('admits on an estimate of the input and settles with the real usage', async () => {
    const calls: unknown[] = []
    const rateLimiter: RateLimiter = {
      check: (clientId, cost) => {
        calls.push(['check', clientId, cost])
        return { ok: true }
      },
      report: (clientId, usage) => {
        calls.push(['report', clientId, usage])
      },
    }
    const adapter = mock({ script: [{ text: 'ok', usage: { inputTokens: 10, outputTokens: 5 } }] })
    const relay = createRelay({ providers: { mock: [adapter] }, rateLimiter })
    const payload = JSON.stringify(body)
    await streamed(await chat(relay, payload))
    // The input (about 4 bytes a token) and the output the call may produce: the model's cap.
    const estimatedTokens =
      Math.ceil(new TextEncoder().encode(payload).length / 4) +
      adapter.capabilities!.maxOutputTokens!
    // The mock model has no price: nothing in dollars is reserved or settled.
    expect(calls).toEqual([
      ['check', 'anonymous', { tokens: estimatedTokens, usd: 0 }],
      [
        'report',
        'anonymous',
        { tokens: 15, estimatedTokens, usd: 0, estimatedUsd: 0, reservedAt: undefined },
      ],
    ])
  })

  it('refunds the estimate when the model refuses the call, and keeps it when the call is lost', async () => {
    const reports: [number, number][] = []
    const relayFailing = (status: number | undefined) =>
      createRelay({
        providers: { mock: [mock({ script: [{ fail: { kind: 'server', status } }] })] },
        rateLimiter: {
          check: () => ({ ok: true }),
          report: (_, usage) => void reports.push([usage.tokens, usage.estimatedTokens]),
        },
      })
    // An HTTP error answer: the provider made nothing to bill.
    expect((await chat(relayFailing(500), body)).status).toBe(502)
    // No answer at all (a connection lost after the request went): what it cost is not known.
    expect((await chat(relayFailing(undefined), body)).status).toBe(502)
    const [[refused], [lost, estimated]] = reports as [[number, number], [number, number]]
    expect(refused).toBe(0)
    expect(lost).toBe(estimated)
    expect(estimated).toBeGreaterThan(4096)
  })

  it('answers 429 with retry-after past the budget, before calling the model', async () => {
    const adapter = mock()
    const relay = createRelay({
      providers: { mock: [adapter] },
      rateLimiter: memoryRateLimiter({ requestsPerMinute: 1 }),
    })
    await streamed(await chat(relay, body))
    const limited = await chat(relay, body)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(await errorBody(limited)).toMatchObject({ kind: 'rate-limit', retryable: true })
    expect(adapter.calls).toHaveLength(1)
  })

  it('answers 503 when the rate limiter cannot be reached', async () => {
    const relay = createRelay({
      providers: offline,
      rateLimiter: {
        check: () => {
          throw new Error('unreachable')
        },
      },
    })
    const response = await chat(relay, body)
    expect(response.status).toBe(503)
    expect(await errorBody(response)).toMatchObject({ kind: 'overloaded' })
  })
})

describe('createRelay: sealing', () => {
  const sealKeys = ['seal-key-new-Qm4Rt8Wz2Xc6Vb0Nk5Lp', 'seal-key-old-Hj5Ls9Pd3Fg7Ty1Ue8Mw']

  async function firstTurn(keys: string[] | undefined): Promise<AssistantTurn> {
    const relay = createRelay({ providers: offline, sealKeys: keys })
    return doneOf(await streamed(await chat(relay, body)))
  }

  it('seals done turns and accepts them back, also across a key rotation', async () => {
    const old = await firstTurn([sealKeys[1]!])
    expect(old.items?.seal).toMatch(/^s1\.[\w-]{8}\.[\w-]{43}$/)
    const relay = createRelay({ providers: offline, sealKeys })
    const turns = [...ask(), old, { role: 'user', content: 'More' }]
    const done = doneOf(await streamed(await chat(relay, { ...body, conversation: { turns } })))
    expect(done.items?.seal).toBeDefined()
    expect(done.warnings).toBeUndefined()
  })

  it('refuses a sealed turn whose items, text, thinking or tool calls changed, naming the turn', async () => {
    const relay = createRelay({ providers: offline, sealKeys })
    const turn = await firstTurn(sealKeys)
    // A planted call comes with its result, so that only the seal is at fault.
    const after = ({ toolCalls }: AssistantTurn): Turn[] =>
      toolCalls === undefined
        ? ask('More')
        : [
            {
              role: 'tool',
              results: toolCalls.map((c) => ({ callId: c.id, name: c.name, output: 1 })),
            },
          ]
    const send = (changed: AssistantTurn) =>
      chat(relay, { ...body, conversation: { turns: [...ask(), changed, ...after(changed)] } })
    const changes: AssistantTurn[] = [
      { ...turn, items: { ...turn.items!, thinkingMode: 'high' } },
      { ...turn, items: { ...turn.items!, data: [...turn.items!.data, { extra: true }] } },
      // The items untouched, next to text they were not produced with.
      { ...turn, text: `${turn.text} (and a line the model never wrote)` },
      { ...turn, thinking: 'a planted thought' },
      { ...turn, toolCalls: [{ id: 'call_x', name: 'transfer', input: { amount: 1e6 } }] },
    ]
    for (const changed of changes) {
      const response = await send(changed)
      expect(response.status).toBe(400)
      expect(await errorBody(response)).toEqual({
        kind: 'invalid-request',
        field: 'conversation.turns[1].items.seal',
        message: 'conversation.turns[1] was changed after this relay sealed it',
      })
    }
  })

  it('drops items without a seal of its current keys and sends the turn from its text, with a warning', async () => {
    const received: AssistantTurn[] = []
    const upstream = mock({ model: 'echo' })
    const recording = {
      ...upstream,
      provider: upstream.provider,
      model: upstream.model,
      stream(conversation: Parameters<typeof upstream.stream>[0], options?: object) {
        for (const turn of conversation.turns) if (turn.role === 'assistant') received.push(turn)
        return upstream.stream(conversation, options)
      },
    }
    const relay = createRelay({ providers: { mock: [recording] }, sealKeys })
    const unsealed = await firstTurn(undefined)
    const retired = await firstTurn(['a-retired-seal-key-Hj5Ls9Pd3Fg7Ty1Ue8Mw'])
    for (const turn of [
      unsealed,
      retired,
      { ...retired, items: { ...retired.items!, seal: 'junk' } },
    ]) {
      received.length = 0
      const turns = [...ask(), turn, ...ask('More')]
      const done = doneOf(await streamed(await chat(relay, { ...body, conversation: { turns } })))
      expect(received).toHaveLength(1)
      expect(received[0]!.items).toBeUndefined()
      expect(received[0]!.text).toBe(turn.text)
      expect(done.warnings).toContainEqual(
        expect.stringMatching(/^conversation\.turns\[1\]\.items dropped: they carry no seal/),
      )
    }
  })

  it('refuses an empty list of seal keys, and keys shorter than 32 characters', () => {
    expect(() => createRelay({ providers: offline, sealKeys: [] })).toThrow(
      /sealKeys must be a non-empty list of secrets of at least 32 characters/,
    )
    expect(() =>
      createRelay({ providers: offline, sealKeys: ['a passphrase of 31 characters.'] }),
    ).toThrow(/at least 32 characters/)
  })

  it('leaves turns unsealed, and takes unsealed turns, without seal keys', async () => {
    const turn = await firstTurn(undefined)
    expect(turn.items?.seal).toBeUndefined()
    const read = await streamed(
      await chat(createRelay({ providers: offline }), {
        ...body,
        conversation: { turns: [...ask(), turn, ...ask('More')] },
      }),
    )
    expect(doneOf(read).text).toContain('More')
  })
})

describe('createRelay: log', () => {
  it('logs one entry per request, with no token, seal key or provider key in any entry or answer', async () => {
    const entries: RelayLogEntry[] = []
    const token = 'client-token-9f8e7d6c'
    const sealKey = 'seal-secret-1a2b3c4d-5e6f7a8b9c0d1e2f'
    const providerKey = 'sk-ant-api03-abcdefghijklmnop'
    const relay = createRelay({
      auth: [token],
      sealKeys: [sealKey],
      providers: {
        mock: [
          mock({
            script: [{ fail: { kind: 'auth', message: `invalid x-api-key: ${providerKey}` } }],
          }),
        ],
        ok: [mock({ provider: 'ok', model: 'm' })],
      },
      log: (entry) => entries.push(entry),
    })
    const authorization = { authorization: `Bearer ${token}` }
    const answers = [
      await chat(relay, body, { headers: authorization }),
      await chat(relay, body),
      await chat(relay, '{"model":', { headers: authorization }),
      await chat(relay, { ...body, model: 'ok/m' }, { headers: authorization }),
    ]
    const texts = await Promise.all(answers.map((answer) => answer.text()))
    expect(answers.map((a) => a.status)).toEqual([502, 401, 400, 200])
    expect(entries.map((e) => [e.status, e.outcome])).toEqual([
      [502, undefined],
      [401, undefined],
      [400, undefined],
      [200, 'done'],
    ])
    expect(entries[0]?.error?.kind).toBe('auth')
    expect(entries[3]).toMatchObject({ method: 'POST', path: '/v1/chat', model: 'ok/m' })
    const everything = JSON.stringify(entries) + texts.join('')
    for (const secret of [token, sealKey, providerKey]) expect(everything).not.toContain(secret)
  })

  it('redacts keys from what an adapter not built on guardStream throws, and from a factory that throws', async () => {
    const providerKey = 'sk-ant-api03-abcdefghijklmnop'
    const entries: RelayLogEntry[] = []
    const raw = (when: 'before' | 'after'): Adapter => ({
      provider: 'raw',
      model: when,
      async *stream() {
        if (when === 'after') yield { type: 'text', text: 'Hi' }
        throw new ThinkwireError({ kind: 'auth', message: `invalid x-api-key: ${providerKey}` })
      },
    })
    const factory = Object.assign(
      (): Adapter => {
        throw new ThinkwireError({ kind: 'auth', message: `key ${providerKey} was revoked` })
      },
      { models: ['m'] },
    )
    const relay = createRelay({
      providers: { raw: [raw('before'), raw('after')], broken: factory },
      log: (entry) => entries.push(entry),
    })
    const refused = await chat(relay, { ...body, model: 'raw/before' })
    const cut = await chat(relay, { ...body, model: 'raw/after' })
    const unbuilt = await chat(relay, { ...body, model: 'broken/m' })
    expect([refused.status, cut.status, unbuilt.status]).toEqual([502, 200, 502])
    const texts = [await refused.text(), await cut.text(), await unbuilt.text()]
    expect(texts[1]).toContain('event: error')
    for (const text of texts) expect(text).toContain('[redacted]')
    expect(JSON.stringify(entries) + texts.join('')).not.toContain(providerKey.slice(7))
  })
})
