import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation, Turn } from '../../../src/core/conversation.ts'
import { gemini } from '../../../src/providers/gemini/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn, fixture, sentBody, setup, signatureOf, TEST_KEY } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in München?' }] }
const tools = { tools: [{ name: 'get_weather', parameters: { type: 'object' } }] }
const followUp: Turn = { role: 'user', content: 'Und morgen?' }

/** A turn `gemini()` made: generateContent parts, a signature on the call. */
const generateContentTurn: AssistantTurn = {
  role: 'assistant',
  text: 'Ich sehe nach.',
  toolCalls: [{ id: 'gemini_1_0', name: 'get_weather', input: { city: 'München' } }],
  usage: { inputTokens: 10, outputTokens: 5 },
  stopReason: 'tool-calls',
  items: {
    provider: 'gemini',
    model: 'gemini-3-flash-preview',
    thinkingMode: 'default',
    data: [
      { text: 'Ich sehe nach.' },
      {
        functionCall: { name: 'get_weather', args: { city: 'München' } },
        thoughtSignature: 'U0lHLWdlbmVyYXRlLWNvbnRlbnQ=',
      },
    ],
  },
}
const answered: Turn = {
  role: 'tool',
  results: [{ callId: 'gemini_1_0', name: 'get_weather', output: '18 °C' }],
}

/** The `input` the adapter sends for `turns`, with the given model and thinking. */
async function inputFor(turns: Turn[], model = 'gemini-3-flash-preview', thinking?: 'low') {
  const { adapter, replay } = setup([{ body: fixture('tool-result-answer.sse') }], { model })
  await collect(adapter.stream({ turns }, { ...tools, ...(thinking ? { thinking } : {}) }))
  return sentBody(replay)['input']
}

async function ownTurn(): Promise<AssistantTurn> {
  const { adapter } = setup([{ body: fixture('thinking-then-tool.sse') }])
  return doneTurn(await collect(adapter.stream(ask, tools)))
}

describe('gemini interactions replay', () => {
  it('rebuilds a gemini() turn from its text and calls, without its parts or signature', async () => {
    const input = await inputFor([...ask.turns, generateContentTurn, answered, followUp])
    expect(input).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'Wie ist das Wetter in München?' }] },
      { type: 'model_output', content: [{ type: 'text', text: 'Ich sehe nach.' }] },
      {
        type: 'function_call',
        id: 'gemini_1_0',
        name: 'get_weather',
        arguments: { city: 'München' },
      },
      { type: 'function_result', call_id: 'gemini_1_0', name: 'get_weather', result: '18 °C' },
      { type: 'user_input', content: [{ type: 'text', text: 'Und morgen?' }] },
    ])
  })

  it('leaves its own steps to gemini(), which rebuilds them and still replays its own parts', async () => {
    const own = await ownTurn()
    const replay = replayFetch([
      {
        body: 'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Ja."}]},"finishReason":"STOP"}]}\n\n',
      },
    ])
    const adapter = gemini({
      apiKey: TEST_KEY,
      model: 'gemini-3-flash-preview',
      fetch: replay.fetch,
    })
    const turns: Turn[] = [
      ...ask.turns,
      own,
      { role: 'tool', results: [{ callId: 'k3v9q2xa', name: 'get_weather', output: '18 °C' }] },
      followUp,
      generateContentTurn,
      answered,
    ]
    await collect(adapter.stream({ turns }, tools))
    const sent = JSON.stringify(sentBody(replay)['contents'])
    expect(sent).not.toContain(signatureOf(own))
    expect(sent).not.toContain('"type":"thought"')
    expect(sent).toContain('U0lHLWdlbmVyYXRlLWNvbnRlbnQ=')
  })

  it('does not replay its steps to another model or under another thinking mode', async () => {
    const own = await ownTurn()
    const signature = signatureOf(own)
    const turns = [
      ...ask.turns,
      own,
      {
        role: 'tool' as const,
        results: [{ callId: 'k3v9q2xa', name: 'get_weather', output: 'x' }],
      },
    ]
    for (const input of [
      await inputFor(turns, 'gemini-3.5-flash'),
      await inputFor(turns, 'gemini-3-flash-preview', 'low'),
    ]) {
      expect(JSON.stringify(input)).not.toContain(signature)
      expect(input).toContainEqual({
        type: 'function_call',
        id: 'k3v9q2xa',
        name: 'get_weather',
        arguments: { city: 'München', unit: 'celsius' },
      })
    }
  })

  it('rebuilds its own turn whose items hold no step', async () => {
    const own = await ownTurn()
    const emptied: AssistantTurn = {
      ...own,
      items: { ...own.items!, data: [{ interaction_id: 'v1_x' }] },
    }
    const input = await inputFor([...ask.turns, emptied, followUp])
    expect(input).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'Wie ist das Wetter in München?' }] },
      {
        type: 'function_call',
        id: 'k3v9q2xa',
        name: 'get_weather',
        arguments: { city: 'München', unit: 'celsius' },
      },
      // The call nobody answered is answered as not given, as every adapter does.
      {
        type: 'function_result',
        call_id: 'k3v9q2xa',
        name: 'get_weather',
        result: 'No result was given for this call.',
        is_error: true,
      },
      { type: 'user_input', content: [{ type: 'text', text: 'Und morgen?' }] },
    ])
  })
})
