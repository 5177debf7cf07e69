/**
 * `POST /v1/chat/completions` in process: the OpenAI fields named at fault, dropped reasoning
 * state in the log, fuzzed bodies that only ever get a 4xx JSON error or an answer, and usage
 * cost. Every refusal's shape, and the openai SDK's error for it, is in `completions/errors.test.ts`.
 */
import fc from 'fast-check'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Pricing } from '../../src/core/pricing.ts'
import { guardStream } from '../../src/kit/guard-stream.ts'
import { createRelay, type RelayLogEntry } from '../../src/relay/index.ts'
import { offline } from './helpers.ts'

const TOKEN = 'token-completions-route-01'
const SEAL = 'seal-completions-route-Qm4Rt8Wz2Xc6Vb0Nk5'

function post(
  relay: ReturnType<typeof createRelay>,
  body: unknown,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Response> {
  return relay.fetch(
    new Request('http://relay.test/v1/chat/completions', {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
      body: method === 'GET' ? null : typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )
}

const ask = { model: 'mock/echo', messages: [{ role: 'user', content: 'Hi' }] }

async function openaiError(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/json')
  return ((await response.json()) as { error: Record<string, unknown> }).error
}

describe('/v1/chat/completions fields at fault', () => {
  const relay = createRelay({ providers: offline, auth: [TOKEN] })

  it('names the OpenAI field at fault, from the translation and from the relay’s own limits', async () => {
    const bad = await post(relay, { ...ask, messages: [{ role: 'wizard', content: 'x' }] })
    expect(bad.status).toBe(400)
    expect((await openaiError(bad))['param']).toBe('messages[0].role')
    const empty = await post(relay, { ...ask, messages: [{ role: 'user', content: '' }] })
    expect(await openaiError(empty)).toMatchObject({
      param: 'messages[0].content',
      message: 'messages[0].content must not be empty',
    })
    const unknown = await post(relay, { ...ask, base_url: 'http://evil.test' })
    expect((await openaiError(unknown))['param']).toBe('base_url')
  })
})

describe('/v1/chat/completions answers', () => {
  it('drops reasoning state it cannot verify, answers anyway, and notes it in the log', async () => {
    const entries: RelayLogEntry[] = []
    const relay = createRelay({
      providers: offline,
      auth: [TOKEN],
      sealKeys: [SEAL],
      log: (entry) => entries.push(entry),
    })
    const first = (await (await post(relay, ask)).json()) as {
      choices: { message: { content: string; reasoning_details: { data: string }[] } }[]
    }
    const message = first.choices[0]!.message
    expect(message.reasoning_details).toHaveLength(1)
    // Another relay's seal: valid in form, unknown key.
    const other = createRelay({ providers: offline, auth: [TOKEN], sealKeys: [`${SEAL}-other`] })
    const foreign = (await (await post(other, ask)).json()) as typeof first
    const sent = [
      { role: 'user', content: 'Hi' },
      { ...message, reasoning_details: foreign.choices[0]!.message.reasoning_details },
      { role: 'user', content: 'Again' },
    ]
    const response = await post(relay, { ...ask, messages: sent })
    expect(response.status).toBe(200)
    await response.text()
    expect(entries.at(-1)?.notes?.join(' ')).toMatch(
      /messages\[1\]\.reasoning_details|items dropped/,
    )
    expect(JSON.stringify(entries.at(-1))).not.toContain('Again')
  })
})

describe('/v1/chat/completions fuzzed', () => {
  const relay = createRelay({ providers: offline, auth: [TOKEN] })
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, 0, -1, 2, 1.5, '', 'user', 'assistant', 'tool', 'mock/echo'),
      fc.string(),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(
        fc.constantFrom(
          'role',
          'content',
          'messages',
          'model',
          'tools',
          'tool_calls',
          'tool_call_id',
          'type',
          'function',
          'arguments',
          'name',
          'stream',
          'n',
          'stop',
          'reasoning_effort',
          'response_format',
          'reasoning_details',
          'image_url',
          'url',
          'text',
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
          const response = await post(relay, body)
          const text = await response.text()
          expect(response.status).not.toBeGreaterThanOrEqual(500)
          if (response.status >= 400) {
            const error = (JSON.parse(text) as { error: { type: string; message: string } }).error
            expect(typeof error.message).toBe('string')
            expect(error.type).toBe('invalid_request_error')
          }
        }),
        { numRuns: 400, seed: 20_261_202, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
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
          usage: { inputTokens: 1000, outputTokens: 500, cacheReadTokens: 800 },
          stopReason: 'stop',
        }
      }),
  }
}

describe('/v1/chat/completions usage.cost', () => {
  const relay = createRelay({ providers: { ...offline, acme: [priced()] }, auth: [TOKEN] })
  const client = new OpenAI({
    apiKey: TOKEN,
    baseURL: 'http://relay.test/v1',
    maxRetries: 0,
    fetch: (input, init) => relay.fetch(new Request(input, init)),
  })
  const question = (model: string) => ({
    model,
    messages: [{ role: 'user' as const, content: 'Hi' }],
  })

  it('reports the cost in US dollars in the usage chunk of a stream, parsed by the openai SDK', async () => {
    const stream = await client.chat.completions.create({
      ...question('acme/m-1'),
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let usage: OpenAI.CompletionUsage | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      usage = chunk.usage ?? usage
    }
    expect(text).toBe('Priced.')
    expect(usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 })
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(800)
    expect((usage as { cost?: unknown } | undefined)?.cost).toBeCloseTo(COST, 12)
  })

  it('reports the cost in the usage of an answer that does not stream', async () => {
    const completion = await client.chat.completions.create(question('acme/m-1'))
    expect(completion.choices[0]?.message.content).toBe('Priced.')
    expect((completion.usage as { cost?: unknown } | undefined)?.cost).toBeCloseTo(COST, 12)
  })

  it('leaves cost out, streamed or not, when the model has no price', async () => {
    const once = await post(relay, question('mock/echo'))
    const body = (await once.json()) as { usage: Record<string, unknown> }
    expect(body.usage['total_tokens']).toEqual(expect.any(Number))
    expect(body.usage).not.toHaveProperty('cost')

    const streamed = await post(relay, {
      ...question('mock/echo'),
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks = (await streamed.text())
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: Record<string, unknown> | null })
    const usage = chunks.map((chunk) => chunk.usage).filter((value) => value != null)
    expect(usage).toHaveLength(1)
    expect(usage[0]).not.toHaveProperty('cost')
  })
})
