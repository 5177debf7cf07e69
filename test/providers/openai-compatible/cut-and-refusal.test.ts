import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import {
  compatibleWith,
  eventsAtCuts,
  fixture,
  sentMessages,
  type CompatibleSetup,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in Köln und Düsseldorf?' }] }
const openai: CompatibleSetup = {
  ...presets['openai-chat'],
  model: 'gpt-4.1-mini',
  apiKey: 'sk-test-0000',
}
const azure: CompatibleSetup = {
  provider: 'azure',
  baseURL: 'https://azure.test/openai/v1',
  model: 'gpt-4.1-mini',
}

/** The messages of the request sent after `turn` was added, with a tool turn for its calls. */
async function nextMessages(setup: CompatibleSetup, first: string): Promise<unknown[]> {
  const { adapter, replay } = compatibleWith(
    [{ body: fixture(first) }, { body: fixture('text-usage.sse') }],
    setup,
  )
  const conversation: Conversation = { turns: [...ask.turns] }
  const turn = doneTurn(await collect(adapter.stream(conversation)))
  conversation.turns.push(turn)
  const calls = turn.toolCalls ?? []
  if (calls.length > 0)
    conversation.turns.push({
      role: 'tool',
      results: calls.map((call) => ({ callId: call.id, name: call.name, output: 'sonnig' })),
    })
  else conversation.turns.push({ role: 'user', content: 'Und jetzt?' })
  await collect(adapter.stream(conversation))
  return sentMessages(replay, 1)
}

describe('openai-compatible: a tool call cut off by the output limit', () => {
  it('is never yielded, kept or replayed; the call before it is, with a length stop and a warning', async () => {
    const events = await eventsAtCuts(fixture('tool-cut-off.sse'), openai, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: 'Ich sehe nach ' },
      { type: 'text', text: 'für beide Städte.' },
      {
        type: 'tool-call',
        call: { id: 'call_whole', name: 'get_weather', input: { city: 'Köln' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('length')
    expect(turn.toolCalls).toEqual([
      { id: 'call_whole', name: 'get_weather', input: { city: 'Köln' } },
    ])
    expect(turn.warnings).toEqual([
      'tool call call_cut (get_weather) dropped: the output limit cut off its arguments, so it is neither run nor replayed',
    ])
    expect(turn.items?.data).toEqual([
      {
        role: 'assistant',
        content: 'Ich sehe nach für beide Städte.',
        tool_calls: [
          {
            id: 'call_whole',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Köln"}' },
          },
        ],
      },
    ])
  })

  it('sends the next request with the complete call and its result only', async () => {
    const messages = await nextMessages(openai, 'tool-cut-off.sse')
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Ich sehe nach für beide Städte.',
        tool_calls: [
          {
            id: 'call_whole',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Köln"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_whole', content: 'sonnig' },
    ])
    expect(JSON.stringify(messages)).not.toContain('call_cut')
  })

  it('keeps a last call whose arguments are complete JSON when the limit stops the turn after it', async () => {
    const body = fixture('tool-cut-off.sse').replace('"{\\"city\\":\\"Düssel"', '"{}"')
    const turn = doneTurn(await collect(compatibleWith([{ body }], openai).adapter.stream(ask)))
    expect(turn.stopReason).toBe('length')
    expect(turn.toolCalls?.map((call) => call.id)).toEqual(['call_whole', 'call_cut'])
    expect(turn.warnings ?? []).toEqual([])
  })
})

describe('openai-compatible: a refusal', () => {
  it('streamed in refusal deltas is a refusal turn with the refusal as its explanation', async () => {
    const events = await eventsAtCuts(fixture('refusal.sse'), openai, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: 'Dabei kann ich ' },
      { type: 'text', text: 'nicht helfen.' },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'refusal',
      explanation: 'Dabei kann ich nicht helfen.',
    })
    expect(turn.items?.data).toEqual([
      { role: 'assistant', content: 'Dabei kann ich nicht helfen.' },
    ])
    const messages = await nextMessages(openai, 'refusal.sse')
    expect(messages).toEqual([
      ask.turns[0],
      { role: 'assistant', content: 'Dabei kann ich nicht helfen.' },
      { role: 'user', content: 'Und jetzt?' },
    ])
  })

  it('by content_filter is a refusal turn whose category is the server’s word, not an error', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('content-filter.sse'), azure, ask))
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({ category: 'content_filter' })
    expect(turn.text).toBe('Dazu kann ich ')
  })

  it('by content_filter in the middle of a call drops the call and replays the text alone', async () => {
    const events = await eventsAtCuts(fixture('content-filter-mid-call.sse'), azure, ask)
    expect(events.some((e) => e.type === 'tool-call')).toBe(false)
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: 'Ich suche danach.',
      stopReason: 'refusal',
      stopDetails: { category: 'content_filter' },
      warnings: [
        'tool call call_filtered (search) dropped: the content filter cut off its arguments, so it is neither run nor replayed',
      ],
    })
    expect(turn.toolCalls).toBeUndefined()
    const messages = await nextMessages(azure, 'content-filter-mid-call.sse')
    expect(messages).toEqual([
      ask.turns[0],
      { role: 'assistant', content: 'Ich suche danach.' },
      { role: 'user', content: 'Und jetzt?' },
    ])
  })

  it('that said nothing before the filter has no items, and the next request leaves it out', async () => {
    const body = fixture('content-filter-mid-call.sse').replace(
      /data: [^\n]*"content":"(Ich suche |danach\.)"[^\n]*\n\n/g,
      '',
    )
    const { adapter, replay } = compatibleWith(
      [{ body }, { body: fixture('text-usage.sse') }],
      azure,
    )
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn).toMatchObject({ text: '', stopReason: 'refusal' })
    expect(turn.items).toBeUndefined()
    await collect(
      adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Bitte.' }] }),
    )
    expect(sentMessages(replay, 1)).toEqual([
      { role: 'user', content: 'Wetter in Köln und Düsseldorf?\n\nBitte.' },
    ])
  })
})
