/**
 * Parallel function calls where Gemini signs only the first call of the step: each call's part
 * keeps its own signature, or none, from the stream to the items to the next request.
 */
import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { collect, doneTurn, eventsAtCuts, fixture, geminiWith } from './harness.ts'

const weatherTool = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}

describe('gemini parallel function calls signed only on the first', () => {
  it('keeps the signature on the first call when the calls come in one chunk', async () => {
    const ask: Conversation = { turns: [{ role: 'user', content: 'Paris und Kyoto?' }] }
    const events = await eventsAtCuts(fixture('parallel-calls.sse'), ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Zwei Städte, zwei Abfragen — parallel.' },
      {
        type: 'tool-call',
        call: { id: 'fc_paris', name: 'get_weather', input: { city: 'Paris' } },
      },
      {
        type: 'tool-call',
        call: { id: 'fc_kyoto', name: 'get_weather', input: { city: '京都' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')

    const { adapter, replay } = geminiWith([
      { body: fixture('parallel-calls.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const first = doneTurn(await collect(adapter.stream(ask, { tools: [weatherTool] })))
    expect(first).toEqual(turn)
    const next: Conversation = {
      turns: [
        ...ask.turns,
        first,
        {
          role: 'tool',
          results: [
            { callId: 'fc_paris', name: 'get_weather', output: 'sonnig' },
            { callId: 'fc_kyoto', name: 'get_weather', output: 'Regen' },
          ],
        },
      ],
    }
    await collect(adapter.stream(JSON.parse(JSON.stringify(next)), { tools: [weatherTool] }))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'Zwei Städte, zwei Abfragen — parallel.', thought: true },
          {
            functionCall: { id: 'fc_paris', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'U0lHLXBhcmFsbGVsLTE=',
          },
          { functionCall: { id: 'fc_kyoto', name: 'get_weather', args: { city: '京都' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'fc_paris',
              name: 'get_weather',
              response: { output: 'sonnig' },
            },
          },
          {
            functionResponse: {
              id: 'fc_kyoto',
              name: 'get_weather',
              response: { output: 'Regen' },
            },
          },
        ],
      },
    ])
  })

  it('keeps each call on its own part, signed or not, when the calls come in chunks of their own', async () => {
    const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in drei Städten?' }] }
    const events = await eventsAtCuts(fixture('parallel-calls-apart.sse'), ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Drei Orte, drei Abfragen: Zürich, Genève, Lugano.' },
      {
        type: 'tool-call',
        call: { id: 'gemini_1_0', name: 'get_weather', input: { city: 'Zürich' } },
      },
      {
        type: 'tool-call',
        call: { id: 'gemini_1_1', name: 'get_weather', input: { city: 'Genève' } },
      },
      {
        type: 'tool-call',
        call: { id: 'gemini_1_2', name: 'get_weather', input: { city: 'Lugano' } },
      },
    ])
    const turn = doneTurn(events)
    const parts = [
      { text: 'Drei Orte, drei Abfragen: Zürich, Genève, Lugano.', thought: true },
      {
        functionCall: { name: 'get_weather', args: { city: 'Zürich' } },
        thoughtSignature: 'U0lHLXBhcmFsbGVsLXrDvHJpY2g=',
      },
      { functionCall: { name: 'get_weather', args: { city: 'Genève' } } },
      { functionCall: { name: 'get_weather', args: { city: 'Lugano' } } },
    ]
    expect(turn).toMatchObject({
      stopReason: 'tool-calls',
      usage: { inputTokens: 61, outputTokens: 69, reasoningTokens: 48 },
      items: { provider: 'gemini', model: 'gemini-3-flash-preview', data: parts },
    })

    const { adapter, replay } = geminiWith([
      { body: fixture('parallel-calls-apart.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const first = doneTurn(await collect(adapter.stream(ask, { tools: [weatherTool] })))
    const next: Conversation = {
      turns: [
        ...ask.turns,
        first,
        {
          role: 'tool',
          results: [
            { callId: 'gemini_1_0', name: 'get_weather', output: '3 °C' },
            { callId: 'gemini_1_1', name: 'get_weather', output: '6 °C' },
            { callId: 'gemini_1_2', name: 'get_weather', output: '11 °C' },
          ],
        },
      ],
    }
    await collect(adapter.stream(JSON.parse(JSON.stringify(next)), { tools: [weatherTool] }))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    // Gemini gave the calls no ids, so neither do their responses: matched by name and order.
    expect(body.contents.slice(1)).toEqual([
      { role: 'model', parts },
      {
        role: 'user',
        parts: ['3 °C', '6 °C', '11 °C'].map((output) => ({
          functionResponse: { name: 'get_weather', response: { output } },
        })),
      },
    ])
  })
  it('keeps the signature on the first of two calls whose arguments stream in pieces', async () => {
    const ask: Conversation = { turns: [{ role: 'user', content: 'Zürich und Genève?' }] }
    const events = await eventsAtCuts(fixture('parallel-calls-streamed-arguments.sse'), ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      {
        type: 'tool-call',
        call: { id: 'gemini_1_0', name: 'get_weather', input: { city: 'Zürich' } },
      },
      {
        type: 'tool-call',
        call: { id: 'gemini_1_1', name: 'get_weather', input: { city: 'Genève' } },
      },
    ])
    const parts = [
      {
        functionCall: { name: 'get_weather', args: { city: 'Zürich' } },
        thoughtSignature: 'U0lHLXN0cmVhbWVkLXBhcmFsbGVs',
      },
      { functionCall: { name: 'get_weather', args: { city: 'Genève' } } },
    ]
    expect(doneTurn(events).items?.data).toEqual(parts)

    const { adapter, replay } = geminiWith([
      { body: fixture('parallel-calls-streamed-arguments.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const first = doneTurn(await collect(adapter.stream(ask, { tools: [weatherTool] })))
    const results = ['1 °C', '7 °C'].map((output, i) => ({
      callId: `gemini_1_${i}`,
      name: 'get_weather',
      output,
    }))
    const next: Conversation = {
      turns: [...ask.turns, first, { role: 'tool', results }],
    }
    await collect(adapter.stream(JSON.parse(JSON.stringify(next)), { tools: [weatherTool] }))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents[1]).toEqual({ role: 'model', parts })
  })
})
