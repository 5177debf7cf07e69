/**
 * One table for every chat dialect the relay speaks: each driver runs the same cases against a
 * relay in process (text, thinking, parallel tool calls and their results, an error before and
 * after the first event, abort, usage, and sealed reasoning state across providers), so no
 * dialect answers a case differently from `/v1/chat`. A dialect's own shapes are tested in its
 * folder; here only what every dialect must do alike.
 */
import { describe, expect, it } from 'vitest'
import { mock, type MockAdapter, type MockResponse } from '../../../src/providers/mock/index.ts'
import { createRelay } from '../../../src/relay/index.ts'
import { eventually } from '../../helpers/eventually.ts'
import { aiSdkDriver } from './ai-sdk-driver.ts'
import { anthropicMessagesDriver } from './anthropic-messages-driver.ts'
import { chatDriver } from './chat-driver.ts'
import { completionsDriver } from './completions-driver.ts'
import { responsesDriver } from './openai-responses-driver.ts'
import type {
  DialectDriver,
  DriverAnswer,
  DriverCall,
  DriverOutcome,
  DriverTool,
} from './driver.ts'

const TOKEN = 'token-dialect-table-0123456789'
const SEAL_KEYS = ['seal-dialect-table-Qm4Rt8Wz2Xc6Vb0Nk5Lp']

const drivers: DialectDriver[] = [
  chatDriver,
  completionsDriver,
  responsesDriver,
  anthropicMessagesDriver,
  aiSdkDriver,
]

const weather: DriverTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

/** A relay over two scripted mock providers, `alpha/one` and `beta/one`, with seal keys. */
function relayOf(alpha: MockResponse[], beta: MockResponse[] = [{ text: 'unused' }]) {
  const adapters = {
    alpha: mock({ provider: 'alpha', model: 'one', script: alpha, chunkSize: 4 }),
    beta: mock({ provider: 'beta', model: 'one', script: beta, chunkSize: 4 }),
  }
  const relay = createRelay({
    providers: { alpha: [adapters.alpha], beta: [adapters.beta] },
    auth: [TOKEN],
    sealKeys: SEAL_KEYS,
  })
  return { relay, ...adapters }
}

function send(
  relay: ReturnType<typeof createRelay>,
  driver: DialectDriver,
  call: DriverCall,
  signal?: AbortSignal,
): Promise<Response> {
  const { body, headers } = driver.request(call)
  return relay.fetch(
    new Request(`http://relay.test${driver.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...driver.auth(TOKEN), ...headers },
      body: JSON.stringify(body),
      signal: signal ?? null,
    }),
  )
}

async function ask(
  relay: ReturnType<typeof createRelay>,
  driver: DialectDriver,
  call: DriverCall,
): Promise<DriverOutcome> {
  return driver.read(await send(relay, driver, call), call)
}

function answered(outcome: DriverOutcome): DriverAnswer {
  if (!outcome.ok) throw new Error(`expected an answer, got ${outcome.status}: ${outcome.message}`)
  expect(outcome.status).toBe(200)
  return outcome.answer
}

const user = (text: string) => ({ role: 'user' as const, text })

/** Each driver, streamed, and not streamed where its dialect has both. */
const modes = drivers.flatMap((driver) => [
  { driver, stream: true, label: `${driver.name} streamed` },
  ...(driver.nonStreaming ? [{ driver, stream: false, label: `${driver.name} not streamed` }] : []),
])

describe.each(modes)('$label', ({ driver, stream }) => {
  it('answers with text and the usage the model reported', async () => {
    const { relay } = relayOf([
      { text: 'Four, since 2 + 2 = 4.', usage: { inputTokens: 12, outputTokens: 7 } },
    ])
    const answer = answered(
      await ask(relay, driver, { model: 'alpha/one', turns: [user('2 + 2?')], stream }),
    )
    expect(answer).toMatchObject({ text: 'Four, since 2 + 2 = 4.', thinking: '', toolCalls: [] })
    expect(answer.usage).toEqual({ inputTokens: 12, outputTokens: 7 })
  })

  it('gives the thinking apart from the text', async () => {
    const { relay } = relayOf([{ thinking: 'Add two and two: ünïcode 🧮.', text: 'Four.' }])
    const call: DriverCall = { model: 'alpha/one', turns: [user('2 + 2?')], thinking: true, stream }
    const answer = answered(await ask(relay, driver, call))
    expect(answer.thinking).toBe('Add two and two: ünïcode 🧮.')
    expect(answer.text).toBe('Four.')
  })

  it('makes parallel tool calls and takes their results back', async () => {
    const { relay, alpha } = relayOf([
      {
        toolCalls: [
          { id: 'call_paris', name: 'get_weather', input: { city: 'Paris' } },
          { id: 'call_oslo', name: 'get_weather', input: { city: 'Oslo' } },
        ],
        stopReason: 'tool-calls',
      },
      { text: 'Sunny in Paris, snow in Oslo.' },
    ])
    const first: DriverCall = {
      model: 'alpha/one',
      turns: [user('Weather in Paris and Oslo?')],
      tools: [weather],
      stream,
    }
    const calls = answered(await ask(relay, driver, first))
    expect(calls.toolCalls).toEqual([
      { id: 'call_paris', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'call_oslo', name: 'get_weather', input: { city: 'Oslo' } },
    ])
    const results = [
      { id: 'call_paris', name: 'get_weather', output: 'sunny' },
      { id: 'call_oslo', name: 'get_weather', output: 'snow' },
    ]
    const second: DriverCall = {
      ...first,
      turns: [...first.turns, { role: 'assistant', answer: calls }, { role: 'tool', results }],
    }
    expect(answered(await ask(relay, driver, second)).text).toBe('Sunny in Paris, snow in Oslo.')
    expect(alpha.calls[1]!.conversation.turns.at(-1)).toMatchObject({
      role: 'tool',
      results: [
        { callId: 'call_paris', name: 'get_weather', output: 'sunny' },
        { callId: 'call_oslo', name: 'get_weather', output: 'snow' },
      ],
    })
  })

  it('answers a failure before the first event with its status and message', async () => {
    const { relay } = relayOf([{ fail: { kind: 'rate-limit', message: 'slow down, please' } }])
    const outcome = await ask(relay, driver, { model: 'alpha/one', turns: [user('Hi')], stream })
    expect(outcome).toMatchObject({ ok: false, status: 429, afterFirstEvent: false })
    expect(outcome.ok || outcome.message).toContain('slow down, please')
  })

  it('replays sealed reasoning state to its own model, and to no other', async () => {
    const { relay, alpha, beta } = relayOf(
      [
        {
          thinking: 'Signed thoughts',
          toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Lima' } }],
          stopReason: 'tool-calls',
        },
        { text: 'Cloudy in Lima.' },
      ],
      [{ text: 'Cloudy, says beta.' }],
    )
    const first: DriverCall = {
      model: 'alpha/one',
      turns: [user('Weather in Lima?')],
      tools: [weather],
      thinking: true,
      stream,
    }
    const answer = answered(await ask(relay, driver, first))
    const history = [
      ...first.turns,
      { role: 'assistant' as const, answer },
      { role: 'tool' as const, results: [{ id: 'call_1', name: 'get_weather', output: 'cloudy' }] },
    ]
    // The same model gets its own items back, exactly as it gave them.
    answered(await ask(relay, driver, { ...first, turns: history }))
    expect(replayedOf(alpha, 1)).toEqual([
      {
        type: 'mock-turn',
        thinking: 'Signed thoughts',
        text: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Lima' } }],
        callIndex: 0,
      },
    ])

    // Another provider gets the turn from its text and calls, never alpha's items.
    const other = answered(
      await ask(relay, driver, { ...first, model: 'beta/one', turns: history }),
    )
    expect(other.text).toBe('Cloudy, says beta.')
    expect(beta.calls[0]!.request[1]).toEqual({
      role: 'assistant',
      text: '',
      toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Lima' } }],
    })
  })
})

describe.each(drivers)('$name streamed', (driver) => {
  it('ends a stream that fails after its first event with an error', async () => {
    const { relay } = relayOf([
      {
        text: 'A long answer',
        fail: { kind: 'server', message: 'upstream broke', afterEvents: 2 },
      },
    ])
    const outcome = await ask(relay, driver, {
      model: 'alpha/one',
      turns: [user('Hi')],
      stream: true,
    })
    expect(outcome).toMatchObject({ ok: false, status: 200, afterFirstEvent: true })
    expect(outcome.ok || outcome.message).toContain('upstream broke')
  })

  it('aborts the upstream call when the client leaves', async () => {
    const { relay, alpha } = relayOf([{ thinking: 'Thinking it over', stallAfterEvents: 1 }])
    const controller = new AbortController()
    const call: DriverCall = {
      model: 'alpha/one',
      turns: [user('Hi')],
      thinking: true,
      stream: true,
    }
    const response = await send(relay, driver, call, controller.signal)
    const reader = response.body!.getReader()
    expect((await reader.read()).done).toBe(false)
    expect(alpha.calls[0]!.signal.aborted).toBe(false)
    controller.abort()
    await eventually(() => alpha.calls[0]!.signal.aborted, 'the upstream abort')
  })
})

/** The items a mock's call `index` was given back for its one assistant turn. */
function replayedOf(adapter: MockAdapter, index: number): unknown[] {
  const assistant = adapter.calls[index]!.request.find((turn) => turn.role === 'assistant')
  if (assistant === undefined || !('replayed' in assistant))
    throw new Error(`call ${index} replayed no items: ${JSON.stringify(assistant)}`)
  return assistant.replayed
}
