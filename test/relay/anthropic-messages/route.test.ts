/**
 * `POST /v1/messages` in process, driven by `@anthropic-ai/sdk`: answers streamed and not, usage,
 * tools both ways, the client leaving mid-answer, the sealed state's round trip (replayed verbatim
 * to the model that made it, dropped with a note when changed or sent to another model), and the
 * browser preflight for the headers Anthropic's clients send.
 */
import Anthropic from '@anthropic-ai/sdk'
import type {
  ContentBlock,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../../src/core/adapter.ts'
import type { Pricing } from '../../../src/core/pricing.ts'
import { guardStream } from '../../../src/kit/guard-stream.ts'
import { mock, type MockAdapter } from '../../../src/providers/mock/index.ts'
import { sealedBlock, sealedRecordOf } from '../../../src/relay/anthropic-messages/index.ts'
import { createRelay, type Relay, type RelayLogEntry } from '../../../src/relay/index.ts'
import { eventually } from '../../helpers/eventually.ts'
import { readUntil } from '../sse-reader.ts'

const TOKEN = 'token-messages-route-01'
const SEAL = 'seal-messages-route-Qm4Rt8Wz2Xc6Vb0Nk5Lp'

function sdk(relay: Relay, options: { signal?: AbortSignal } = {}): Anthropic {
  return new Anthropic({
    apiKey: TOKEN,
    baseURL: 'http://relay.test',
    maxRetries: 0,
    fetch: (input, init) => relay.fetch(new Request(input, { ...init, ...options })),
  })
}

const weather: Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}
const ask: MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }]

/** An answer with thinking, a sentence and a call, then one that answers the call's result. */
const TOOL_SCRIPT = [
  {
    thinking: 'The weather needs a tool.',
    text: 'Let me check.',
    toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
  },
  { text: 'Sunny in Paris.' },
]

/** Two Anthropic models (the mock, as `anthropic`), sealing, and a log. */
function sealedRelay() {
  const claude = mock({ provider: 'anthropic', model: 'claude-x', script: TOOL_SCRIPT })
  const other = mock({ provider: 'anthropic', model: 'claude-y', script: TOOL_SCRIPT })
  const entries: RelayLogEntry[] = []
  const relay = createRelay({
    providers: { anthropic: [claude, other] },
    auth: [TOKEN],
    sealKeys: [SEAL],
    log: (entry) => entries.push(entry),
  })
  return { relay, claude, other, entries }
}

/** The content of the first answer (as the SDK assembled it), then the tool result for it. */
async function firstAnswer(relay: Relay): Promise<ContentBlock[]> {
  const message = await sdk(relay)
    .messages.stream({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      messages: ask,
      tools: [weather],
    })
    .finalMessage()
  return message.content
}

/** The conversation that sends `content` back as the assistant's, with the call's result. */
const followUp = (content: unknown): MessageParam[] => [
  ...ask,
  { role: 'assistant', content: content as ContentBlock[] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
]

/** What the mock was sent for the assistant turn of its `call`-th call. */
const sentTurn = (adapter: MockAdapter, call: number) => adapter.calls[call]!.request[1]

describe('/v1/messages answers', () => {
  const relay = createRelay({ providers: { mock: [mock()] }, auth: [TOKEN] })

  it('streams thinking and text with messages.stream(), and answers the same without streaming', async () => {
    const stream = sdk(relay).messages.stream({
      model: 'mock/echo',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Wie spät ist es? 🕰️' }],
    })
    let thinking = ''
    stream.on('thinking', (delta) => (thinking += delta))
    const streamed = await stream.finalMessage()
    expect(thinking).toContain('The user wrote')
    expect(streamed.content.map((block) => block.type)).toEqual(['thinking', 'text'])
    expect(streamed.stop_reason).toBe('end_turn')
    expect(streamed.usage.input_tokens).toBeGreaterThan(0)
    expect(streamed.usage.output_tokens).toBeGreaterThan(0)

    const once = await sdk(relay).messages.create({
      model: 'mock/echo',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Wie spät ist es? 🕰️' }],
    })
    expect(once.type).toBe('message')
    expect(once.id).toMatch(/^msg_[0-9a-f]{24}$/)
    expect(once.model).toBe('mock/echo')
    expect(once.content).toEqual(streamed.content)
    expect(once.usage).toEqual(streamed.usage)
  })

  it('calls tools and answers their results, with tool_choice passed on', async () => {
    const adapter = mock({ provider: 'anthropic', model: 'claude-x' })
    const tooled = createRelay({ providers: { anthropic: [adapter] }, auth: [TOKEN] })
    const client = sdk(tooled)
    const messages: MessageParam[] = [
      { role: 'user', content: 'Use get_weather: is it sunny in "Paris"?' },
    ]
    const first = await client.messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      messages,
      tools: [weather],
      tool_choice: { type: 'any' },
    })
    expect(first.stop_reason).toBe('tool_use')
    const call = first.content.find((block) => block.type === 'tool_use')
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } })
    expect(adapter.calls[0]!.options).toMatchObject({
      toolChoice: 'required',
      tools: [{ name: 'get_weather', parameters: weather.input_schema }],
    })
    if (call?.type !== 'tool_use') throw new Error('expected a tool_use block')
    messages.push(
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 21 °C' }],
      },
    )
    const second = await client.messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      messages,
      tools: [weather],
    })
    expect(second.stop_reason).toBe('end_turn')
    expect(JSON.stringify(second.content)).toContain('sunny, 21 °C')
    expect(adapter.calls[1]!.request.at(-1)).toEqual({
      role: 'tool',
      results: [{ callId: call.id, name: 'get_weather', output: 'sunny, 21 °C' }],
    })
  })

  it('stops the upstream call when the client leaves mid-answer, and the answer ends', async () => {
    // The first delta goes at once; the second waits until the call is aborted.
    const adapter = mock({
      script: [{ text: 'One. Two.' }],
      chunkSize: 5,
      pace: ({ index }) => (index === 0 ? Promise.resolve() : new Promise(() => {})),
    })
    const entries: RelayLogEntry[] = []
    const left = createRelay({
      providers: { mock: [adapter] },
      auth: [TOKEN],
      log: (entry) => entries.push(entry),
    })
    const controller = new AbortController()
    const stream = sdk(left, { signal: controller.signal }).messages.stream({
      model: 'mock/echo',
      max_tokens: 1024,
      messages: ask,
    })
    await new Promise<void>((resolve) => stream.on('text', () => resolve()))
    expect(adapter.calls[0]!.signal.aborted).toBe(false)
    controller.abort()
    await expect(stream.finalMessage()).rejects.toThrow()
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
    // Its log entry is written once it ended: by the abort, or by the response's cancel.
    await eventually(() => entries.length === 1, 'the log entry')
    expect(entries[0]!.path).toBe('/v1/messages')
    expect(['cancel', 'error']).toContain(entries[0]!.outcome)
  })

  it('stops the upstream call when the response body is cancelled', async () => {
    const adapter = mock({
      script: [{ thinking: 'Thinking', stallAfterEvents: 1 }],
      chunkSize: 100,
    })
    const left = createRelay({ providers: { mock: [adapter] }, auth: [TOKEN] })
    const response = await left.fetch(
      new Request('http://relay.test/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
        body: JSON.stringify({ model: 'mock/echo', max_tokens: 64, messages: ask, stream: true }),
      }),
    )
    const seen = await readUntil(response, (read) => read.events.length >= 3)
    expect(seen.events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
    ])
    await response.body!.cancel()
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
  })
})

/** $3 input, $0.30 cached input, $15 output per million tokens. */
const PRICE: Pricing = { input: 3, cachedInput: 0.3, output: 15 }
/** 200 fresh input tokens × $3 + 800 cached × $0.30 + 500 output × $15, per million. */
const COST = (200 * 3 + 800 * 0.3 + 500 * 15) / 1e6

/** An adapter with a price: it answers one sentence with 1,000 input tokens, 800 of them cached. */
function priced(): Adapter {
  return {
    provider: 'acme',
    model: 'm-1',
    capabilities: { thinking: { mode: 'none' }, tools: false, json: false, pricing: PRICE },
    stream: (_, options) =>
      guardStream({ provider: 'acme', model: 'm-1', options, pricing: PRICE }, async function* () {
        yield { type: 'text', text: 'Priced.' }
        return {
          usage: {
            inputTokens: 1000,
            outputTokens: 500,
            cacheReadTokens: 800,
            reasoningTokens: 20,
          },
          stopReason: 'stop',
        }
      }),
  }
}

describe('/v1/messages usage', () => {
  const relay = createRelay({ providers: { acme: [priced()] }, auth: [TOKEN] })
  const question = { model: 'acme/m-1', max_tokens: 1024, messages: ask }
  const expected = {
    input_tokens: 200,
    cache_read_input_tokens: 800,
    cache_creation_input_tokens: 0,
    output_tokens: 500,
    output_tokens_details: { thinking_tokens: 20 },
  }

  it('reports input apart from the cache, thinking tokens and the cost, streamed and not', async () => {
    const streamed = await sdk(relay).messages.stream(question).finalMessage()
    expect(streamed.usage).toMatchObject(expected)
    // The stream helper keeps only the counts it knows: the cost is in message_delta's usage.
    const events = await sdk(relay).messages.create({ ...question, stream: true })
    let cost: unknown
    for await (const event of events) {
      if (event.type === 'message_delta') cost = (event.usage as { cost?: number }).cost
    }
    expect(cost).toBeCloseTo(COST, 12)
    const once = await sdk(relay).messages.create(question)
    expect(once.usage).toMatchObject(expected)
    expect((once.usage as { cost?: number }).cost).toBeCloseTo(COST, 12)
  })

  it('leaves cost out when the model has no price', async () => {
    const plain = createRelay({ providers: { mock: [mock()] }, auth: [TOKEN] })
    const once = await sdk(plain).messages.create({ ...question, model: 'mock/echo' })
    expect(once.usage).not.toHaveProperty('cost')
  })
})

describe('/v1/messages sealed reasoning state', () => {
  it('ends a sealed answer with a thinking block that replays the turn verbatim to its model', async () => {
    const { relay, claude, entries } = sealedRelay()
    const content = await firstAnswer(relay)
    expect(content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use', 'thinking'])
    expect(content[0]).toEqual({
      type: 'thinking',
      thinking: 'The weather needs a tool.',
      signature: '',
    })
    expect(content[3]).toMatchObject({ type: 'thinking', thinking: '' })

    await sdk(relay).messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      tools: [weather],
      // Through JSON, as an app would store it.
      messages: JSON.parse(JSON.stringify(followUp(content))) as MessageParam[],
    })
    expect(sentTurn(claude, 1)).toEqual({
      role: 'assistant',
      replayed: [
        {
          type: 'mock-turn',
          thinking: 'The weather needs a tool.',
          text: 'Let me check.',
          toolCalls: TOOL_SCRIPT[0]!.toolCalls,
          callIndex: 0,
        },
      ],
    })
    expect(entries.at(-1)?.notes).toBeUndefined()
  })

  it('replays the sealed block from any position in the message', async () => {
    const { relay, claude } = sealedRelay()
    const content = await firstAnswer(relay)
    const moved = [content[3]!, ...content.slice(0, 3)]
    await sdk(relay).messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      tools: [weather],
      messages: followUp(moved),
    })
    expect(sentTurn(claude, 1)).toMatchObject({ role: 'assistant', replayed: expect.any(Array) })
  })

  it('drops the state of a message whose text was changed, notes it, and sends the turn from its text and calls', async () => {
    const { relay, claude, entries } = sealedRelay()
    const content = await firstAnswer(relay)
    const edited = content.map((block) =>
      block.type === 'text' ? { ...block, text: 'Let me look.' } : block,
    )
    const answer = await sdk(relay).messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      tools: [weather],
      messages: followUp(edited),
    })
    expect(answer.stop_reason).toBe('end_turn')
    expect(sentTurn(claude, 1)).toEqual({
      role: 'assistant',
      text: 'Let me look.',
      toolCalls: TOOL_SCRIPT[0]!.toolCalls,
    })
    expect(entries.at(-1)?.notes).toEqual([
      'messages[1].content[3].signature dropped: its text is not the text blocks of messages[1].content',
    ])
  })

  it('drops a sealed block whose record was changed, as the seal shows, and notes it', async () => {
    const { relay, claude, entries } = sealedRelay()
    const content = await firstAnswer(relay)
    const record = sealedRecordOf((content[3] as { signature: string }).signature)!
    // The same text and calls, other items: the seal no longer covers them.
    const forged = sealedBlock({
      role: 'assistant',
      text: record.text,
      thinking: record.thinking,
      toolCalls: record.toolCalls,
      items: { ...record.items, data: [{ type: 'mock-turn', text: 'forged' }] },
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    })!
    await sdk(relay).messages.create({
      model: 'anthropic/claude-x',
      max_tokens: 1024,
      tools: [weather],
      messages: followUp([...content.slice(0, 3), forged]),
    })
    expect(sentTurn(claude, 1)).toEqual({
      role: 'assistant',
      text: 'Let me check.',
      toolCalls: TOOL_SCRIPT[0]!.toolCalls,
    })
    expect(entries.at(-1)?.notes?.join(' ')).toMatch(
      /^conversation\.turns\[1\]\.items dropped: the turn was changed after this relay sealed it/,
    )
    expect(JSON.stringify(entries.at(-1))).not.toContain('forged')
  })

  it('sends the turn to another model from its text and calls, and notes that its state was not replayed', async () => {
    const { relay, other, entries } = sealedRelay()
    const content = await firstAnswer(relay)
    await sdk(relay).messages.create({
      model: 'anthropic/claude-y',
      max_tokens: 1024,
      tools: [weather],
      messages: followUp(content),
    })
    expect(sentTurn(other, 0)).toEqual({
      role: 'assistant',
      text: 'Let me check.',
      toolCalls: TOOL_SCRIPT[0]!.toolCalls,
    })
    expect(entries.at(-1)?.notes).toEqual([
      'conversation.turns[1].items not replayed: made by another provider, model or thinking mode than anthropic/claude-y (thinking default), so the turn was sent from its text and tool calls',
    ])
  })

  it('sends no sealed block without seal keys', async () => {
    const claude = mock({ provider: 'anthropic', model: 'claude-x', script: TOOL_SCRIPT })
    const unsealed = createRelay({ providers: { anthropic: [claude] }, auth: [TOKEN] })
    const content = await firstAnswer(unsealed)
    expect(content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use'])
  })
})

describe('/v1/messages from a browser', () => {
  const relay = createRelay({
    providers: { mock: [mock()] },
    auth: [TOKEN],
    cors: { origins: ['https://app.test'] },
  })

  /** The names of the headers a client sends, captured before they leave. */
  async function sentHeaders(send: (fetch: typeof globalThis.fetch) => Promise<unknown>) {
    const names: string[] = []
    await send(async (_url, init) => {
      names.push(...new Headers(init?.headers).keys())
      throw new Error('captured')
    }).catch(() => {})
    return names
  }

  it('allows in its preflight every header the Anthropic SDK sends from a page', async () => {
    const client = (fetch: typeof globalThis.fetch, key: 'apiKey' | 'x-api-key') =>
      new Anthropic({
        ...(key === 'apiKey'
          ? { apiKey: TOKEN }
          : { apiKey: null, defaultHeaders: { 'x-api-key': TOKEN } }),
        baseURL: 'http://relay.test',
        dangerouslyAllowBrowser: true,
        maxRetries: 0,
        fetch,
      })
    const params = { model: 'mock/echo', max_tokens: 64, messages: ask, tools: [weather] }
    const sent = new Set([
      ...(await sentHeaders((fetch) => client(fetch, 'apiKey').messages.create(params))),
      ...(await sentHeaders((fetch) =>
        client(fetch, 'x-api-key').messages.stream(params).finalMessage(),
      )),
      ...(await sentHeaders((fetch) =>
        client(fetch, 'apiKey').messages.create(params, { headers: { 'anthropic-beta': 'x' } }),
      )),
    ])
    expect(sent).toContain('x-api-key')
    expect(sent).toContain('anthropic-dangerous-direct-browser-access')
    // `accept` is safelisted: a browser asks for no other one.
    const asked = [...sent].filter((name) => name !== 'accept')
    const preflight = await relay.fetch(
      new Request('http://relay.test/v1/messages', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.test',
          'access-control-request-method': 'POST',
          'access-control-request-headers': asked.join(','),
        },
      }),
    )
    expect(preflight.status).toBe(204)
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(', ')
    expect(asked.filter((name) => !allowed.includes(name))).toEqual([])
  })
})
