import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { PLACEHOLDER_SIGNATURE } from '../../../src/providers/gemini/encode-conversation.ts'
import { collect, doneTurn, fixture, geminiWith } from './harness.ts'

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}
const declarations = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        parametersJsonSchema: weatherTool.parameters,
      },
    ],
  },
]

describe('gemini requests', () => {
  it('replays a three-turn conversation with a tool call exactly as Gemini sent it', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('conversation-1-call.sse') },
      { body: fixture('conversation-2-answer.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const options = { tools: [weatherTool] }
    const conversation: Conversation = {
      system: 'Antworte kurz.',
      turns: [{ role: 'user', content: 'Wie ist das Wetter in Köln?' }],
    }

    const first = doneTurn(await collect(adapter.stream(conversation, options)))
    expect(first.toolCalls).toEqual([
      { id: 'gemini_1_0', name: 'get_weather', input: { city: 'Köln' } },
    ])
    conversation.turns.push(first, {
      role: 'tool',
      results: [{ callId: 'gemini_1_0', name: 'get_weather', output: { temp_c: 12 } }],
    })
    const second = doneTurn(await collect(adapter.stream(conversation, options)))
    expect(second.text).toBe('In Köln sind es 12 °C.')
    conversation.turns.push(second, { role: 'user', content: 'Brauche ich einen Schirm?' })
    const third = doneTurn(await collect(adapter.stream(conversation, options)))
    expect(third.text).toBe('Nimm einen Schirm mit ☂️.')

    const common = {
      systemInstruction: { parts: [{ text: 'Antworte kurz.' }], role: 'user' },
      tools: declarations,
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    }
    const user1 = { role: 'user', parts: [{ text: 'Wie ist das Wetter in Köln?' }] }
    const model1 = {
      role: 'model',
      parts: [
        { text: 'Erst das Wetter holen.', thought: true },
        {
          functionCall: { name: 'get_weather', args: { city: 'Köln' } },
          thoughtSignature: 'U0lHLWNvbnYtc3RlcC0x',
        },
      ],
    }
    // Gemini gave the call no id, so the response carries none either: matched by name and order.
    const results = {
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { output: { temp_c: 12 } } } }],
    }
    const model2 = {
      role: 'model',
      parts: [
        { text: 'In Köln sind es 12 °C.' },
        { text: '', thoughtSignature: 'U0lHLWNvbnYtc3RlcC0y' },
      ],
    }
    const user3 = { role: 'user', parts: [{ text: 'Brauche ich einen Schirm?' }] }
    expect(replay.requests.map((r) => r.body)).toEqual([
      { contents: [user1], ...common },
      { contents: [user1, model1, results], ...common },
      { contents: [user1, model1, results, model2, user3], ...common },
    ])
    expect(replay.requests[0]?.url).toBe(
      'https://gemini.test/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse',
    )
    expect(replay.requests[0]?.headers['x-goog-api-key']).toBe('AIzaTestKeyThatIsNotReal000000000')
  })

  it('sends function responses with the id Gemini gave the call', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('parallel-calls.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const conversation: Conversation = { turns: [{ role: 'user', content: 'Paris und Kyoto?' }] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, {
      role: 'tool',
      results: [
        { callId: 'fc_paris', name: 'get_weather', output: 'sonnig' },
        { callId: 'fc_kyoto', name: 'get_weather', output: 'Regen', isError: true },
      ],
    })
    await collect(adapter.stream(conversation))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: { id: 'fc_paris', name: 'get_weather', response: { output: 'sonnig' } },
        },
        { functionResponse: { id: 'fc_kyoto', name: 'get_weather', response: { error: 'Regen' } } },
      ],
    })
  })

  const foreign: AssistantTurn = {
    role: 'assistant',
    text: 'Ich sehe nach.',
    thinking: 'Private reasoning of another model',
    toolCalls: [
      { id: 'toolu_01', name: 'get_weather', input: { city: 'Bern' } },
      { id: 'toolu_02', name: 'get_weather', input: { city: 'Chur' } },
    ],
    usage: { inputTokens: 1, outputTokens: 1 },
    stopReason: 'tool-calls',
    items: {
      provider: 'anthropic',
      model: 'claude-sonnet-5',
      thinkingMode: 'default',
      data: [{ type: 'thinking', thinking: 'x', signature: 'ANTHROPIC-SIGNATURE' }],
    },
  }
  const withForeign: Conversation = {
    turns: [
      { role: 'user', content: 'Bern und Chur?' },
      foreign,
      {
        role: 'tool',
        results: [
          { callId: 'toolu_01', name: 'get_weather', output: { temp_c: 9 } },
          { callId: 'toolu_02', name: 'get_weather', output: { temp_c: 4 } },
        ],
      },
    ],
  }

  it('rebuilds another model’s turn without its reasoning and signs its first call with the placeholder on Gemini 3', async () => {
    const { adapter, replay } = geminiWith([{ body: fixture('conversation-3-answer.sse') }])
    await collect(adapter.stream(withForeign))
    const body = replay.requests[0]?.body as { contents: unknown[] }
    expect(body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'Ich sehe nach.' },
          {
            functionCall: { name: 'get_weather', args: { city: 'Bern' } },
            thoughtSignature: PLACEHOLDER_SIGNATURE,
          },
          { functionCall: { name: 'get_weather', args: { city: 'Chur' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: { temp_c: 9 } } } },
          { functionResponse: { name: 'get_weather', response: { output: { temp_c: 4 } } } },
        ],
      },
    ])
    expect(JSON.stringify(body)).not.toContain('ANTHROPIC-SIGNATURE')
    expect(JSON.stringify(body)).not.toContain('Private reasoning')
  })

  it('sends no placeholder signature to Gemini 2.5, which does not ask for one', async () => {
    const { adapter, replay } = geminiWith(
      [{ body: fixture('conversation-3-answer.sse') }],
      'gemini-2.5-flash',
    )
    await collect(adapter.stream(withForeign))
    expect(JSON.stringify(replay.requests[0]?.body)).not.toContain('thoughtSignature')
  })

  it('rebuilds its own turn made under another thinking mode without the signatures', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('function-call-signed.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const conversation: Conversation = { turns: [{ role: 'user', content: 'Wetter?' }] }
    const turn = doneTurn(await collect(adapter.stream(conversation, { thinking: 'high' })))
    conversation.turns.push(turn, {
      role: 'tool',
      results: [{ callId: 'gemini_1_0', name: 'get_weather', output: 'mild' }],
    })
    await collect(adapter.stream(conversation, { thinking: 'low' }))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents[1]).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'get_weather', args: { city: 'München' } },
          thoughtSignature: PLACEHOLDER_SIGNATURE,
        },
      ],
    })
  })

  it('sends tools, tool choice, JSON output, limits, images and provider options as Gemini names them', async () => {
    const { adapter, replay } = geminiWith([{ body: fixture('conversation-3-answer.sse') }])
    const events = await collect(
      adapter.stream(
        {
          system: 'Sei knapp.',
          turns: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Was zeigt das Bild?' },
                { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
                { type: 'image', url: 'https://example.test/cat.jpg' },
              ],
            },
          ],
        },
        {
          thinking: 'medium',
          tools: [weatherTool],
          toolChoice: { name: 'get_weather' },
          responseFormat: { type: 'json', schema: { type: 'object' } },
          maxTokens: 100_000,
          temperature: 0.2,
          providerOptions: { gemini: { topK: 5 }, openai: { store: true } },
        },
      ),
    )
    expect(replay.requests[0]?.body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Was zeigt das Bild?' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { fileData: { fileUri: 'https://example.test/cat.jpg' } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Sei knapp.' }], role: 'user' },
      tools: declarations,
      toolConfig: {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
      },
      generationConfig: {
        temperature: 0.2,
        topK: 5,
        maxOutputTokens: 65_536,
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
        thinkingConfig: { includeThoughts: true, thinkingLevel: 'MEDIUM' },
      },
    })
    expect(doneTurn(events).warnings).toEqual([
      "maxTokens: 100000 is over this model's 65536; used 65536",
    ])
  })

  it('ignores providerOptions.gemini that is not an object, with a warning', async () => {
    const { adapter, replay } = geminiWith([{ body: fixture('conversation-3-answer.sse') }])
    const turn = doneTurn(
      await collect(
        adapter.stream(
          { turns: [{ role: 'user', content: 'x' }] },
          { providerOptions: { gemini: ['topK', 5] } },
        ),
      ),
    )
    expect(turn.warnings).toEqual(['providerOptions.gemini ignored: it must be an object'])
    expect(replay.requests[0]?.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    })
  })

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
  ] as const)('maps toolChoice %s to functionCallingConfig', async (toolChoice, expected) => {
    const { adapter, replay } = geminiWith([{ body: fixture('conversation-3-answer.sse') }])
    await collect(
      adapter.stream(
        { turns: [{ role: 'user', content: 'x' }] },
        { tools: [weatherTool], toolChoice },
      ),
    )
    expect((replay.requests[0]!.body as { toolConfig: unknown }).toolConfig).toEqual({
      functionCallingConfig: expected,
    })
  })

  it.each([
    ['gemini-3-flash-preview', undefined, { includeThoughts: true }],
    ['gemini-3-flash-preview', 'off', { includeThoughts: true, thinkingLevel: 'MINIMAL' }],
    ['gemini-3-pro-preview', 'medium', { includeThoughts: true, thinkingLevel: 'HIGH' }],
    ['gemini-3.1-pro-preview', 'max', { includeThoughts: true, thinkingLevel: 'HIGH' }],
    ['gemini-3.7-flash', { budgetTokens: 500 }, { includeThoughts: true, thinkingLevel: 'LOW' }],
    ['gemini-2.5-pro', 'off', { includeThoughts: true, thinkingBudget: 128 }],
    ['gemini-2.5-pro', 'high', { includeThoughts: true, thinkingBudget: 24_576 }],
    ['gemini-2.5-flash', 'off', { thinkingBudget: 0 }],
    [
      'gemini-2.5-flash',
      { budgetTokens: 99_999 },
      { includeThoughts: true, thinkingBudget: 24_576 },
    ],
    ['gemini-2.5-flash-lite', 'low', { includeThoughts: true, thinkingBudget: 1024 }],
    ['gemini-2.0-flash', 'high', undefined],
    ['gemma-3-27b-it', 'high', undefined],
  ] as const)(
    'sends %s with thinking %j a budget or a level, never both',
    async (model, thinking, expected) => {
      const { adapter, replay } = geminiWith(
        [{ body: fixture('conversation-3-answer.sse') }],
        model,
      )
      await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }, { thinking }))
      const body = replay.requests[0]?.body as { generationConfig?: { thinkingConfig?: unknown } }
      expect(body.generationConfig?.thinkingConfig).toEqual(expected)
    },
  )

  it('warns when a thinking setting had to change for the model', async () => {
    const { adapter } = geminiWith(
      [{ body: fixture('conversation-3-answer.sse') }],
      'gemini-3-pro-preview',
    )
    const turn = doneTurn(
      await collect(
        adapter.stream({ turns: [{ role: 'user', content: 'x' }] }, { thinking: 'off' }),
      ),
    )
    expect(turn.warnings).toEqual([
      'thinking: this model cannot turn thinking off; used its lowest level, low',
    ])
    expect(turn.items?.thinkingMode).toBe('off')
  })
})
