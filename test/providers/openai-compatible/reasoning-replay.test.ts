import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import {
  compatibleWith,
  eventsAtCuts,
  fixture,
  offPeakClock,
  sentMessages,
  type CompatibleSetup,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in Zürich?' }] }
const weatherTool = {
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
}

describe('openai-compatible: OpenRouter reasoning_details', () => {
  const openrouter: CompatibleSetup = {
    ...presets.openrouter,
    model: 'google/gemini-3-pro-preview',
    apiKey: 'sk-or-test-0000',
  }
  const entries = [
    {
      type: 'reasoning.text',
      text: 'Erst das Wetter holen.',
      format: 'google-gemini-v1',
      index: 0,
    },
    { type: 'reasoning.encrypted', data: 'R2VtaW5pLVNpZy1B', format: 'google-gemini-v1', index: 0 },
    {
      type: 'reasoning.encrypted',
      data: 'R2VtaW5pLVNpZy1C',
      id: 'tool_or_1',
      format: 'google-gemini-v1',
    },
    {
      type: 'reasoning.encrypted',
      data: 'R2VtaW5pLVNpZy1D',
      id: 'tool_or_2',
      format: 'google-gemini-v1',
    },
  ]

  it('keeps entries without an index, and one of another type at a used index, as entries of their own', async () => {
    const events = await eventsAtCuts(
      fixture('openrouter-reasoning-unindexed.sse'),
      openrouter,
      ask,
    )
    expect(events.filter((e) => e.type === 'thinking')).toEqual([
      { type: 'thinking', text: 'Erst das ' },
      { type: 'thinking', text: 'Wetter holen.' },
    ])
    const turn = doneTurn(events)
    expect(turn.toolCalls).toEqual([
      { id: 'tool_or_1', name: 'get_weather', input: { city: 'Wien' } },
    ])
    expect(turn.items?.data).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'tool_or_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Wien"}' },
          },
        ],
        reasoning_details: entries,
      },
    ])
  })

  it('sends every entry back verbatim, in order, on the assistant message of the next step', async () => {
    const { adapter, replay } = compatibleWith(
      [
        { body: fixture('openrouter-reasoning-unindexed.sse') },
        { body: fixture('text-usage.sse') },
      ],
      openrouter,
    )
    const conversation: Conversation = { turns: [...ask.turns] }
    const step1 = doneTurn(await collect(adapter.stream(conversation, { tools: [weatherTool] })))
    conversation.turns.push(step1, {
      role: 'tool',
      results: [{ callId: 'tool_or_1', name: 'get_weather', output: '20 °C' }],
    })
    await collect(adapter.stream(conversation, { tools: [weatherTool] }))
    const messages = sentMessages(replay, 1)
    expect(messages[1]).toMatchObject({ reasoning_details: entries })
    expect(messages[1]).toEqual(step1.items?.data[0])
  })

  it('builds entries from upstream keys without touching any prototype', async () => {
    const body = fixture('openrouter-reasoning-unindexed.sse').replace(
      '"id":"tool_or_2",',
      '"id":"tool_or_2","__proto__":{"polluted":true},',
    )
    const turn = doneTurn(await collect(compatibleWith([{ body }], openrouter).adapter.stream(ask)))
    const message = turn.items?.data[0] as { reasoning_details: object[] }
    expect(message.reasoning_details).toEqual(entries)
    expect('polluted' in message.reasoning_details[3]!).toBe(false)
    expect('polluted' in {}).toBe(false)
  })
})

describe('openai-compatible: DeepSeek replay rules per model', () => {
  const setup = (model: string): CompatibleSetup => ({
    ...presets.deepseek,
    model,
    apiKey: 'sk-test-000000000000',
    now: offPeakClock,
  })
  const call = {
    id: 'call_ds_01',
    type: 'function',
    function: { name: 'get_weather', arguments: '{"city":"Zürich"}' },
  }
  const reasoning = 'Das Wetter in Zürich braucht ein Werkzeug — get_weather.'

  /** The second request of a tool loop: the tool-call turn and its result sent back. */
  async function secondRequest(
    model: string,
  ): Promise<{ messages: unknown[]; first: AssistantTurn }> {
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('deepseek-tool-call.sse') }, { body: fixture('deepseek-final.sse') }],
      setup(model),
    )
    const conversation: Conversation = { turns: [...ask.turns] }
    const first = doneTurn(await collect(adapter.stream(conversation, { tools: [weatherTool] })))
    conversation.turns.push(first, {
      role: 'tool',
      results: [{ callId: 'call_ds_01', name: 'get_weather', output: '14 °C' }],
    })
    await collect(adapter.stream(conversation, { tools: [weatherTool] }))
    return { messages: sentMessages(replay, 1), first }
  }

  it.each(['deepseek-v4-flash', 'deepseek-v4-pro'])(
    'sends %s its reasoning_content back on the turn that made tool calls',
    async (model) => {
      const { messages, first } = await secondRequest(model)
      expect(first.thinking).toBe(reasoning)
      expect(messages.slice(1)).toEqual([
        { role: 'assistant', content: null, tool_calls: [call], reasoning_content: reasoning },
        { role: 'tool', tool_call_id: 'call_ds_01', content: '14 °C' },
      ])
    },
  )

  it.each(['deepseek-v4-flash', 'deepseek-reasoner', 'deepseek-chat'])(
    'gives a turn from another model an empty reasoning_content on %s',
    async (model) => {
      const foreign: AssistantTurn = {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: 'toolu_01', name: 'get_weather', input: { city: 'Bern' } }],
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: 'tool-calls',
      }
      const conversation: Conversation = {
        turns: [
          { role: 'user', content: 'Bern?' },
          foreign,
          { role: 'tool', results: [{ callId: 'toolu_01', name: 'get_weather', output: 'kalt' }] },
        ],
      }
      const { adapter, replay } = compatibleWith(
        [{ body: fixture('deepseek-final.sse') }],
        setup(model),
      )
      await collect(adapter.stream(conversation))
      expect(sentMessages(replay, 0)[1]).toMatchObject({ reasoning_content: '' })
    },
  )

  it('lets a caller’s model row override the preset’s rule', async () => {
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('deepseek-tool-call.sse') }, { body: fixture('deepseek-final.sse') }],
      {
        ...setup('deepseek-v4-flash'),
        models: { 'deepseek-v4-flash': { reasoning: { sendBack: ['reasoning'] } } },
      },
    )
    const conversation: Conversation = { turns: [...ask.turns] }
    const first = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(first, {
      role: 'tool',
      results: [{ callId: 'call_ds_01', name: 'get_weather', output: '14 °C' }],
    })
    await collect(adapter.stream(conversation))
    const messages = sentMessages(replay, 1)
    expect(messages[1]).toMatchObject({ reasoning })
    expect(messages[1]).not.toHaveProperty('reasoning_content')
  })
})
