/**
 * The offline mock calls tools on every route of the Worker as deployed with no provider key (so
 * it serves `mock/echo`), in workerd over real HTTP: `POST /v1/chat`, a durable conversation, and
 * `POST /v1/chat/completions` driven by the official `openai` SDK. Each route's tool loop runs to
 * an answer that quotes the tool's result.
 */
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolSpec } from '../../src/core/adapter.ts'
import type { AssistantTurn, ToolTurn, Turn } from '../../src/core/conversation.ts'
import type { ToolCall } from '../../src/core/events.ts'
import { payloads, readSse } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const MODEL = 'mock/echo'
const NOW = '2026-12-06T07:00:00Z'

const clock: ToolSpec = {
  name: 'clock',
  description: 'The current time, as an ISO 8601 string',
  parameters: { type: 'object', properties: {} },
}
const saveNote: ToolSpec = {
  name: 'save_note',
  description: 'Keeps a note',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1 } },
    required: ['text'],
  },
}

let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker(
    {
      // Open to anyone, as a relay tried out locally without tokens is.
      ALLOW_ANONYMOUS: 'true',
      // Paced, as `npm start` paces the mock (with a short delay, so the file stays quick).
      MOCK_DELAY_MS: '1',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    },
    'worker/index.ts',
  )
})

afterAll(async () => {
  await worker?.dispose()
})

/** POSTs a JSON body and reads the SSE answer as `[event, data]` pairs. */
async function post(
  path: string,
  body: unknown,
): Promise<{ event: string | undefined; data: unknown }[]> {
  const response = await worker.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`)
  return payloads(await readSse(response))
}

/** The tool calls and the `done` turn of an answer's events. */
function answerOf(events: { event: string | undefined; data: unknown }[]) {
  const calls = events
    .filter((e) => e.event === 'tool-call')
    .map((e) => (e.data as { call: ToolCall }).call)
  const done = events.filter((e) => e.event === 'done')
  expect(done).toHaveLength(1)
  expect(events.at(-1)?.event).toBe('done')
  return { calls, turn: (done[0]!.data as { turn: AssistantTurn }).turn }
}

/** The tool turn that answers `call` with `output`. */
const resultsFor = (call: ToolCall, output: unknown): ToolTurn => ({
  role: 'tool',
  results: [{ callId: call.id, name: call.name, output }],
})

describe('the offline mock on the Worker calls tools', () => {
  it('on POST /v1/chat: a tool-call event and a tool-calls turn, then an answer quoting the result', async () => {
    const user: Turn = { role: 'user', content: 'What does the clock say?' }
    const first = answerOf(
      await post('/v1/chat', {
        model: MODEL,
        conversation: { turns: [user] },
        tools: [clock, saveNote],
      }),
    )
    expect(first.calls).toEqual([{ id: expect.any(String), name: 'clock', input: {} }])
    expect(first.turn.stopReason).toBe('tool-calls')
    expect(first.turn.toolCalls).toEqual(first.calls)
    expect(first.turn.thinking).toContain('The message names clock, so I call it.')

    const second = answerOf(
      await post('/v1/chat', {
        model: MODEL,
        conversation: { turns: [user, first.turn, resultsFor(first.calls[0]!, NOW)] },
        tools: [clock, saveNote],
      }),
    )
    expect(second.calls).toEqual([])
    expect(second.turn.stopReason).toBe('stop')
    expect(second.turn.text).toBe(`The clock tool returned "${NOW}".`)
  })

  it('in a durable conversation: the call, a tool turn sent back, the quoting answer, all stored', async () => {
    const created = await worker.fetch('/v1/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const messages = `/v1/conversations/${id}/messages`

    const first = answerOf(
      await post(messages, {
        model: MODEL,
        turn: { role: 'user', content: 'Please save_note "call the plumber"' },
        tools: [clock, saveNote],
      }),
    )
    expect(first.calls).toEqual([
      { id: expect.any(String), name: 'save_note', input: { text: 'call the plumber' } },
    ])
    expect(first.turn.stopReason).toBe('tool-calls')
    expect(first.turn.thinking).toContain('The message names save_note, so I call it.')

    const results = resultsFor(first.calls[0]!, 'saved: call the plumber')
    const events = await post(messages, { model: MODEL, turn: results, tools: [clock, saveNote] })
    expect(events[0]).toEqual({ event: 'turn', data: { turn: results } })
    const second = answerOf(events)
    expect(second.turn.text).toBe('The save_note tool returned "saved: call the plumber".')

    const shown = await settled(id)
    expect(shown.conversation.turns).toMatchObject([
      { role: 'user', content: 'Please save_note "call the plumber"' },
      { role: 'assistant', stopReason: 'tool-calls', toolCalls: first.calls },
      results,
      { role: 'assistant', stopReason: 'stop', text: second.turn.text },
    ])
  })
})

describe('the offline mock behind /v1/chat/completions, with the official openai SDK', () => {
  const weatherTool: OpenAI.ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
    },
  }
  const client = () =>
    new OpenAI({
      apiKey: 'no-token-needed',
      baseURL: new URL('/v1', worker.url).href,
      maxRetries: 0,
    })

  /** A chat completion, streamed (and assembled by the SDK) or not. */
  async function completion(
    body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'stream'>,
    streamed: boolean,
  ): Promise<OpenAI.ChatCompletion> {
    if (!streamed) return client().chat.completions.create(body)
    return client().chat.completions.stream(body).finalChatCompletion()
  }

  for (const streamed of [true, false]) {
    it(`runs the tool loop of a get_weather tool ${streamed ? 'streamed' : 'not streamed'}: tool_calls, then an answer quoting the tool message`, async () => {
      const tools = [weatherTool]
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Use get_weather: is it sunny in "Paris"?' },
      ]
      const first = await completion(
        { model: MODEL, messages, tools, reasoning_effort: 'low' },
        streamed,
      )
      const message = first.choices[0]!.message
      expect(first.choices[0]!.finish_reason).toBe('tool_calls')
      expect(message.tool_calls).toHaveLength(1)
      const call = message.tool_calls![0]!
      if (call.type !== 'function') throw new Error(`a ${call.type} tool call`)
      expect(call.function.name).toBe('get_weather')
      const { city } = JSON.parse(call.function.arguments) as { city: string }
      expect(city).toBe('Paris')

      messages.push(message, { role: 'tool', tool_call_id: call.id, content: `sunny in ${city}` })
      const second = await completion({ model: MODEL, messages, tools }, streamed)
      expect(second.choices[0]!.finish_reason).toBe('stop')
      expect(second.choices[0]!.message.tool_calls ?? []).toEqual([])
      expect(second.choices[0]!.message.content).toBe(
        'The get_weather tool returned "sunny in Paris".',
      )
    })
  }
})

type Shown = { conversation: { turns: Turn[] }; streaming: boolean }

/** The conversation once its answer has ended (polled until it says so). */
async function settled(id: string): Promise<Shown> {
  for (;;) {
    const response = await worker.fetch(`/v1/conversations/${id}`)
    expect(response.status).toBe(200)
    const shown = (await response.json()) as Shown
    if (!shown.streaming) return shown
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
