/**
 * `POST /v1/responses` in process, through the `openai` SDK: answers streamed and not, tools both
 * ways, usage, every refusal in OpenAI's error shape (rate limits and budgets with `retry-after`),
 * a failure after the first event, a client that leaves mid-answer, and the sealed reasoning item's
 * round trip: replayed verbatim to the model that made it, dropped with a note when changed or
 * sent to another model.
 */
import fc from 'fast-check'
import OpenAI from 'openai'
import type {
  ResponseCreateParams,
  ResponseInput,
  ResponseOutputItem,
} from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { mock, type MockStep } from '../../../src/providers/mock/index.ts'
import {
  createRelay,
  type Relay,
  type RelayLogEntry,
  type RelayOptions,
} from '../../../src/relay/index.ts'
import { readSealedContent, SEALED_TURN_PREFIX } from '../../../src/relay/openai-responses/index.ts'
import { encodeSealedTurn } from '../../../src/relay/sealed-turn.ts'
import { eventually } from '../../helpers/eventually.ts'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import { overBudget, rateLimited } from '../refusal-relays.ts'
import {
  expectOpenAIError,
  expectRaised,
  unchanged,
  withBody,
  withHeaders,
  type ExpectedError,
  type Rewrite,
} from '../completions/openai-errors.ts'
import { parseSse, readUntil } from '../sse-reader.ts'

const TOKEN = 'token-responses-route-0123'
const SEAL = 'seal-responses-route-Qm4Rt8Wz2Xc6Vb0Nk5'

/** The OpenAI SDK on `relay`, each request changed by `rewrite` on its way. */
function client(relay: Relay, rewrite: Rewrite = unchanged, apiKey = TOKEN): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: 'http://relay.test/v1',
    maxRetries: 0,
    fetch: (input, init) => relay.fetch(rewrite(new Request(input, init))),
  })
}

function post(relay: Relay, body: unknown, init: { signal?: AbortSignal } = {}): Promise<Response> {
  return relay.fetch(
    new Request('http://relay.test/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
      signal: init.signal ?? null,
    }),
  )
}

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
}

/** A model that thinks, says a sentence and calls get_weather, then answers the tool's result. */
function toolModel(provider: string, model: string) {
  return mock({
    provider,
    model,
    script: (call) =>
      call.conversation.turns.at(-1)?.role === 'tool'
        ? { text: 'Sunny in Paris.' }
        : {
            thinking: 'The weather needs a tool.',
            text: 'Let me check.',
            toolCalls: [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
            usage: { inputTokens: 42, outputTokens: 17, reasoningTokens: 6, cacheReadTokens: 8 },
          },
  })
}

const ask: ResponseInput = [{ role: 'user', content: 'What is the weather in Paris?' }]

describe('/v1/responses answers', () => {
  const claude = toolModel('anthropic', 'claude')
  const relay = createRelay({ providers: { anthropic: [claude] }, auth: [TOKEN] })

  it('streams a tool call with its thinking and usage, then takes the tool result back', async () => {
    const openai = client(relay)
    const first = await openai.responses
      .stream({ model: 'anthropic/claude', input: ask, tools: [weather] })
      .finalResponse()
    expect(first.status).toBe('completed')
    expect(first).toMatchObject({ store: false })
    expect(first.output_text).toBe('Let me check.')
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call'])
    expect(first.output[0]).toMatchObject({
      summary: [{ type: 'summary_text', text: 'The weather needs a tool.' }],
    })
    expect(first.output[2]).toMatchObject({
      call_id: 'call_w1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    })
    expect(first.usage).toEqual({
      input_tokens: 42,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens: 17,
      output_tokens_details: { reasoning_tokens: 6 },
      total_tokens: 59,
    })
    expect(claude.calls.at(-1)!.options.tools).toEqual([
      { name: 'get_weather', description: 'The weather in a city', parameters: weather.parameters },
    ])

    const second = await openai.responses.create({
      model: 'anthropic/claude',
      input: [
        ...ask,
        // The SDK types output items apart from input items; the API takes them back as they are.
        ...(first.output as ResponseInput),
        { type: 'function_call_output', call_id: 'call_w1', output: 'sunny, 21 °C' },
      ],
      tools: [weather],
    })
    expect(second.output_text).toBe('Sunny in Paris.')
    expect(claude.calls.at(-1)!.conversation.turns.at(-1)).toEqual({
      role: 'tool',
      results: [{ callId: 'call_w1', name: 'get_weather', output: 'sunny, 21 °C' }],
    })
  })

  it('answers the same without streaming, as one Response', async () => {
    const response = await client(relay).responses.create({
      model: 'anthropic/claude',
      input: 'What is the weather in Paris?',
      tools: [weather],
      store: true,
    })
    expect(response.object).toBe('response')
    expect(response).toMatchObject({ store: false })
    expect(response.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ])
    expect(response.usage?.total_tokens).toBe(59)
  })
})

const failing = (kind: 'rate-limit' | 'server') =>
  mock({ model: kind, script: [{ fail: { kind, retryAfterMs: 2000 } }] })
const options = {
  providers: {
    mock: [
      mock(),
      failing('rate-limit'),
      failing('server'),
      mock({
        model: 'fail-later',
        script: [{ text: 'Halb', fail: { kind: 'server', afterEvents: 1 } }],
      }),
    ],
  },
  auth: [TOKEN],
  limits: { bodyBytes: 4096 },
  heartbeatMs: 60_000,
} satisfies RelayOptions
const relays = {
  open: createRelay(options),
  rated: createRelay({ ...options, rateLimiter: rateLimited() }),
  budgeted: createRelay({ ...options, rateLimiter: overBudget() }),
}

const question = (model = 'mock/echo', input = 'Hi'): ResponseCreateParams => ({ model, input })
const invalid = { type: 'invalid_request_error', code: null, param: null } as const

type ErrorCase = ExpectedError & {
  relay: Relay
  params: ResponseCreateParams
  rewrite?: Rewrite | undefined
  apiKey?: string | undefined
}

const CASES: Record<string, ErrorCase> = {
  'a body that is not JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withBody('{"model":'),
    status: 400,
    ...invalid,
    raises: OpenAI.BadRequestError,
  },
  'a body over the size limit': {
    relay: relays.open,
    params: question('mock/echo', 'x'.repeat(5000)),
    status: 413,
    ...invalid,
    raises: OpenAI.APIError,
  },
  'a content-type other than JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withHeaders({ 'content-type': 'text/plain' }),
    status: 415,
    ...invalid,
    raises: OpenAI.APIError,
  },
  'a model the relay does not know': {
    relay: relays.open,
    params: question('mock/nothing'),
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    raises: OpenAI.NotFoundError,
  },
  'a previous_response_id': {
    relay: relays.open,
    params: { ...question(), previous_response_id: 'resp_123' },
    status: 400,
    type: 'invalid_request_error',
    code: 'unsupported_parameter',
    param: 'previous_response_id',
    raises: OpenAI.BadRequestError,
  },
  'a field that is not part of the Responses API': {
    relay: relays.open,
    params: Object.assign(question(), { base_url: 'http://evil.test' }),
    status: 400,
    type: 'invalid_request_error',
    code: 'unknown_parameter',
    param: 'base_url',
    raises: OpenAI.BadRequestError,
  },
  'a hosted tool': {
    relay: relays.open,
    params: { ...question(), tools: [{ type: 'web_search' }] },
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'tools[0].type',
    raises: OpenAI.BadRequestError,
  },
  'an input item of the relay’s own checks, named as the Responses API names it': {
    relay: relays.open,
    params: { model: 'mock/echo', input: [{ role: 'user', content: '' }] },
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'input[0].content',
    raises: OpenAI.BadRequestError,
  },
  'a token the relay does not know': {
    relay: relays.open,
    params: question(),
    apiKey: 'wrong-token-0123456789',
    status: 401,
    type: 'authentication_error',
    code: 'invalid_api_key',
    param: null,
    raises: OpenAI.AuthenticationError,
    headers: { 'www-authenticate': 'Bearer' },
  },
  'a method other than POST': {
    relay: relays.open,
    params: question(),
    rewrite: withBody(null, 'GET'),
    status: 405,
    ...invalid,
    raises: OpenAI.APIError,
    headers: { allow: 'POST, OPTIONS' },
  },
  'a client over its rate limit': {
    relay: relays.rated,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '3' },
  },
  'a client over its budget': {
    relay: relays.budgeted,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    code: 'insufficient_quota',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '7200' },
  },
  'a provider over its rate limit, streamed': {
    relay: relays.open,
    params: { ...question('mock/rate-limit'), stream: true },
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '2' },
  },
  'a provider failing before its first event': {
    relay: relays.open,
    params: question('mock/server'),
    status: 502,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
}

describe('every refusal of /v1/responses', () => {
  it.each(Object.entries(CASES))(
    'answers %s in OpenAI’s error shape, which the openai SDK raises as its typed error',
    async (_, c) => {
      const sent = (c.rewrite ?? unchanged)(
        new Request('http://relay.test/v1/responses', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${c.apiKey ?? TOKEN}`,
          },
          body: JSON.stringify(c.params),
        }),
      )
      const error = await expectOpenAIError(await c.relay.fetch(sent), c)
      const sdk = client(c.relay, c.rewrite, c.apiKey)
      await expectRaised(() => sdk.responses.create(c.params), c, error)
    },
  )

  it('ends a stream that fails after its first event with response.failed and an error event', async () => {
    const response = await post(relays.open, { ...question('mock/fail-later'), stream: true })
    expect(response.status).toBe(200)
    const events = parseSse(await response.text()).events.map((e) => e.event)
    expect(events.slice(-2)).toEqual(['response.failed', 'error'])
    expect(events).toContain('response.output_text.delta')
    expect(events).not.toContain('response.completed')

    const stream = await client(relays.open).responses.create({
      ...question('mock/fail-later'),
      stream: true,
    })
    let text = ''
    const reading = (async () => {
      for await (const event of stream)
        if (event.type === 'response.output_text.delta') text += event.delta
    })()
    await expect(reading).rejects.toBeInstanceOf(OpenAI.APIError)
    await expect(reading).rejects.toMatchObject({ type: 'server_error' })
    expect(text).toBe('Halb')
  })
})

describe('/v1/responses fuzzed', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, 0, -1, 1.5, '', 'user', 'assistant', 'mock/echo', '{}'),
      fc.constantFrom('message', 'function_call', 'function_call_output', 'reasoning', 'c1'),
      fc.constantFrom('input_text', 'input_image', 'output_text', 'function', 'summary_text'),
      fc.constantFrom('thinkwire-v1.e30', 'thinkwire-v2.e30'),
      fc.string(),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(
        fc.constantFrom(
          'model',
          'input',
          'role',
          'content',
          'type',
          'text',
          'image_url',
          'call_id',
          'name',
          'arguments',
          'output',
          'encrypted_content',
          'summary',
          'tools',
          'tool_choice',
          'parameters',
          'reasoning',
          'effort',
          'format',
          'instructions',
          'stream',
          'store',
          'previous_response_id',
          '__proto__',
        ),
        tie('value'),
        { maxKeys: 4 },
      ),
    ),
  })).value

  it(
    'answers every body with a 4xx OpenAI error or an answer, never a 500',
    async () => {
      await fc.assert(
        fc.asyncProperty(json, async (body) => {
          const response = await post(relays.open, body)
          const text = await response.text()
          expect(response.status).not.toBeGreaterThanOrEqual(500)
          if (response.status >= 400) {
            const error = (JSON.parse(text) as { error: { type: string; message: string } }).error
            expect(typeof error.message).toBe('string')
            expect(error.type).toBe('invalid_request_error')
          }
        }),
        { numRuns: 300, seed: 20_261_207, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})

describe('/v1/responses when the client leaves', () => {
  /** A mock whose deltas each wait for a step the test lets go. */
  function paced() {
    const steps: MockStep[] = []
    const gates: (() => void)[] = []
    const adapter = mock({
      script: [{ thinking: 'Thinking it over.', text: 'A long answer.' }],
      chunkSize: 4,
      pace: (step) =>
        new Promise<void>((go) => {
          steps.push(step)
          gates.push(go)
        }),
    })
    return { adapter, steps, go: () => gates.shift()?.() }
  }

  it.each([
    ['aborts its request', 'abort', { outcome: 'error', error: { kind: 'aborted' } }],
    ['cancels the response body', 'cancel', { outcome: 'cancel' }],
  ] as const)('stops the upstream call when the client %s mid-answer', async (_, how, logged) => {
    const { adapter, go } = paced()
    const entries: RelayLogEntry[] = []
    const relay = createRelay({ providers: { mock: [adapter] }, log: (e) => entries.push(e) })
    const controller = new AbortController()
    const response = await (async () => {
      const answer = post(relay, { ...question(), stream: true }, { signal: controller.signal })
      // The first delta goes, the rest wait.
      await eventually(() => adapter.calls.length === 1, 'the upstream call')
      go()
      return answer
    })()
    expect(response.status).toBe(200)
    const seen = await readUntil(response, (read) =>
      read.events.some((e) => e.event === 'response.reasoning_summary_text.delta'),
    )
    expect(seen.events[0]?.event).toBe('response.created')
    expect(adapter.calls[0]!.signal.aborted).toBe(false)
    if (how === 'abort') controller.abort()
    else await response.body!.cancel()
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
    // Nothing hangs: a body still read ends, truthfully, with the failure.
    if (how === 'abort') {
      const reader = response.body!.getReader()
      const utf8 = new TextDecoder()
      let text = ''
      for (let read = await reader.read(); !read.done; read = await reader.read())
        text += utf8.decode(read.value, { stream: true })
      const rest = parseSse(text).events.map((e) => e.event)
      expect(rest.slice(-2)).toEqual(['response.failed', 'error'])
    }
    await eventually(() => entries.length === 1, 'the log entry')
    expect(entries[0]).toMatchObject({ path: '/v1/responses', ...logged })
  })
})

describe('/v1/responses: the sealed reasoning item', () => {
  function sealedRelay() {
    const claude = toolModel('anthropic', 'claude')
    const other = toolModel('openai', 'gpt')
    const entries: RelayLogEntry[] = []
    const relay = createRelay({
      providers: { anthropic: [claude], openai: [other] },
      auth: [TOKEN],
      sealKeys: [SEAL],
      log: (entry) => entries.push(entry),
    })
    return { claude, other, relay, entries, openai: client(relay) }
  }
  const result = { type: 'function_call_output' as const, call_id: 'call_w1', output: 'sunny' }
  /** The output as an app keeps it: through JSON. */
  const stored = (output: ResponseOutputItem[]) =>
    JSON.parse(JSON.stringify(output)) as ResponseInput
  /** The first answer: Claude thinks, says it will check and calls the weather tool. */
  const firstAnswer = (openai: OpenAI) =>
    openai.responses.create({ model: 'anthropic/claude', input: ask, tools: [weather] })
  /** The question, these items of the answer and the tool's result, sent to `model`. */
  const sendBack = (openai: OpenAI, items: unknown[], model = 'anthropic/claude') =>
    openai.responses.create({
      model,
      input: [...ask, ...(items as ResponseInput), result],
      tools: [weather],
    })
  /** The first answer as a model gets it without its items: its text and call. */
  const unsealed = {
    role: 'assistant',
    text: 'Let me check.',
    toolCalls: [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
  }

  it('comes last in the output, and brings the answer’s items back verbatim to the same model', async () => {
    const { claude, openai, entries } = sealedRelay()
    const first = await openai.responses
      .stream({ model: 'anthropic/claude', input: ask, tools: [weather] })
      .finalResponse()
    expect(first.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'reasoning',
    ])
    const sealed = first.output[3]
    if (sealed?.type !== 'reasoning') throw new Error('expected the sealed item last')
    expect(sealed.summary).toEqual([])
    expect(sealed.encrypted_content).toMatch(/^thinkwire-v2\./)

    // Sent back with the sealed item moved first: any position will do.
    const items = stored(first.output)
    const input = [...ask, items[3]!, ...items.slice(0, 3), result]
    await openai.responses.create({ model: 'anthropic/claude', input, tools: [weather] })
    expect(claude.calls[1]!.request[1]).toEqual({
      role: 'assistant',
      replayed: [
        {
          type: 'mock-turn',
          thinking: 'The weather needs a tool.',
          text: 'Let me check.',
          toolCalls: [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
          callIndex: 0,
        },
      ],
    })
    expect(entries.at(-1)?.notes).toBeUndefined()
  })

  it('is dropped, with a warning, when the answer was changed; the turn goes from its text and calls', async () => {
    const { claude, openai, entries } = sealedRelay()
    const first = await firstAnswer(openai)
    const items = stored(first.output) as { type: string; content?: { text: string }[] }[]
    items[1]!.content![0]!.text = 'Let me look.'
    await sendBack(openai, items)
    expect(claude.calls[1]!.request[1]).toEqual({
      role: 'assistant',
      text: 'Let me look.',
      toolCalls: [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
    })
    expect(entries.at(-1)?.notes).toEqual([
      'conversation.turns[1].items dropped: the turn was changed after this relay sealed it, so it was sent from its text and tool calls',
    ])
  })

  it('is dropped, with a warning, when the answer comes back without its thinking summary', async () => {
    const { claude, openai, entries } = sealedRelay()
    const first = await firstAnswer(openai)
    // The record holds the items alone: the thinking the seal covers is the summary's.
    const withoutSummary = stored(first.output).slice(1)
    await sendBack(openai, withoutSummary)
    expect(claude.calls[1]!.request[1]).toEqual(unsealed)
    expect(entries.at(-1)?.notes).toEqual([
      'conversation.turns[1].items dropped: the turn was changed after this relay sealed it, so it was sent from its text and tool calls',
    ])
  })

  it('replays a record of the earlier version, which holds the whole turn, from a stored answer', async () => {
    const { claude, openai, entries } = sealedRelay()
    const first = await firstAnswer(openai)
    const items = stored(first.output) as { encrypted_content?: string }[]
    const content = readSealedContent(items[3]!.encrypted_content)
    if (content.type !== 'items') throw new Error('expected the sealed items')
    const whole = encodeSealedTurn({
      role: 'assistant',
      text: 'Let me check.',
      thinking: 'The weather needs a tool.',
      toolCalls: [{ id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } }],
      items: content.items,
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    })
    items[3]!.encrypted_content = `${SEALED_TURN_PREFIX}${whole}`
    // Only the message, the call and the record: the earlier record says the thinking itself.
    const input = [...ask, ...(items.slice(1) as ResponseInput), result]
    await openai.responses.create({ model: 'anthropic/claude', input, tools: [weather] })
    expect(claude.calls[1]!.request[1]).toMatchObject({
      role: 'assistant',
      replayed: [{ thinking: 'The weather needs a tool.', text: 'Let me check.' }],
    })
    expect(entries.at(-1)?.notes).toBeUndefined()
  })

  it('is dropped, with a warning, when its seal does not hold', async () => {
    const { claude, openai, entries } = sealedRelay()
    const first = await firstAnswer(openai)
    const items = stored(first.output) as { encrypted_content?: string }[]
    // Another relay's seal on the same answer: a record that decodes, under a key this one lacks.
    const foreign = createRelay({
      providers: { anthropic: [toolModel('anthropic', 'claude')] },
      auth: [TOKEN],
      sealKeys: [`${SEAL}-other`],
    })
    const theirs = await client(foreign).responses.create({
      model: 'anthropic/claude',
      input: ask,
      tools: [weather],
    })
    items[3]!.encrypted_content = (
      theirs.output[3] as { encrypted_content: string }
    ).encrypted_content
    await sendBack(openai, items)
    expect(claude.calls[1]!.request[1]).toMatchObject({ role: 'assistant', text: 'Let me check.' })
    expect(claude.calls[1]!.request[1]).not.toHaveProperty('replayed')
    expect(entries.at(-1)?.notes?.join(' ')).toMatch(/conversation\.turns\[1\]\.items dropped/)
  })

  it('is dropped, with a warning, when the conversation goes on with another model', async () => {
    const { other, openai, entries } = sealedRelay()
    const first = await firstAnswer(openai)
    await sendBack(openai, stored(first.output), 'openai/gpt')
    expect(other.calls[0]!.request[1]).toEqual(unsealed)
    expect(other.calls[0]!.conversation.turns[1]).not.toHaveProperty('items')
    expect(entries.at(-1)?.notes).toEqual([
      'conversation.turns[1].items dropped: made by another provider, model or thinking mode than openai/gpt (thinking default), so the turn was sent from its text and tool calls',
    ])
  })
})
