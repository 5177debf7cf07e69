/**
 * DeepSeek: the retired names `deepseek-chat` and `deepseek-reasoner` as the aliases they were
 * (`deepseek-v4-flash` without and with thinking), `reasoning_content` sent back on every later
 * request after a tool-call turn made in thinking mode, and prices by time of day.
 */
import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation, ToolTurn } from '../../../src/core/conversation.ts'
import { deepseek, presets } from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import { eventsAtCuts, fixture, offPeakClock, sentMessages } from './harness.ts'

const KEY = 'sk-test-000000000000'
const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in Graz?' }] }
const weatherTool = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
}
const streaming = { stream: true, stream_options: { include_usage: true } }
const reasoning = 'Für Graz braucht es das Wetter-Werkzeug: get_weather(„Graz“).'
const assistant = {
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'call_00_v4Graz',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Graz"}' },
    },
  ],
  reasoning_content: reasoning,
}
const result: ToolTurn = {
  role: 'tool',
  results: [{ callId: 'call_00_v4Graz', name: 'get_weather', output: '9 °C' }],
}

/**
 * One SDK client for DeepSeek's models, on a fetch that answers with `specs`, and on a clock that
 * prices every turn at the same hour (`now`, off-peak unless a test says otherwise).
 */
function models(specs: ReplaySpec[], now: () => number = offPeakClock) {
  const replay = replayFetch(specs)
  return { model: deepseek.create({ apiKey: KEY, fetch: replay.fetch, now }), replay }
}

/** The tool-call turn a model makes, then the body of the request that sends its result back. */
async function toolLoop(first: string, second: string, options: CallOptions = {}) {
  const { model, replay } = models([
    { body: fixture('deepseek-v4-tool-call.sse') },
    { body: fixture('deepseek-final.sse') },
  ])
  const turn = doneTurn(
    await collect(model(first).stream(ask, { tools: [weatherTool], ...options })),
  )
  const stored = JSON.parse(JSON.stringify(turn)) as AssistantTurn
  await collect(
    model(second).stream(
      { turns: [...ask.turns, stored, result] },
      { tools: [weatherTool], ...options },
    ),
  )
  return { turn, first: replay.requests[0]?.body, second: replay.requests[1]?.body, replay }
}

describe('deepseek: the retired names', () => {
  it('streams deepseek-reasoner as deepseek-v4-flash thinking, and sends its reasoning back after the tool call', async () => {
    const events = await eventsAtCuts(fixture('deepseek-v4-tool-call.sse'), {
      ...presets.deepseek,
      model: 'deepseek-reasoner',
      apiKey: KEY,
      now: offPeakClock,
    })
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Für Graz braucht es das Wetter-' },
      { type: 'thinking', text: 'Werkzeug: get_weather(„Graz“).' },
      {
        type: 'tool-call',
        call: { id: 'call_00_v4Graz', name: 'get_weather', input: { city: 'Graz' } },
      },
    ])

    const { turn, first, second, replay } = await toolLoop('deepseek-reasoner', 'deepseek-reasoner')
    expect(turn).toEqual(doneTurn(events))
    expect(turn).toMatchObject({
      thinking: reasoning,
      stopReason: 'tool-calls',
      usage: { inputTokens: 2000, outputTokens: 500, reasoningTokens: 420, cacheReadTokens: 1500 },
      // Tagged as the call it made: V4 Flash at its default, which is thinking.
      items: {
        provider: 'deepseek',
        model: 'deepseek-v4-flash',
        thinkingMode: 'default',
        data: [assistant],
      },
    })
    // The retired name is never sent; V4 thinks by default, so no switch is sent either.
    expect(first).toEqual({
      model: 'deepseek-v4-flash',
      messages: [{ role: 'user', content: 'Wetter in Graz?' }],
      ...streaming,
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: weatherTool.parameters } },
      ],
    })
    expect(second).toMatchObject({ model: 'deepseek-v4-flash' })
    expect(sentMessages(replay, 1).slice(1)).toEqual([
      assistant,
      { role: 'tool', tool_call_id: 'call_00_v4Graz', content: '9 °C' },
    ])
  })

  it.each([
    ['deepseek-reasoner', 'deepseek-v4-flash'],
    ['deepseek-v4-flash', 'deepseek-reasoner'],
  ])('replays a turn made with %s verbatim to %s', async (made, next) => {
    const { turn, replay } = await toolLoop(made, next)
    expect(sentMessages(replay, 1)[1]).toEqual(turn.items?.data[0])
    expect(sentMessages(replay, 1)[1]).toEqual(assistant)
  })

  it('streams deepseek-chat as deepseek-v4-flash with thinking off, and replays it to that call and back', async () => {
    const { turn, first, replay } = await toolLoop('deepseek-chat', 'deepseek-v4-flash', {
      thinking: 'off',
    })
    expect(first).toMatchObject({ model: 'deepseek-v4-flash', thinking: { type: 'disabled' } })
    expect(turn.items).toMatchObject({ model: 'deepseek-v4-flash', thinkingMode: 'off' })
    expect(sentMessages(replay, 1)[1]).toEqual(assistant)

    const chat = models([{ body: fixture('deepseek-v4-tool-call.sse') }])
    const made = doneTurn(await collect(chat.model('deepseek-chat').stream(ask)))
    expect(chat.replay.requests[0]?.body).toMatchObject({
      model: 'deepseek-v4-flash',
      thinking: { type: 'disabled' },
    })
    expect(made.items).toMatchObject({ model: 'deepseek-v4-flash', thinkingMode: 'off' })
  })

  it('re-encodes a deepseek-chat turn for deepseek-reasoner, with an empty reasoning_content', async () => {
    const { replay } = await toolLoop('deepseek-chat', 'deepseek-reasoner')
    expect(sentMessages(replay, 1)[1]).toEqual({ ...assistant, reasoning_content: '' })
  })

  it('lets the call’s own thinking setting win over the alias’s', async () => {
    const { model, replay } = models([{ body: fixture('deepseek-final.sse') }])
    const turn = doneTurn(await collect(model('deepseek-chat').stream(ask, { thinking: 'high' })))
    expect(replay.requests[0]?.body).toMatchObject({
      model: 'deepseek-v4-flash',
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
    })
    expect(turn.items).toMatchObject({ model: 'deepseek-v4-flash', thinkingMode: 'high' })
  })

  it('keeps the old names among the models it lists, after the current ones', () => {
    expect(deepseek.create({ apiKey: KEY }).models).toEqual([
      'deepseek-v4-flash',
      'deepseek-v4-pro',
      'deepseek-flash',
      'deepseek-chat',
      'deepseek-reasoner',
    ])
  })
})

describe('deepseek: prices by time of day', () => {
  // 2000 input tokens, 1500 of them cached, and 500 output, at V4 Flash's peak rates.
  const peakCost = (500 * 0.3 + 1500 * 0.006 + 500 * 1.2) / 1e6

  /** The cost of the tool-call turn of `name` sent when `now` says. */
  async function costAt(name: string, now: () => number): Promise<number | undefined> {
    const { model } = models([{ body: fixture('deepseek-v4-tool-call.sse') }], now)
    return doneTurn(await collect(model(name).stream(ask))).usage.cost
  }

  it.each([
    ['a weekday in the morning peak', '2026-12-07T02:30:00Z', peakCost],
    ['a weekday in the later peak', '2026-12-08T09:59:00Z', peakCost],
    ['a weekday between the peaks', '2026-12-07T04:30:00Z', peakCost / 2],
    ['a weekday evening', '2026-12-09T18:00:00Z', peakCost / 2],
    ['a Saturday at a peak hour', '2026-12-05T02:30:00Z', peakCost / 2],
  ])('prices a turn sent on %s', async (_, at, cost) => {
    for (const name of ['deepseek-v4-flash', 'deepseek-reasoner'])
      expect(await costAt(name, () => Date.parse(at))).toBeCloseTo(cost, 15)
  })

  it.each([
    ['the later peak ends', '2026-12-08T10:00:00.000Z', peakCost, peakCost / 2],
    ['the morning peak begins', '2026-12-07T01:00:00.000Z', peakCost / 2, peakCost],
    ['the later peak begins', '2026-12-07T06:00:00.000Z', peakCost / 2, peakCost],
  ])(
    'prices a turn by the hour its request was sent when %s while it streams',
    async (_, boundary, before, after) => {
      const change = Date.parse(boundary)
      // A clock one millisecond before the change until the request is sent, then past it: the
      // turn ends after the change, but is priced as it was sent.
      let time = change - 1
      const clock = () => time
      const replay = replayFetch([{ body: fixture('deepseek-v4-tool-call.sse') }])
      const sent: typeof globalThis.fetch = async (...request) => {
        const response = await replay.fetch(...request)
        time = change + 60_000
        return response
      }
      const model = deepseek.create({ apiKey: KEY, fetch: sent, now: clock })
      const turn = doneTurn(await collect(model('deepseek-v4-flash').stream(ask)))
      expect(time).toBe(change + 60_000)
      expect(turn.usage.cost).toBeCloseTo(before, 15)
      // Sent at the change itself, it is priced at the rates that begin there.
      expect(await costAt('deepseek-v4-flash', () => change)).toBeCloseTo(after, 15)
    },
  )

  it('refuses a clock that is not a function, naming the setting', () => {
    expect(() =>
      deepseek.create({ apiKey: KEY, now: 1_765_000_000_000 as unknown as () => number }),
    ).toThrow(
      'openaiCompatible: settings.now must be a function that returns epoch milliseconds, got number',
    )
  })
})
