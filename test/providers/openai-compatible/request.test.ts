import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import {
  deepseek as deepseekAdapter,
  presets,
} from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import { compatibleWith, fixture, offPeakClock } from './harness.ts'

const deepseek = {
  ...presets.deepseek,
  model: 'deepseek-v4-flash',
  apiKey: 'sk-test-000000000000',
  now: offPeakClock,
}
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: weatherTool.parameters,
    },
  },
]
const streaming = { stream: true, stream_options: { include_usage: true } }

describe('openai-compatible requests', () => {
  it('replays a three-turn DeepSeek V4 conversation with its reasoning on the tool-call turn', async () => {
    const { adapter, replay } = compatibleWith(
      [
        { body: fixture('deepseek-tool-call.sse') },
        { body: fixture('deepseek-answer.sse') },
        { body: fixture('deepseek-final.sse') },
      ],
      deepseek,
    )
    const conversation: Conversation = {
      system: 'Antworte kurz.',
      turns: [{ role: 'user', content: 'Wie ist das Wetter in Zürich?' }],
    }
    const options = { tools: [weatherTool] }
    const first = doneTurn(await collect(adapter.stream(conversation, options)))
    conversation.turns.push(first, {
      role: 'tool',
      results: [{ callId: 'call_ds_01', name: 'get_weather', output: { temp_c: 14 } }],
    })
    const second = doneTurn(await collect(adapter.stream(conversation, options)))
    conversation.turns.push(second, { role: 'user', content: 'Brauche ich eine Jacke?' })
    const third = doneTurn(await collect(adapter.stream(conversation, options)))
    expect(third.text).toBe('Ja, eine leichte Jacke.')

    const system = { role: 'system', content: 'Antworte kurz.' }
    const user1 = { role: 'user', content: 'Wie ist das Wetter in Zürich?' }
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_ds_01',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Zürich"}' },
        },
      ],
      reasoning_content: 'Das Wetter in Zürich braucht ein Werkzeug — get_weather.',
    }
    const result = { role: 'tool', tool_call_id: 'call_ds_01', content: '{"temp_c":14}' }
    const answer = { role: 'assistant', content: 'In Zürich sind es 14 °C ⛅.' }
    const user3 = { role: 'user', content: 'Brauche ich eine Jacke?' }
    const common = { model: 'deepseek-v4-flash', ...streaming, tools }
    expect(replay.requests.map((r) => r.body)).toEqual([
      { ...common, messages: [system, user1] },
      { ...common, messages: [system, user1, call, result] },
      { ...common, messages: [system, user1, call, result, answer, user3] },
    ])
    expect(replay.requests[0]?.url).toBe('https://api.deepseek.com/chat/completions')
    expect(replay.requests[0]?.headers['authorization']).toBe('Bearer sk-test-000000000000')
  })

  it('sends OpenRouter reasoning_details back unmodified', async () => {
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('openrouter-reasoning-details.sse') }, { body: fixture('text-usage.sse') }],
      { ...presets.openrouter, model: 'anthropic/claude-sonnet-4.5', apiKey: 'sk-or-test' },
    )
    const conversation: Conversation = { turns: [{ role: 'user', content: '9,11 oder 9,8?' }] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, { role: 'user', content: 'Warum?' })
    await collect(adapter.stream(conversation))
    const messages = (replay.requests[1]!.body as { messages: unknown[] }).messages
    expect(messages[1]).toEqual(turn.items?.data[0])
    expect(messages[1]).toMatchObject({
      reasoning_details: [
        { signature: 'RXBzaWctb3BlbnJvdXRlcg==', index: 0 },
        { data: 'ZW5jcnlwdGVkLWJsb2I=', index: 1 },
      ],
    })
  })

  it('sends a <think> turn back as its answer alone', async () => {
    const groq = { ...presets.groq, model: 'qwen/qwen3-32b', apiKey: 'gsk_test_0000000000' }
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('think-tags.sse') }, { body: fixture('text-usage.sse') }],
      groq,
    )
    const conversation: Conversation = { turns: [{ role: 'user', content: '2 + 2?' }] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, { role: 'user', content: 'Danke' })
    await collect(adapter.stream(conversation))
    expect((replay.requests[1]!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: '2 + 2?' },
      { role: 'assistant', content: 'Die Antwort ist 4 🎉' },
      { role: 'user', content: 'Danke' },
    ])
  })

  it('rebuilds another model’s tool-call turn for DeepSeek with empty reasoning and no foreign fields', async () => {
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: '',
      thinking: 'Reasoning of another model',
      toolCalls: [{ id: 'toolu_01', name: 'get_weather', input: { city: 'Bern' } }],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'tool-calls',
      items: {
        provider: 'openrouter',
        model: 'anthropic/claude-sonnet-4.5',
        thinkingMode: 'default',
        data: [{ role: 'assistant', reasoning_details: [{ signature: 'FOREIGN-SIG' }] }],
      },
    }
    const { adapter, replay } = compatibleWith([{ body: fixture('deepseek-final.sse') }], deepseek)
    await collect(
      adapter.stream({
        turns: [
          { role: 'user', content: 'Bern?' },
          foreign,
          {
            role: 'tool',
            results: [{ callId: 'toolu_01', name: 'get_weather', output: 'kalt', isError: true }],
          },
        ],
      }),
    )
    const body = replay.requests[0]?.body as { messages: unknown[] }
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'toolu_01',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Bern"}' },
          },
        ],
        reasoning_content: '',
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'Error: kalt' },
    ])
    expect(JSON.stringify(body)).not.toContain('FOREIGN-SIG')
    expect(JSON.stringify(body)).not.toContain('Reasoning of another model')
  })

  it.each([
    [
      'deepseek',
      'deepseek-v4-flash',
      'high',
      { thinking: { type: 'enabled' }, reasoning_effort: 'high' },
      [],
    ],
    [
      'deepseek',
      'deepseek-v4-pro',
      'medium',
      { thinking: { type: 'enabled' }, reasoning_effort: 'high' },
      [],
    ],
    [
      'deepseek',
      'deepseek-v4-flash',
      'max',
      { thinking: { type: 'enabled' }, reasoning_effort: 'max' },
      [],
    ],
    ['deepseek', 'deepseek-v4-flash', 'off', { thinking: { type: 'disabled' } }, []],
    [
      'deepseek',
      'deepseek-v4-pro',
      { budgetTokens: 500 },
      { thinking: { type: 'enabled' }, reasoning_effort: 'low' },
      ["thinking: this server takes a level, not a budget; budget 500 became 'low'"],
    ],
    ['openrouter', 'openai/gpt-5', 'medium', { reasoning: { effort: 'medium' } }, []],
    ['openrouter', 'openai/gpt-5', 'off', { reasoning: { enabled: false } }, []],
    [
      'openrouter',
      'anthropic/claude-sonnet-4.5',
      { budgetTokens: 4000 },
      { reasoning: { max_tokens: 4000 } },
      [],
    ],
    ['groq', 'qwen/qwen3-32b', 'off', { reasoning_effort: 'none' }, []],
    ['groq', 'qwen/qwen3-32b', 'high', { reasoning_effort: 'default' }, []],
    ['groq', 'openai/gpt-oss-120b', 'low', { reasoning_effort: 'low' }, []],
    [
      'groq',
      'openai/gpt-oss-120b',
      'off',
      {},
      ['thinking: this model cannot turn thinking off; left at its default'],
    ],
    ['xai', 'grok-3-mini', 'medium', { reasoning_effort: 'high' }, []],
    [
      'xai',
      'grok-4',
      'high',
      {},
      ['thinking: this server takes no thinking setting for this model; it was dropped'],
    ],
    [
      'ollama',
      'qwen3:8b',
      'low',
      {},
      ['thinking: this server takes no thinking setting for this model; it was dropped'],
    ],
  ] as const)(
    'sends %s %s with thinking %j as the server takes it',
    async (name, model, thinking, fields, warnings) => {
      const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], {
        ...presets[name],
        model,
        apiKey: 'sk-test-0000000000',
      })
      const turn = doneTurn(
        await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }, { thinking })),
      )
      expect(replay.requests[0]?.body).toEqual({
        model,
        messages: [{ role: 'user', content: 'x' }],
        ...streaming,
        ...fields,
      })
      expect(turn.warnings ?? []).toEqual(warnings)
    },
  )

  it('sends tools, tool choice, JSON schema output, limits, images and its own provider options', async () => {
    const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], {
      ...presets.together,
      model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
      apiKey: 'tok-test-0000000000',
      headers: { 'x-team': 'blue' },
    })
    await collect(
      adapter.stream(
        {
          turns: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Was ist das?' },
                { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
                { type: 'image', url: 'https://example.test/a.jpg' },
              ],
            },
          ],
        },
        {
          tools: [weatherTool],
          toolChoice: { name: 'get_weather' },
          responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer' },
          maxTokens: 300,
          temperature: 0.3,
          providerOptions: { together: { top_k: 40 }, groq: { ignored: true } },
        },
      ),
    )
    const request = replay.requests[0]
    expect(request?.url).toBe('https://api.together.xyz/v1/chat/completions')
    expect(request?.headers['x-team']).toBe('blue')
    expect(request?.body).toEqual({
      model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Was ist das?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.test/a.jpg' } },
          ],
        },
      ],
      ...streaming,
      tools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' } },
      },
      max_tokens: 300,
      temperature: 0.3,
      top_k: 40,
    })
  })

  it('asks for a JSON object when no schema is given', async () => {
    const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], deepseek)
    await collect(
      adapter.stream(
        { turns: [{ role: 'user', content: 'x' }] },
        { responseFormat: { type: 'json' } },
      ),
    )
    expect((replay.requests[0]!.body as { response_format: unknown }).response_format).toEqual({
      type: 'json_object',
    })
  })

  it('asks a model that takes no JSON schema for a JSON object, with a warning', async () => {
    const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], deepseek)
    const turn = doneTurn(
      await collect(
        adapter.stream(
          { turns: [{ role: 'user', content: 'x' }] },
          { responseFormat: { type: 'json', schema: { type: 'object' } } },
        ),
      ),
    )
    expect((replay.requests[0]!.body as { response_format: unknown }).response_format).toEqual({
      type: 'json_object',
    })
    expect(turn.warnings).toEqual([
      'responseFormat.schema: this model takes no JSON schema; asked for a JSON object',
    ])
  })

  it('sends no authorization header to a local server without a key', async () => {
    const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], {
      ...presets.ollama,
      model: 'llama3.2',
    })
    await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }))
    expect(replay.requests[0]?.url).toBe('http://localhost:11434/v1/chat/completions')
    expect(replay.requests[0]?.headers['authorization']).toBeUndefined()
  })

  it('builds a known server’s adapter from its preset', async () => {
    const replay = replayFetch([{ body: fixture('text-usage.sse') }])
    const adapter = deepseekAdapter({
      apiKey: 'sk-x-000000000',
      model: 'deepseek-chat',
      fetch: replay.fetch,
      now: offPeakClock,
    })
    expect(adapter.provider).toBe('deepseek')
    expect(adapter.model).toBe('deepseek-chat')
    await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }))
    expect(replay.requests[0]?.url).toBe('https://api.deepseek.com/chat/completions')
  })
})
