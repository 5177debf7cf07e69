/**
 * `POST /v1/responses` on the Worker in workerd, used by clients written by others: the official
 * `openai` SDK (`responses.create()` streamed and not, `responses.stream()`) and the OpenAI Agents
 * SDK. Anthropic is a scripted server on loopback behind `ANTHROPIC_BASE_URL`, so a tool loop run
 * through either client can be checked on the provider's side of the wire: its second request
 * carries the first turn's signed thinking, which rode in the sealed reasoning item.
 */
import {
  Agent,
  ModelBehaviorError,
  OpenAIProvider,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
} from '@openai/agents'
import OpenAI from 'openai'
import type {
  FunctionTool,
  ResponseCreateParams,
  ResponseInput,
} from 'openai/resources/responses/responses'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  expectOpenAIError,
  expectRaised,
  unchanged,
  withBody,
  type ExpectedError,
  type Rewrite,
} from '../relay/completions/openai-errors.ts'
import {
  scriptedAnthropicVars,
  startScriptedAnthropic,
  toolTurnContent,
  type ScriptedAnthropic,
  type UpstreamBody,
} from './scripted-anthropic.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-responses-0123456789'
const SEAL_KEYS = 'seal-responses-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'
const SIGNATURE = 'EqQBCkYIAxgCKkResponsesSigned+/=='
const CLAUDE = 'anthropic/claude-sonnet-4-5'

/** The first turn as the provider gave it, which must come back verbatim. */
const SIGNED_TURN = toolTurnContent(SIGNATURE)

let anthropic: ScriptedAnthropic
let upstreamBodies: UpstreamBody[]
let worker: TestWorker
let baseURL: string

beforeAll(async () => {
  anthropic = await startScriptedAnthropic(SIGNATURE)
  upstreamBodies = anthropic.bodies
  worker = await startTestWorker(scriptedAnthropicVars(anthropic, TOKEN, SEAL_KEYS))
  baseURL = new URL('/v1', worker.url).href
  setTracingDisabled(true)
})

afterAll(async () => {
  await worker?.dispose()
  await anthropic?.close()
})

const openai = () => new OpenAI({ apiKey: TOKEN, baseURL, maxRetries: 0 })

const weather: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}

/** The output as an app keeps it: through JSON, as the SDK gave it. */
const stored = (output: unknown) => JSON.parse(JSON.stringify(output)) as ResponseInput

describe('/v1/responses with the official openai SDK', () => {
  it('streams the thinking summary and text, then usage, and answers the same without streaming', async () => {
    const input = 'Wie spät ist es? 🕰️'
    const stream = await openai().responses.create({ model: 'mock/echo', input, stream: true })
    let thinking = ''
    let text = ''
    let usage: OpenAI.Responses.ResponseUsage | undefined
    for await (const event of stream) {
      if (event.type === 'response.reasoning_summary_text.delta') thinking += event.delta
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') usage = event.response.usage
    }
    expect(thinking).toContain('The user wrote')
    expect(text).toContain('You said: "Wie spät ist es? 🕰️"')
    expect(usage?.total_tokens).toBeGreaterThan(0)

    const once = await openai().responses.create({ model: 'mock/echo', input })
    expect(once.object).toBe('response')
    expect(once.status).toBe('completed')
    expect(once.output_text).toBe(text)
  })

  it('runs an Anthropic tool loop whose second upstream request carries the signed thinking', async () => {
    const client = openai()
    const input: ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }]
    upstreamBodies.length = 0
    const first = await client.responses
      .stream({ model: CLAUDE, input, tools: [weather], reasoning: { effort: 'low' } })
      .finalResponse()
    expect(first.status).toBe('completed')
    expect(first.output_text).toBe('Let me check.')
    expect(first.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'reasoning',
    ])
    expect(first.output[0]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'The weather needs a tool → get_weather.' }],
    })
    expect(first.output[2]).toMatchObject({
      call_id: 'toolu_weather',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    })

    input.push(...stored(first.output), {
      type: 'function_call_output',
      call_id: 'toolu_weather',
      output: 'sunny, 21 °C',
    })
    const second = await client.responses.create({
      model: CLAUDE,
      input,
      tools: [weather],
      reasoning: { effort: 'low' },
    })
    expect(second.output_text).toBe('Sunny in Paris, 21 °C.')

    expect(upstreamBodies).toHaveLength(2)
    const replayed = upstreamBodies[1]!.messages[1]!
    expect(replayed).toEqual({ role: 'assistant', content: SIGNED_TURN })
  })

  it('replays nothing it cannot verify: an edited answer goes upstream as text, without the signature', async () => {
    const client = openai()
    const input: ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }]
    const first = await client.responses.create({ model: CLAUDE, input, tools: [weather] })
    const output = stored(first.output) as { encrypted_content?: string }[]
    // A sealed record whose seal no longer matches: its last bytes were edited in transit.
    const sealed = output.at(-1)!
    sealed.encrypted_content =
      sealed.encrypted_content!.slice(0, -4) +
      (sealed.encrypted_content!.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    upstreamBodies.length = 0
    const second = await client.responses.create({
      model: CLAUDE,
      input: [
        ...input,
        ...(output as ResponseInput),
        { type: 'function_call_output', call_id: 'toolu_weather', output: 'sunny' },
      ],
      tools: [weather],
    })
    expect(second.output_text).toBe('Sunny in Paris, 21 °C.')
    expect(JSON.stringify(upstreamBodies[0])).not.toContain(SIGNATURE)
  })
})

describe('/v1/responses with the OpenAI Agents SDK', () => {
  /** An agent with one function tool, on the Worker through the Agents SDK's own OpenAI client. */
  async function weatherAgent() {
    const provider = new OpenAIProvider({ apiKey: TOKEN, baseURL, useResponses: true })
    const model = await provider.getModel(CLAUDE)
    expect(model).toBeInstanceOf(OpenAIResponsesModel)
    const asked: string[] = []
    const getWeather = tool({
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => {
        asked.push(city)
        return `sunny in ${city}, 21 °C`
      },
    })
    const agent = new Agent({
      name: 'Weather',
      instructions: 'Answer briefly.',
      model,
      modelSettings: { reasoning: { effort: 'low' } },
      tools: [getWeather],
    })
    return { agent, asked }
  }

  it.each([
    ['not streamed', false],
    ['streamed', true],
  ] as const)(
    'runs an agent with a function tool, %s, its signed thinking replayed upstream',
    async (_, stream) => {
      const { agent, asked } = await weatherAgent()
      upstreamBodies.length = 0
      const question = 'What is the weather in Paris?'
      let finalOutput: unknown
      if (stream) {
        const result = await run(agent, question, { stream: true })
        let text = ''
        for await (const piece of result.toTextStream()) text += piece
        await result.completed
        expect(text).toContain('Sunny in Paris, 21 °C.')
        finalOutput = result.finalOutput
      } else {
        finalOutput = (await run(agent, question)).finalOutput
      }
      expect(finalOutput).toBe('Sunny in Paris, 21 °C.')
      expect(asked).toEqual(['Paris'])
      expect(upstreamBodies).toHaveLength(2)
      expect(upstreamBodies[1]!.messages[1]).toEqual({ role: 'assistant', content: SIGNED_TURN })
      expect(JSON.stringify(upstreamBodies[1]!.messages[2])).toContain('sunny in Paris, 21 °C')
    },
  )
})

describe('/v1/responses failing an Agents SDK run', () => {
  it('fails a streamed run whose answer breaks after its first event with the SDK’s own error', async () => {
    const provider = new OpenAIProvider({ apiKey: TOKEN, baseURL, useResponses: true })
    const agent = new Agent({ name: 'Broken', model: await provider.getModel('test/break') })
    const result = await run(agent, 'Hi', { stream: true })
    const seen: string[] = []
    const reading = (async () => {
      for await (const event of result) seen.push(event.type)
      await result.completed
    })()
    await expect(reading).rejects.toBeInstanceOf(ModelBehaviorError)
    await expect(reading).rejects.toThrow(/response\.failed/)
    // The answer had begun: the model's own events came before the failure.
    expect(seen).toContain('raw_model_stream_event')
  })
})

describe('/v1/responses errors through the Worker', () => {
  const ask = (model = 'mock/echo'): ResponseCreateParams => ({ model, input: 'Hi' })
  const invalid = { type: 'invalid_request_error', code: null, param: null } as const
  const cases: [string, ResponseCreateParams, Rewrite, string, ExpectedError][] = [
    [
      'a body that is not JSON',
      ask(),
      withBody('{"model":'),
      TOKEN,
      { status: 400, ...invalid, raises: OpenAI.BadRequestError },
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
      'a previous_response_id',
      { ...ask(), previous_response_id: 'resp_0123' },
      unchanged,
      TOKEN,
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'unsupported_parameter',
        param: 'previous_response_id',
        raises: OpenAI.BadRequestError,
      },
    ],
    [
      'a field that is not part of the Responses API',
      Object.assign(ask(), { base_url: 'http://evil.test' }),
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
        new Request(`${baseURL}/responses`, {
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
      await expectRaised(() => sdk.responses.create(params), expected, error)
    },
  )

  it('ends a stream that fails after its first event with response.failed, raised as the SDK’s APIError', async () => {
    const stream = await openai().responses.create({ ...ask('test/break'), stream: true })
    let text = ''
    const types: string[] = []
    const reading = (async () => {
      for await (const event of stream) {
        types.push(event.type)
        if (event.type === 'response.output_text.delta') text += event.delta
      }
    })()
    await expect(reading).rejects.toBeInstanceOf(OpenAI.APIError)
    await expect(reading).rejects.toMatchObject({ type: 'server_error' })
    expect(text).toBe('partial answer')
    expect(types.at(-1)).toBe('response.failed')

    const runner = openai().responses.stream({ model: 'test/break', input: 'Hi' })
    await expect(runner.finalResponse()).rejects.toBeInstanceOf(OpenAI.APIError)
  })
})
