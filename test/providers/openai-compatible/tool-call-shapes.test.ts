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

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in München und Zürich?' }] }
/** Gemini's OpenAI-compatible endpoint, as any server without a preset. */
const geminiCompat: CompatibleSetup = {
  provider: 'gemini-openai',
  baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai',
  model: 'gemini-3-flash-preview',
  apiKey: 'AIzaTestKey0000000000',
  reasoning: { thinkTags: 'off' },
}
const ollama: CompatibleSetup = { ...presets.ollama, model: 'qwen3:8b' }
const signature = 'Q2lnQmVpc3BpZWwtU2lnbmF0dXI='

describe('openai-compatible: tool calls that share an index', () => {
  it('are separate calls when Gemini sends them in one delta at index 0, each keeping its extra_content', async () => {
    const events = await eventsAtCuts(fixture('gemini-parallel-signed.sse'), geminiCompat, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: 'Ich prüfe beide Städte.' },
      {
        type: 'tool-call',
        call: { id: 'function-call-4711', name: 'get_weather', input: { city: 'München' } },
      },
      {
        type: 'tool-call',
        call: { id: 'function-call-4712', name: 'get_weather', input: { city: 'Zürich' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.usage).toEqual({ inputTokens: 70, outputTokens: 110, reasoningTokens: 80 })
    expect(turn.items?.data).toEqual([
      {
        role: 'assistant',
        content: 'Ich prüfe beide Städte.',
        tool_calls: [
          {
            id: 'function-call-4711',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"München"}' },
            extra_content: { google: { thought_signature: signature } },
          },
          {
            id: 'function-call-4712',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Zürich"}' },
          },
        ],
      },
    ])
  })

  it('sends the thought signature back on its call in step 2 to the same model, and to no other', async () => {
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('gemini-parallel-signed.sse') }, { body: fixture('gemini-answer.sse') }],
      geminiCompat,
    )
    const conversation: Conversation = { turns: [...ask.turns] }
    const step1 = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(step1, {
      role: 'tool',
      results: [
        { callId: 'function-call-4711', name: 'get_weather', output: '9 °C' },
        { callId: 'function-call-4712', name: 'get_weather', output: '14 °C' },
      ],
    })
    const step2 = doneTurn(await collect(adapter.stream(conversation)))
    expect(step2.text).toBe('München 9 °C, Zürich 14 °C.')
    const messages = sentMessages(replay, 1)
    expect(messages).toEqual([
      ask.turns[0],
      step1.items?.data[0],
      { role: 'tool', tool_call_id: 'function-call-4711', content: '9 °C' },
      { role: 'tool', tool_call_id: 'function-call-4712', content: '14 °C' },
    ])
    expect(messages[1]).toMatchObject({
      tool_calls: [{ extra_content: { google: { thought_signature: signature } } }, {}],
    })

    // Another model of the same server gets the calls rebuilt, without the signature.
    const other = compatibleWith([{ body: fixture('gemini-answer.sse') }], {
      ...geminiCompat,
      model: 'gemini-2.5-flash',
    })
    await collect(other.adapter.stream(conversation))
    const sent = JSON.stringify(other.replay.requests[0]?.body)
    expect(sent).toContain('function-call-4711')
    expect(sent).not.toContain(signature)
    expect(sent).not.toContain('extra_content')
  })

  it('are separate calls when Ollama sends each at index 0, and a continuation without id appends', async () => {
    const events = await eventsAtCuts(fixture('ollama-parallel-calls.sse'), ollama, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Zwei Städte, zwei Aufrufe.' },
      {
        type: 'tool-call',
        call: { id: 'call_oll_1', name: 'get_weather', input: { city: 'Graz' } },
      },
      {
        type: 'tool-call',
        call: { id: 'call_oll_2', name: 'get_weather', input: { city: 'Linz' } },
      },
    ])
    expect(doneTurn(events).items?.data).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_oll_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Graz"}' },
          },
          {
            id: 'call_oll_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Linz"}' },
          },
        ],
      },
    ])
  })
})
