/**
 * The `openai` SDK reading what the Responses encoder writes: `responses.create()` streamed and
 * not, `responses.stream()` and its `finalResponse()`, a failure after the first event as the
 * SDK's own `APIError`, the errors before it as its typed errors; and the final response's output,
 * sent back as the SDK gives it, translating into the very turn the relay sealed.
 */
import OpenAI from 'openai'
import type { ResponseInput, ResponseStreamEvent } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import {
  createResponsesEncoder,
  responseBody,
  responsesErrorResponse,
  translateResponsesRequest,
  type ResponseMeta,
} from '../../../src/relay/openai-responses/index.ts'
import { createSealer } from '../../../src/relay/seal.ts'
import { validateChatRequest } from '../../../src/relay/validate-request.ts'

const model = 'anthropic/claude-sonnet-4-5'
const meta: ResponseMeta = {
  id: 'resp_sdk0123456789abcdef0123',
  createdAt: 1_700_000_000,
  model,
  echo: {
    instructions: 'Be brief.',
    max_output_tokens: null,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    reasoning: { effort: 'high', summary: null },
    text: { format: { type: 'text' } },
    metadata: {},
  },
}
const sealer = createSealer(['sdk-test-seal-key-Hq3Lr7Xw0Ze5Tn9Pb2Kd'])
const limits = { turns: 20, tools: 4, maxTokens: 10_000, depth: 16, toolCalls: 4, toolResults: 4 }

/** A turn with thinking, text, two tool calls and sealed items, and the events that made it. */
async function sealedAnswer(): Promise<{ turn: AssistantTurn; events: Event[] }> {
  const turn: AssistantTurn = {
    role: 'assistant',
    text: 'Checking both — one moment.',
    thinking: 'The user asks for weather and time. I need two tools.',
    toolCalls: [
      { id: 'toolu_01', name: 'weather', input: { city: 'Paris', days: [1, 2], units: null } },
      { id: 'toolu_02', name: 'time', input: { zone: 'Europe/Paris', note: 'naïve "quote"\n' } },
    ],
    usage: { inputTokens: 120, outputTokens: 80, reasoningTokens: 30, cacheReadTokens: 64 },
    stopReason: 'tool-calls',
    items: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      thinkingMode: 'high',
      data: [
        { type: 'thinking', thinking: 'The user asks…', signature: 'EqQBCkYIBxgCKkD+/=' },
        { type: 'text', text: 'Checking both — one moment.' },
        { type: 'tool_use', id: 'toolu_01', name: 'weather', input: { city: 'Paris' } },
      ],
    },
  }
  turn.items!.seal = await sealer.seal(turn)
  const events: Event[] = [
    { type: 'thinking', text: 'The user asks for weather and time. ' },
    { type: 'thinking', text: 'I need two tools.' },
    { type: 'text', text: 'Checking both — ' },
    { type: 'text', text: 'one moment.' },
    { type: 'tool-call', call: turn.toolCalls![0]! },
    { type: 'tool-call', call: turn.toolCalls![1]! },
    { type: 'done', turn },
  ]
  return { turn, events }
}

/** The SSE text the encoder writes for `events`, ending with a failure when `fail` is given. */
function streamText(events: Event[], fail?: { kind: 'server'; message: string }): string {
  const encode = createResponsesEncoder(meta)
  let text = events
    .map((event) => (event.type === 'done' ? encode.done(event.turn) : encode.delta(event)))
    .join('')
  if (fail !== undefined) text += encode.error(fail)
  return text
}

/** A body that arrives a few bytes at a time, splitting lines and UTF-8 sequences. */
function trickle(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(at, at + 7))
      at += 7
    },
  })
}

/** An OpenAI client whose every request is answered by `answer`; the bodies it sent are kept. */
function client(answer: () => Response) {
  const sent: unknown[] = []
  const openai = new OpenAI({
    apiKey: 'relay-token',
    baseURL: 'https://relay.test/v1',
    maxRetries: 0,
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)))
      return answer()
    },
  })
  return { openai, sent }
}

const sse = (text: string) => () =>
  new Response(trickle(text), { headers: { 'content-type': 'text/event-stream' } })

const ask: ResponseInput = [{ role: 'user', content: 'Weather and time in Paris?' }]

describe('the openai SDK reading the Responses encoder', () => {
  it('streams events that carry thinking, text, tool calls, the sealed item and usage', async () => {
    const { turn, events } = await sealedAnswer()
    const { openai } = client(sse(streamText(events)))
    const stream = await openai.responses.create({ model, input: ask, stream: true })
    const seen: ResponseStreamEvent[] = []
    for await (const event of stream) seen.push(event)
    const text = (type: string, key: 'delta') =>
      seen
        .filter((event) => event.type === type)
        .map((event) => (event as unknown as Record<typeof key, string>)[key])
        .join('')
    expect(text('response.reasoning_summary_text.delta', 'delta')).toBe(turn.thinking)
    expect(text('response.output_text.delta', 'delta')).toBe(turn.text)
    expect(text('response.function_call_arguments.delta', 'delta')).toBe(
      turn.toolCalls!.map((call) => JSON.stringify(call.input)).join(''),
    )
    const completed = seen.at(-1)
    if (completed?.type !== 'response.completed') throw new Error('expected response.completed')
    expect(completed.response.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 200,
    })
  })

  it('assembles a final response with stream(), thinking included, whose output sent back is the sealed turn', async () => {
    const { turn, events } = await sealedAnswer()
    const first = client(sse(streamText(events)))
    const runner = first.openai.responses.stream({ model, input: ask })
    const summaries: string[] = []
    runner.on('response.reasoning_summary_text.delta', (event) => summaries.push(event.delta))
    const snapshots: string[] = []
    runner.on('response.output_text.delta', (event) => snapshots.push(event.snapshot))
    const final = await runner.finalResponse()

    expect(summaries.join('')).toBe(turn.thinking)
    expect(snapshots.at(-1)).toBe(turn.text)
    expect(final.id).toBe(meta.id)
    expect(final.status).toBe('completed')
    expect(final.output_text).toBe(turn.text)
    expect(final.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'function_call',
      'reasoning',
    ])
    const thinking = final.output[0]
    if (thinking?.type !== 'reasoning') throw new Error('expected the thinking item first')
    expect(thinking.summary).toEqual([{ type: 'summary_text', text: turn.thinking }])
    const calls = final.output.filter((item) => item.type === 'function_call')
    expect(calls.map(({ call_id, name, arguments: args }) => ({ call_id, name, args }))).toEqual(
      turn.toolCalls!.map((call) => ({
        call_id: call.id,
        name: call.name,
        args: JSON.stringify(call.input),
      })),
    )

    // The client sends the output back as the SDK gave it (through JSON, as an app stores it),
    // with the tool results.
    const second = client(sse(streamText([{ type: 'done', turn: { ...turn, items: undefined } }])))
    await second.openai.responses
      .stream({
        model,
        instructions: 'Be brief.',
        input: [
          ...ask,
          ...(JSON.parse(JSON.stringify(final.output)) as ResponseInput),
          { type: 'function_call_output', call_id: 'toolu_01', output: 'Sunny, 24°C' },
          { type: 'function_call_output', call_id: 'toolu_02', output: '14:05' },
        ],
      })
      .finalResponse()
    const translated = translateResponsesRequest(second.sent[0])
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.notes).toEqual([])
    expect(translated.request.conversation.system).toBe('Be brief.')
    expect(translated.request.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: turn.text,
      thinking: turn.thinking,
      toolCalls: turn.toolCalls,
      items: turn.items,
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    })
    expect(translated.request.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        { callId: 'toolu_01', name: 'weather', output: 'Sunny, 24°C' },
        { callId: 'toolu_02', name: 'time', output: '14:05' },
      ],
    })
    // What the route does next: the body passes the relay's checks and the seal still holds.
    const checked = validateChatRequest(translated.request, limits)
    if (!checked.ok) throw new Error(checked.error.message)
    const replayed = checked.value.conversation.turns[1]
    if (replayed?.role !== 'assistant') throw new Error('expected the assistant turn')
    expect(await sealer.check(replayed)).toBe('valid')
  })

  it('reads the non-streamed Response', async () => {
    const { turn } = await sealedAnswer()
    const { openai } = client(() => Response.json(responseBody(turn, meta)))
    const response = await openai.responses.create({ model, input: ask })
    expect(response.id).toBe(meta.id)
    expect(response.output_text).toBe(turn.text)
    expect(response.usage?.total_tokens).toBe(200)
    const translated = translateResponsesRequest({
      model,
      input: [...ask, ...response.output],
    })
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.request.conversation.turns[1]).toMatchObject({ items: turn.items })
  })

  it('raises its APIError for a failure after the first event, from the stream and from finalResponse()', async () => {
    const partial: Event[] = [{ type: 'text', text: 'Partial' }]
    const failure = { kind: 'server' as const, message: 'the provider failed' }
    const { openai } = client(sse(streamText(partial, failure)))

    const stream = await openai.responses.create({ model, input: ask, stream: true })
    const seen: string[] = []
    const reading = (async () => {
      for await (const event of stream) seen.push(event.type)
    })()
    await expect(reading).rejects.toBeInstanceOf(OpenAI.APIError)
    await expect(reading).rejects.toMatchObject({
      message: 'the provider failed',
      type: 'server_error',
    })
    expect(seen).toContain('response.output_text.delta')
    expect(seen.at(-1)).toBe('response.failed')

    const runner = openai.responses.stream({ model, input: ask })
    const failed: unknown[] = []
    runner.on('response.failed', (event) => failed.push(event.response.error))
    await expect(runner.finalResponse()).rejects.toBeInstanceOf(OpenAI.APIError)
    expect(failed).toEqual([{ code: 'server_error', message: 'the provider failed' }])
  })
})

describe('the openai SDK reading the errors before the first event', () => {
  const failWith = (response: () => Response) =>
    client(response)
      .openai.responses.create({ model, input: ask })
      .catch((caught: unknown) => caught)

  it('raises AuthenticationError for 401', async () => {
    const error = await failWith(() =>
      responsesErrorResponse(
        401,
        'auth',
        'a valid bearer token is required',
        {},
        {
          'www-authenticate': 'Bearer',
        },
      ),
    )
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' })
  })

  it('raises RateLimitError carrying retry-after, and BadRequestError naming the param', async () => {
    const limited = await failWith(() =>
      responsesErrorResponse(429, 'rate-limit', 'rate limit reached for this client', {
        retryAfterMs: 2500,
      }),
    )
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    if (!(limited instanceof OpenAI.RateLimitError)) return
    expect(limited.headers?.get('retry-after')).toBe('3')

    const refused = translateResponsesRequest({ model, input: 'Hi', previous_response_id: 'r' })
    if (refused.ok) throw new Error('expected previous_response_id to be refused')
    const bad = await failWith(() =>
      responsesErrorResponse(400, 'invalid-request', refused.message, {
        field: refused.field,
        code: refused.code,
      }),
    )
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError)
    expect(bad).toMatchObject({
      param: 'previous_response_id',
      code: 'unsupported_parameter',
      type: 'invalid_request_error',
    })
  })
})
