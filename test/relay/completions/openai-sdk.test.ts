import OpenAI from 'openai'
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import {
  completionErrorResponse,
  completionResponse,
  createCompletionEncoder,
  encodeReasoningDetails,
  translateCompletionRequest,
} from '../../../src/relay/completions/index.ts'
import { createSealer } from '../../../src/relay/seal.ts'
import { validateChatRequest } from '../../../src/relay/validate-request.ts'

const model = 'anthropic/claude-sonnet-4-5'
const meta = { id: 'chatcmpl-tw1', model, created: 1_700_000_000 }
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
      thinkingMode: 'adaptive',
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

/** The SSE text the encoder writes for `events`. */
function streamText(events: Event[], includeUsage: boolean): string {
  const encode = createCompletionEncoder({ ...meta, includeUsage })
  return events
    .map((event) => (event.type === 'done' ? encode.done(event.turn) : encode.delta(event)))
    .join('')
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

const ask: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather and time in Paris?' },
]

/** Reads a field the SDK's types do not declare. */
function extra(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined
}

describe('the openai SDK reading the encoder', () => {
  it('streams chunks that carry thinking, text, tool calls, the record and usage', async () => {
    const { turn, events } = await sealedAnswer()
    const { openai, sent } = client(sse(streamText(events, true)))
    const stream = await openai.chat.completions.create({
      model,
      messages: ask,
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)

    expect(sent).toHaveLength(1)
    expect(chunks.every((chunk) => chunk.id === meta.id && chunk.model === model)).toBe(true)
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta))
    expect(deltas[0]?.role).toBe('assistant')
    expect(deltas.map((delta) => extra(delta, 'reasoning_content') ?? '').join('')).toBe(
      turn.thinking,
    )
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(turn.text)
    expect(deltas.flatMap((delta) => delta.tool_calls ?? [])).toEqual([
      {
        index: 0,
        id: 'toolu_01',
        type: 'function',
        function: { name: 'weather', arguments: JSON.stringify(turn.toolCalls![0]!.input) },
      },
      {
        index: 1,
        id: 'toolu_02',
        type: 'function',
        function: { name: 'time', arguments: JSON.stringify(turn.toolCalls![1]!.input) },
      },
    ])
    const last = chunks.at(-2)!.choices[0]!
    expect(last.finish_reason).toBe('tool_calls')
    expect(extra(last.delta, 'reasoning_details')).toEqual(encodeReasoningDetails(turn))
    // The record travels once: no other chunk has it.
    expect(deltas.filter((delta) => extra(delta, 'reasoning_details') !== undefined)).toHaveLength(
      1,
    )
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 80,
        total_tokens: 200,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    })
  })

  it('accumulates a final message that, sent back, translates into the sealed turn', async () => {
    const { turn, events } = await sealedAnswer()
    const first = client(sse(streamText(events, false)))
    const runner = first.openai.chat.completions.stream({ model, messages: ask })
    const completion = await runner.finalChatCompletion()
    const choice = completion.choices[0]!
    const message = choice.message
    expect(choice.finish_reason).toBe('tool_calls')
    expect(message.content).toBe(turn.text)
    expect(message.tool_calls?.map((call) => call.type === 'function' && call.function)).toEqual([
      { name: 'weather', arguments: JSON.stringify(turn.toolCalls![0]!.input) },
      { name: 'time', arguments: JSON.stringify(turn.toolCalls![1]!.input) },
    ])
    expect(extra(message, 'reasoning_details')).toEqual(encodeReasoningDetails(turn))
    // The SDK's accumulator overwrites delta fields it does not know: reasoning_content keeps
    // only its last piece. That is why the record (with the whole thinking) travels whole, once.
    expect(extra(message, 'reasoning_content')).toBe('I need two tools.')

    // The client sends the message back as it got it, with the tool results.
    const second = client(
      sse(streamText([{ type: 'done', turn: { ...turn, items: undefined } }], false)),
    )
    await second.openai.chat.completions
      .stream({
        model,
        messages: [
          ...ask,
          message,
          { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny, 24°C' },
          { role: 'tool', tool_call_id: 'toolu_02', content: '14:05' },
        ],
      })
      .finalChatCompletion()
    const translated = translateCompletionRequest(second.sent[0])
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.notes).toEqual([])
    expect(translated.messageOfTurn).toEqual([1, 2, 3])
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

  it('reads the non-streamed completion', async () => {
    const { turn } = await sealedAnswer()
    const { openai } = client(() => Response.json(completionResponse(turn, meta)))
    const completion = await openai.chat.completions.create({ model, messages: ask, stream: false })
    expect(completion.id).toBe(meta.id)
    expect(completion.usage?.total_tokens).toBe(200)
    const message = completion.choices[0]!.message
    expect(message.content).toBe(turn.text)
    expect(extra(message, 'reasoning_content')).toBe(turn.thinking)
    expect(message.tool_calls).toHaveLength(2)
    const translated = translateCompletionRequest({ model, messages: [...ask, message] })
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.request.conversation.turns[1]).toMatchObject({ items: turn.items })
  })

  it('reads null content on an answer that is only tool calls', async () => {
    const { turn } = await sealedAnswer()
    const callsOnly = { ...turn, text: '', thinking: undefined, items: undefined }
    const { openai } = client(() => Response.json(completionResponse(callsOnly, meta)))
    const completion = await openai.chat.completions.create({ model, messages: ask })
    expect(completion.choices[0]!.message.content).toBeNull()
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls')
  })

  it('throws the error sent after the first chunk, with no final message', async () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    const text =
      encode.delta({ type: 'text', text: 'Partial' }) +
      encode.error({ kind: 'overloaded', message: 'the provider is overloaded' })
    const { openai } = client(sse(text))
    const stream = await openai.chat.completions.create({ model, messages: ask, stream: true })
    const seen: string[] = []
    const reading = (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '')
    })()
    await expect(reading).rejects.toMatchObject({ message: 'the provider is overloaded' })
    expect(seen).toEqual(['Partial'])
  })
})

describe('the openai SDK reading error responses', () => {
  const failWith = (response: () => Response) =>
    client(response).openai.chat.completions.create({ model, messages: ask })

  it('raises AuthenticationError for 401', async () => {
    const error = await failWith(() =>
      completionErrorResponse(
        401,
        'auth',
        'a valid relay token is required',
        {},
        { 'www-authenticate': 'Bearer' },
      ),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' })
  })

  it('raises NotFoundError with model_not_found for a model the relay does not serve', async () => {
    const error = await failWith(() =>
      completionErrorResponse(404, 'invalid-request', "model 'x/y' is not served by this relay", {
        field: 'model',
      }),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error).toMatchObject({ code: 'model_not_found', param: 'model' })
  })

  it('raises RateLimitError carrying retry-after', async () => {
    const error = await failWith(() =>
      completionErrorResponse(
        429,
        'rate-limit',
        'rate limit reached for this client',
        {},
        { 'retry-after': '7' },
      ),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    if (!(error instanceof OpenAI.RateLimitError)) return
    expect(error.headers?.get('retry-after')).toBe('7')
    expect(error.type).toBe('rate_limit_error')
  })

  it('raises BadRequestError naming the param of a refused request', async () => {
    const refused = translateCompletionRequest({ model, messages: ask, n: 3 })
    if (refused.ok) throw new Error('expected n: 3 to be refused')
    const error = await failWith(() =>
      completionErrorResponse(400, 'invalid-request', refused.message, {
        field: refused.field,
        code: refused.code,
      }),
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error).toMatchObject({
      param: 'n',
      code: 'invalid_value',
      type: 'invalid_request_error',
    })
    expect(String(error)).toContain('n must be 1')
  })
})
