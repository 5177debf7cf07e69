/**
 * `POST /v1/messages` on the Worker in workerd, used by clients written by others: the official
 * `@anthropic-ai/sdk` (`messages.create`, streamed and not, and `messages.stream()`) and LangChain's
 * `ChatAnthropic` (which sends its key as `x-api-key`). Anthropic is a scripted server on loopback
 * behind `ANTHROPIC_BASE_URL`, so a tool loop run through a client can be checked on the
 * provider's side of the wire: its second request carries the first turn's signed thinking, and
 * never the relay's sealed block.
 */
import Anthropic from '@anthropic-ai/sdk'
import type {
  ContentBlock,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages'
import { ChatAnthropic } from '@langchain/anthropic'
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unchanged, withBody, type Rewrite } from '../relay/completions/openai-errors.ts'
import {
  expectMessagesError,
  expectRaised,
  expectStreamError,
  expectStreamRaised,
  type ExpectedMessagesError,
} from '../relay/anthropic-messages/anthropic-errors.ts'
import {
  scriptedAnthropicVars,
  startScriptedAnthropic,
  toolTurnContent,
  type ScriptedAnthropic,
  type UpstreamBody,
} from './scripted-anthropic.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-messages-0123456789'
const SEAL_KEYS = 'seal-messages-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'
const SIGNATURE = 'EqQBCkYIAxgCKkMessagesSigned+/=='
const CLAUDE = 'anthropic/claude-sonnet-4-5'

/** The first answer's content as the provider made it: what a replay must send back. */
const REPLAYED = toolTurnContent(SIGNATURE)

let anthropic: ScriptedAnthropic
let upstreamBodies: UpstreamBody[]
let worker: TestWorker
let baseURL: string

beforeAll(async () => {
  anthropic = await startScriptedAnthropic(SIGNATURE)
  upstreamBodies = anthropic.bodies
  worker = await startTestWorker(scriptedAnthropicVars(anthropic, TOKEN, SEAL_KEYS))
  baseURL = worker.url.origin
})

afterAll(async () => {
  await worker?.dispose()
  await anthropic?.close()
})

const client = (apiKey = TOKEN) => new Anthropic({ apiKey, baseURL, maxRetries: 0 })

const weather: Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
}

/** The upstream's view of the assistant turn a second request sent. */
const replayedTurn = () => upstreamBodies.at(-1)!.messages[1]!

describe('/v1/messages with @anthropic-ai/sdk', () => {
  it('streams thinking and text with create({ stream: true }), and answers the same without streaming', async () => {
    const ask = {
      model: 'mock/echo',
      max_tokens: 1024,
      messages: [{ role: 'user' as const, content: 'Wie spät ist es? 🕰️' }],
    }
    const stream = await client().messages.create({ ...ask, stream: true })
    let thinking = ''
    let text = ''
    let reason: string | null = null
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta')
        thinking += event.delta.thinking
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        text += event.delta.text
      if (event.type === 'message_delta') reason = event.delta.stop_reason
    }
    expect(thinking).toContain('The user wrote')
    expect(text).toContain('You said: "Wie spät ist es? 🕰️"')
    expect(reason).toBe('end_turn')

    const once = await client().messages.create(ask)
    expect(once.type).toBe('message')
    expect(once.content.find((b) => b.type === 'text')).toEqual({ type: 'text', text })
    expect(once.stop_reason).toBe('end_turn')
  })

  it('runs an Anthropic tool loop whose second upstream request carries the signed thinking, not the sealed block', async () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }]
    upstreamBodies.length = 0
    const stream = client().messages.stream({
      model: CLAUDE,
      max_tokens: 4096,
      messages,
      tools: [weather],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    })
    let thinking = ''
    stream.on('thinking', (piece) => (thinking += piece))
    const first = await stream.finalMessage()
    expect(thinking).toBe('The weather needs a tool → get_weather.')
    expect(first.stop_reason).toBe('tool_use')
    expect(first.content.slice(0, 3)).toEqual([
      { type: 'thinking', thinking: 'The weather needs a tool → get_weather.', signature: '' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
    ])
    expect(first.content[3]).toMatchObject({ type: 'thinking', thinking: '' })
    // The provider's signature travels only inside the seal.
    expect(JSON.stringify(first)).not.toContain(SIGNATURE)

    // The content goes back as the SDK gave it, through JSON as an app would store it.
    messages.push(
      { role: 'assistant', content: JSON.parse(JSON.stringify(first.content)) as ContentBlock[] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_weather', content: 'sunny, 21 °C' }],
      },
    )
    const second = await client().messages.create({
      model: CLAUDE,
      max_tokens: 4096,
      messages,
      tools: [weather],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    })
    expect(second.content.find((b) => b.type === 'text')).toEqual({
      type: 'text',
      text: 'Sunny in Paris, 21 °C.',
    })
    expect(upstreamBodies).toHaveLength(2)
    expect(replayedTurn()).toEqual({ role: 'assistant', content: REPLAYED })
  })

  it('replays nothing it cannot verify: an edited answer goes upstream as text, without the signature', async () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }]
    const first = await client().messages.create({
      model: CLAUDE,
      max_tokens: 1024,
      messages,
      tools: [weather],
    })
    const edited = first.content.map((b) =>
      b.type === 'text' ? { ...b, text: 'Let me look.' } : b,
    )
    upstreamBodies.length = 0
    await client().messages.create({
      model: CLAUDE,
      max_tokens: 1024,
      tools: [weather],
      messages: [
        ...messages,
        { role: 'assistant', content: edited },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_weather', content: 'sunny' }],
        },
      ],
    })
    expect(JSON.stringify(upstreamBodies[0])).not.toContain(SIGNATURE)
    expect(JSON.stringify(replayedTurn())).toContain('Let me look.')
  })
})

describe('/v1/messages with LangChain’s ChatAnthropic', () => {
  const chat = () =>
    new ChatAnthropic({
      model: CLAUDE,
      apiKey: TOKEN,
      anthropicApiUrl: baseURL,
      maxRetries: 0,
      maxTokens: 1024,
    }).bindTools([weather])

  it('invokes with a tool bound, and its AIMessage sent back replays the signed thinking', async () => {
    upstreamBodies.length = 0
    const question = new HumanMessage('What is the weather in Paris?')
    const first = await chat().invoke([question])
    expect(first.tool_calls).toEqual([
      { id: 'toolu_weather', name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' },
    ])
    const history: BaseMessage[] = [
      question,
      first,
      new ToolMessage({ tool_call_id: 'toolu_weather', content: 'sunny, 21 °C' }),
    ]
    const second = await chat().invoke(history)
    expect(second.text).toBe('Sunny in Paris, 21 °C.')
    expect(upstreamBodies).toHaveLength(2)
    expect(replayedTurn()).toEqual({ role: 'assistant', content: REPLAYED })
  })

  it('streams with a tool bound, and the assembled message sent back replays the signed thinking', async () => {
    upstreamBodies.length = 0
    const question = new HumanMessage('What is the weather in Paris?')
    let assembled: AIMessage | undefined
    for await (const chunk of await chat().stream([question]))
      assembled = assembled === undefined ? chunk : (assembled as typeof chunk).concat(chunk)
    expect(assembled?.tool_calls).toMatchObject([
      { id: 'toolu_weather', name: 'get_weather', args: { city: 'Paris' } },
    ])
    const second = await chat().invoke([
      question,
      assembled!,
      new ToolMessage({ tool_call_id: 'toolu_weather', content: 'sunny, 21 °C' }),
    ])
    expect(second.text).toBe('Sunny in Paris, 21 °C.')
    expect(replayedTurn()).toEqual({ role: 'assistant', content: REPLAYED })
  })
})

describe('/v1/messages errors through the Worker', () => {
  const ask = (model = 'mock/echo', content = 'Hi'): MessageCreateParamsNonStreaming => ({
    model,
    max_tokens: 1024,
    messages: [{ role: 'user', content }],
  })
  const invalid = { type: 'invalid_request_error' } as const
  const cases: [string, MessageCreateParamsNonStreaming, Rewrite, string, ExpectedMessagesError][] =
    [
      [
        'a body that is not JSON',
        ask(),
        withBody('{"model":'),
        TOKEN,
        { status: 400, ...invalid, raises: Anthropic.BadRequestError },
      ],
      [
        'a body over the size limit',
        ask('mock/echo', 'x'.repeat(1_100_000)),
        unchanged,
        TOKEN,
        { status: 413, type: 'request_too_large', raises: Anthropic.ContentTooLargeError },
      ],
      [
        'a model the relay does not serve',
        ask('mock/nothing'),
        unchanged,
        TOKEN,
        { status: 404, type: 'not_found_error', raises: Anthropic.NotFoundError },
      ],
      [
        'a field that is not part of the Messages API',
        { ...ask(), base_url: 'http://evil.test' } as MessageCreateParamsNonStreaming,
        unchanged,
        TOKEN,
        { status: 400, ...invalid, raises: Anthropic.BadRequestError },
      ],
      [
        'a token the relay does not know',
        ask(),
        unchanged,
        'wrong-token-0123456789',
        {
          status: 401,
          type: 'authentication_error',
          raises: Anthropic.AuthenticationError,
          headers: { 'www-authenticate': 'Bearer' },
        },
      ],
      [
        'a method other than POST',
        ask(),
        withBody(null, 'GET'),
        TOKEN,
        {
          status: 405,
          ...invalid,
          raises: Anthropic.APIError,
          headers: { allow: 'POST, OPTIONS' },
        },
      ],
      [
        'a provider over its rate limit',
        ask('test/refuse'),
        unchanged,
        TOKEN,
        {
          status: 429,
          type: 'rate_limit_error',
          raises: Anthropic.RateLimitError,
          headers: { 'retry-after': '7' },
        },
      ],
    ]

  it.each(cases)(
    'answers %s in Anthropic’s error shape, which the SDK raises as its typed error',
    async (_, params, rewrite, apiKey, expected) => {
      const sent = rewrite(
        new Request(`${baseURL}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify(params),
        }),
      )
      const body = await expectMessagesError(await fetch(sent), expected)
      const sdk = new Anthropic({
        apiKey,
        baseURL,
        maxRetries: 0,
        fetch: (input, init) => fetch(rewrite(new Request(input, init))),
      })
      await expectRaised(() => sdk.messages.create(params), expected, body)
    },
  )

  it('takes the relay token as x-api-key, and refuses a wrong one with a 401 in Anthropic’s shape', async () => {
    const post = (key: string) =>
      worker.fetch('/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(ask()),
      })
    const ok = await post(TOKEN)
    expect(ok.status).toBe(200)
    expect(((await ok.json()) as { type: string }).type).toBe('message')
    await expectMessagesError(await post('wrong-token-0123456789'), {
      status: 401,
      type: 'authentication_error',
      raises: Anthropic.AuthenticationError,
    })
  })

  it('ends a stream that fails after its first event with an error event the SDK raises', async () => {
    const response = await worker.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ ...ask('test/break'), stream: true }),
    })
    expect(response.status).toBe(200)
    const body = expectStreamError(await response.text(), 'api_error')
    const stream = await client().messages.create({ ...ask('test/break'), stream: true })
    await expectStreamRaised(stream, 'partial answer', body)
  })
})
