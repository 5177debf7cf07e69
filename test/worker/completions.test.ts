/**
 * `POST /v1/chat/completions` on the Worker in workerd, used by clients written by others: the
 * official `openai` SDK, LangChain's `ChatOpenAI` and the AI SDK's OpenAI-compatible provider.
 * Anthropic is a scripted server on loopback behind `ANTHROPIC_BASE_URL`, so a tool loop run with
 * the plain OpenAI SDK can be checked on the provider's side of the wire: its second request
 * carries the first turn's signed thinking.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { ChatOpenAI } from '@langchain/openai'
import { streamText } from 'ai'
import OpenAI from 'openai'
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  expectOpenAIError,
  expectRaised,
  expectStreamError,
  expectStreamRaised,
  unchanged,
  withBody,
  withHeaders,
  type ExpectedError,
  type Rewrite,
} from '../relay/completions/openai-errors.ts'
import {
  scriptedAnthropicVars,
  startScriptedAnthropic,
  type ScriptedAnthropic,
  type UpstreamBody,
} from './scripted-anthropic.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-completions-0123456789'
const SEAL_KEYS = 'seal-completions-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'
const SIGNATURE = 'EqQBCkYIAxgCKkCompletionsSigned+/=='
const CLAUDE = 'anthropic/claude-sonnet-4-5'

let anthropic: ScriptedAnthropic
let upstreamBodies: UpstreamBody[]
let worker: TestWorker
let baseURL: string

beforeAll(async () => {
  anthropic = await startScriptedAnthropic(SIGNATURE)
  upstreamBodies = anthropic.bodies
  worker = await startTestWorker(scriptedAnthropicVars(anthropic, TOKEN, SEAL_KEYS))
  baseURL = new URL('/v1', worker.url).href
})

afterAll(async () => {
  await worker?.dispose()
  await anthropic?.close()
})

const openai = () => new OpenAI({ apiKey: TOKEN, baseURL, maxRetries: 0 })

describe('/v1/chat/completions with the official openai SDK', () => {
  it('streams reasoning and text, then usage, and answers the same without streaming', async () => {
    const stream = await openai().chat.completions.create({
      model: 'mock/echo',
      messages: [{ role: 'user', content: 'Wie spät ist es? 🕰️' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let reasoning = ''
    let content = ''
    let finish: string | null = null
    let usage: OpenAI.CompletionUsage | undefined
    for await (const chunk of stream) {
      const choice = chunk.choices[0]
      const d = choice?.delta as { content?: string | null; reasoning_content?: string } | undefined
      reasoning += d?.reasoning_content ?? ''
      content += d?.content ?? ''
      finish = choice?.finish_reason ?? finish
      usage = chunk.usage ?? usage
    }
    expect(reasoning).toContain('The user wrote')
    expect(content).toContain('You said: "Wie spät ist es? 🕰️"')
    expect(finish).toBe('stop')
    expect(usage?.total_tokens).toBeGreaterThan(0)

    const once = await openai().chat.completions.create({
      model: 'mock/echo',
      messages: [{ role: 'user', content: 'Wie spät ist es? 🕰️' }],
    })
    expect(once.object).toBe('chat.completion')
    expect(once.choices[0]?.message.content).toBe(content)
    expect(once.choices[0]?.finish_reason).toBe('stop')
  })

  it('runs an Anthropic tool loop whose second upstream request carries the signed thinking', async () => {
    const client = openai()
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ]
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Paris?' },
    ]
    upstreamBodies.length = 0
    const first = await client.chat.completions
      .stream({ model: CLAUDE, messages, tools, reasoning_effort: 'low' })
      .finalChatCompletion()
    const message = first.choices[0]!.message
    expect(first.choices[0]?.finish_reason).toBe('tool_calls')
    expect(message.content).toBe('Let me check.')
    expect(message.tool_calls).toEqual([
      {
        id: 'toolu_weather',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ])
    expect(JSON.stringify(message)).toContain('reasoning_details')

    // The message goes back as the SDK gave it, through JSON as an app would store it.
    messages.push(JSON.parse(JSON.stringify(message)) as ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: 'toolu_weather',
      content: 'sunny, 21 °C',
    })
    const second = await client.chat.completions.create({
      model: CLAUDE,
      messages,
      tools,
      reasoning_effort: 'low',
    })
    expect(second.choices[0]?.message.content).toBe('Sunny in Paris, 21 °C.')

    expect(upstreamBodies).toHaveLength(2)
    const replayed = upstreamBodies[1]!.messages[1]!
    expect(replayed.role).toBe('assistant')
    expect(replayed.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The weather needs a tool → get_weather.',
        signature: SIGNATURE,
      },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
    ])
  })

  it('replays nothing it cannot verify: an edited answer goes upstream as text, without the signature', async () => {
    const client = openai()
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Paris?' },
    ]
    const first = await client.chat.completions.create({ model: CLAUDE, messages })
    const message = JSON.parse(JSON.stringify(first.choices[0]!.message)) as {
      content: string
      reasoning_details?: { data: string }[]
    }
    // A sealed record whose seal no longer matches: the data was edited in transit.
    const detail = message.reasoning_details![0]!
    detail.data = detail.data.slice(0, -4) + (detail.data.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    upstreamBodies.length = 0
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [
        ...messages,
        message as ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: 'toolu_weather', content: 'sunny' },
      ],
    })
    expect(JSON.stringify(upstreamBodies[0])).not.toContain(SIGNATURE)
  })

  it('lists the models in OpenAI’s shape', async () => {
    const ids: string[] = []
    for await (const model of openai().models.list()) ids.push(model.id)
    expect(ids).toContain('mock/echo')
    expect(ids).toContain(CLAUDE)
  })
})

describe('/v1/chat/completions errors through the Worker', () => {
  const ask = (model = 'mock/echo', content = 'Hi') => ({
    model,
    messages: [{ role: 'user' as const, content }],
  })
  const invalid = { type: 'invalid_request_error', code: null, param: null } as const
  const cases: [string, ChatCompletionCreateParams, Rewrite, string, ExpectedError][] = [
    [
      'a body that is not JSON',
      ask(),
      withBody('{"model":'),
      TOKEN,
      { status: 400, ...invalid, raises: OpenAI.BadRequestError },
    ],
    [
      'a content-type other than JSON',
      ask(),
      withHeaders({ 'content-type': 'text/plain' }),
      TOKEN,
      { status: 415, ...invalid, raises: OpenAI.APIError },
    ],
    [
      'a body over the size limit',
      ask('mock/echo', 'x'.repeat(1_100_000)),
      unchanged,
      TOKEN,
      { status: 413, ...invalid, raises: OpenAI.APIError },
    ],
    [
      'a model the relay does not serve',
      ask('mock/nothing'),
      unchanged,
      TOKEN,
      {
        status: 404,
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
        raises: OpenAI.NotFoundError,
      },
    ],
    [
      'a field the relay does not take',
      { ...ask(), n: 2 },
      unchanged,
      TOKEN,
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'n',
        raises: OpenAI.BadRequestError,
      },
    ],
    [
      'a field that is not part of the OpenAI API',
      { ...ask(), base_url: 'http://evil.test' } as ChatCompletionCreateParams,
      unchanged,
      TOKEN,
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'unknown_parameter',
        param: 'base_url',
        raises: OpenAI.BadRequestError,
      },
    ],
    [
      'a token the relay does not know',
      ask(),
      unchanged,
      'wrong-token-0123456789',
      {
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
        param: null,
        raises: OpenAI.AuthenticationError,
        headers: { 'www-authenticate': 'Bearer' },
      },
    ],
    [
      'a method other than POST',
      ask(),
      withBody(null, 'GET'),
      TOKEN,
      { status: 405, ...invalid, raises: OpenAI.APIError, headers: { allow: 'POST, OPTIONS' } },
    ],
    [
      'a provider over its rate limit',
      ask('test/refuse'),
      unchanged,
      TOKEN,
      {
        status: 429,
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        param: null,
        raises: OpenAI.RateLimitError,
        headers: { 'retry-after': '7' },
      },
    ],
  ]

  it.each(cases)(
    'answers %s in OpenAI’s error shape, which the openai SDK raises as its typed error',
    async (_, params, rewrite, apiKey, expected) => {
      const sent = rewrite(
        new Request(`${baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify(params),
        }),
      )
      const error = await expectOpenAIError(await fetch(sent), expected)
      const sdk = new OpenAI({
        apiKey,
        baseURL,
        maxRetries: 0,
        fetch: (input, init) => fetch(rewrite(new Request(input, init))),
      })
      await expectRaised(() => sdk.chat.completions.create(params), expected, error)
    },
  )

  it('ends a stream that fails after its first chunk with an error chunk and no [DONE]', async () => {
    const response = await worker.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ ...ask('test/break'), stream: true }),
    })
    expect(response.status).toBe(200)
    const error = expectStreamError(await response.text(), 'server_error')
    const stream = await openai().chat.completions.create({ ...ask('test/break'), stream: true })
    await expectStreamRaised(stream, 'partial answer', error)
  })
})

describe('/v1/chat/completions with other clients', () => {
  it('answers LangChain’s ChatOpenAI with its reasoning, streamed and not', async () => {
    const chat = new ChatOpenAI({
      model: 'mock/echo',
      apiKey: TOKEN,
      configuration: { baseURL },
      maxRetries: 0,
    })
    const answer = await chat.invoke('Bonjour, ça va ?')
    expect(answer.content).toContain('You said: "Bonjour, ça va ?"')
    expect(answer.additional_kwargs['reasoning_content']).toContain('The user wrote')
    let streamed = ''
    let reasoning = ''
    for await (const chunk of await chat.stream('Bonjour, ça va ?')) {
      streamed += String(chunk.content)
      const piece = chunk.additional_kwargs['reasoning_content']
      if (typeof piece === 'string') reasoning += piece
    }
    expect(streamed).toBe(answer.content)
    expect(reasoning).toBe(answer.additional_kwargs['reasoning_content'])
  })

  it('answers the AI SDK’s OpenAI-compatible provider, with its reasoning', async () => {
    const relay = createOpenAICompatible({ name: 'relay', baseURL, apiKey: TOKEN })
    const result = streamText({ model: relay('mock/echo'), prompt: 'Hola 👋' })
    expect(await result.text).toContain('You said: "Hola 👋"')
    expect(await result.reasoningText).toContain('The user wrote')
    expect(await result.finishReason).toBe('stop')
  })
})
