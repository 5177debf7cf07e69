import { describe, expect, it } from 'vitest'
import { describeAdapterContract, type ContractHarness } from '../adapter-contract.ts'
import { relay } from '../../src/client/index.ts'
import { Chat } from '../../src/core/chat.ts'
import { complete } from '../../src/core/complete.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { runTools } from '../../src/core/tools.ts'
import { mock, type MockAdapter, type MockOptions } from '../../src/providers/mock/index.ts'
import { collect, failure, inProcessRelay, RELAY_URL } from './helpers.ts'

/** A relay client wired in-process to a relay that serves one scripted mock model. */
function harness(options: MockOptions): ContractHarness & { upstream: MockAdapter } {
  const upstream = mock(options)
  const server = inProcessRelay({ providers: { mock: [upstream] } })
  const adapter = relay({ url: RELAY_URL, model: `mock/${upstream.model}`, fetch: server.fetch })
  return {
    adapter,
    upstream,
    // End to end: the provider call behind the relay was aborted (the client cancelled its
    // request, the relay saw the body cancelled and stopped the upstream).
    upstreamAborted: () => upstream.calls.at(-1)?.signal.aborted === true,
    // What the provider behind the relay was sent: replayed items, or re-encoded turns.
    lastRequest: () => upstream.calls.at(-1)?.request,
    requestCount: () => server.requests.length,
  }
}

describeAdapterContract('relay client', {
  answer: (model) =>
    harness({
      model,
      script: [
        {
          thinking: 'Two and two.',
          text: 'It is 4. Ünïcödé ✓ 你好 🎉',
          toolCalls: [{ name: 'log', input: { n: 4 } }],
        },
      ],
    }),
  failAfterFirstEvent: () =>
    harness({ script: [{ text: 'partial answer', fail: { kind: 'server', afterEvents: 1 } }] }),
  stallAfterFirstEvent: () =>
    harness({ script: [{ text: 'partial answer', stallAfterEvents: 1 }] }),
  replayMarkers: (turn) => (turn.items?.data ?? []).map((item) => JSON.stringify(item)),
})

const ask: Conversation = { turns: [{ role: 'user', content: 'Hi' }] }

describe('relay client against createRelay', () => {
  it('names the provider and model behind the relay, so the items tag matches it', async () => {
    const { adapter } = harness({ model: 'echo', script: [{ text: 'ok' }] })
    expect(adapter.provider).toBe('mock')
    expect(adapter.model).toBe('echo')
    const turn = await complete(adapter, ask, { thinking: 'low' })
    expect(turn.items).toMatchObject({ provider: 'mock', model: 'echo', thinkingMode: 'low' })
  })

  it('keeps a model id with more slashes whole after the provider', () => {
    const adapter = relay({ url: RELAY_URL, model: 'openrouter/meta-llama/llama-3.3-70b' })
    expect(adapter.provider).toBe('openrouter')
    expect(adapter.model).toBe('meta-llama/llama-3.3-70b')
  })

  it('refuses a model id that is not provider/model', () => {
    for (const model of ['echo', '/echo', 'mock/']) {
      expect(() => relay({ url: RELAY_URL, model })).toThrow(/must be 'provider\/model'/)
    }
  })

  it('turns an error event after the first text into a ThinkwireError of its kind, with no done', async () => {
    const { adapter } = harness({
      chunkSize: 2,
      script: [{ text: 'abcdef', fail: { kind: 'overloaded', afterEvents: 2 } }],
    })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([
      { type: 'text', text: 'ab' },
      { type: 'text', text: 'cd' },
    ])
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, provider: 'mock' })
  })

  it('turns a 429 JSON answer into a rate-limit error with retryAfterMs and status', async () => {
    const { adapter } = harness({
      script: [{ text: 'x', fail: { kind: 'rate-limit', status: 429, retryAfterMs: 3000 } }],
    })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 3000,
      retryable: true,
    })
  })

  it('turns a refused request into an invalid-request error that names the field at fault', async () => {
    const { adapter } = harness({ script: [{ text: 'x' }] })
    const bad = { turns: [{ role: 'system', content: 'no' }] } as unknown as Conversation
    const { error } = await failure(adapter.stream(bad))
    expect(error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect((error as Error).message).toContain('conversation.turns[0]')
  })

  it('turns an unknown model into a 404 invalid-request error', async () => {
    const server = inProcessRelay({ providers: { mock: [mock()] } })
    const adapter = relay({ url: RELAY_URL, model: 'mock/nope', fetch: server.fetch })
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'invalid-request', status: 404 })
  })

  it('sends fresh headers on every call when headers is a function', async () => {
    let token = 'old-token-0123456789'
    const upstream = mock({ script: [{ text: 'ok' }] })
    const server = inProcessRelay({
      providers: { mock: [upstream] },
      auth: ['new-token-0123456789'],
    })
    const adapter = relay({
      url: `${RELAY_URL}/`,
      model: 'mock/echo',
      fetch: server.fetch,
      headers: async () => ({ authorization: `Bearer ${token}` }),
    })
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false })
    token = 'new-token-0123456789'
    const turn = await complete(adapter, ask)
    expect(turn.text).toBe('ok')
    expect(server.requests.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer old-token-0123456789',
      'Bearer new-token-0123456789',
    ])
    expect(server.requests[1]?.url).toBe(`${RELAY_URL}/v1/chat`)
  })

  it('passes sealed items through untouched, so the relay accepts and replays them', async () => {
    const upstream = mock({ script: [{ thinking: 'hm', text: 'one' }, { text: 'two' }] })
    const server = inProcessRelay({
      providers: { mock: [upstream] },
      sealKeys: ['secret-1-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'],
    })
    const adapter = relay({ url: RELAY_URL, model: 'mock/echo', fetch: server.fetch })
    const first = await complete(adapter, ask)
    expect(typeof first.items?.seal).toBe('string')
    const next: Conversation = { turns: [...ask.turns, first, { role: 'user', content: 'More' }] }
    const second = await complete(adapter, next)
    expect(second.text).toBe('two')
    expect(upstream.calls[1]?.request[1]).toEqual({
      role: 'assistant',
      replayed: first.items?.data,
    })

    // Items changed on the way (e.g. in storage) no longer match their seal and are refused.
    const tampered = structuredClone(first)
    tampered.items!.data = [{ forged: true }]
    const { error } = await failure(
      adapter.stream({ turns: [...ask.turns, tampered, { role: 'user', content: 'x' }] }),
    )
    expect(error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect((error as Error).message).toContain(
      'conversation.turns[1] was changed after this relay sealed it',
    )
  })

  it('keeps an idle stream alive on heartbeats, and times out without them', async () => {
    const slow = (heartbeatMs: number) => {
      const upstream = mock({ chunkSize: 100, delayMs: 400, script: [{ text: 'slow answer' }] })
      const server = inProcessRelay({ providers: { mock: [upstream] }, heartbeatMs })
      return relay({ url: RELAY_URL, model: 'mock/echo', fetch: server.fetch })
    }
    const turn = await complete(slow(20), ask, { idleTimeoutMs: 200 })
    expect(turn.text).toBe('slow answer')
    const { error } = await failure(slow(0).stream(ask, { idleTimeoutMs: 200 }))
    expect(error).toMatchObject({ kind: 'timeout' })
  })

  it('runs a Chat with client tools over the relay', async () => {
    const upstream = mock({
      script: [
        { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Oslo' } }] },
        { text: 'Sunny in Oslo.' },
      ],
    })
    const server = inProcessRelay({ providers: { mock: [upstream] } })
    const chat = new Chat({
      adapter: relay({ url: RELAY_URL, model: 'mock/echo', fetch: server.fetch }),
      options: { tools: [{ name: 'weather', parameters: { type: 'object' } }] },
      onToolCall: (call) => ({ sky: 'sunny', input: call.input }),
    })
    await collect(chat.send('Weather?'))
    expect(chat.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(chat.conversation.turns.at(-1)).toMatchObject({ text: 'Sunny in Oslo.' })
    // The tool turn went through the relay to the provider, after the replayed first turn.
    expect(upstream.calls[1]?.request.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
    expect(upstream.calls[1]?.request[1]).toHaveProperty('replayed')
    expect(upstream.calls[1]?.options.tools?.[0]?.name).toBe('weather')
  })

  it('runs runTools over the relay', async () => {
    const upstream = mock({
      script: [{ toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }] }, { text: '4' }],
    })
    const server = inProcessRelay({ providers: { mock: [upstream] } })
    const adapter = relay({ url: RELAY_URL, model: 'mock/echo', fetch: server.fetch })
    const result = await runTools(adapter, ask, {
      tools: {
        add: {
          parameters: { type: 'object' },
          execute: (input: { a: number; b: number }) => input.a + input.b,
        },
      },
    })
    expect(result.steps).toBe(2)
    expect(result.turn.text).toBe('4')
    expect(result.conversation.turns[2]).toMatchObject({ role: 'tool', results: [{ output: 4 }] })
  })
})
