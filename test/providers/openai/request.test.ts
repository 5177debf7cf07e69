import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { ask, fixture, sentBody, setup } from './harness.ts'

async function send(model: string, options: CallOptions = {}) {
  const { adapter, replay } = setup([{ body: fixture('refusal.sse') }], { model })
  const { events, error } = await run(adapter.stream(ask, options))
  if (error !== undefined) throw error
  return { body: sentBody(replay), warnings: doneTurn(events).warnings ?? [], replay }
}

describe('openai request: reasoning per model', () => {
  it('asks a reasoning model for its effort, a summary, encrypted reasoning, and stores nothing', async () => {
    const { body } = await send('gpt-5.4', { thinking: 'high' })
    expect(body).toMatchObject({
      model: 'gpt-5.4',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high', summary: 'auto' },
      stream: true,
    })
  })

  it('asks for a summary at the model default effort when the call says nothing', async () => {
    const { body } = await send('gpt-5.4')
    expect(body['reasoning']).toEqual({ summary: 'auto' })
    expect(body['include']).toEqual(['reasoning.encrypted_content'])
  })

  it("sends effort 'none' when thinking is off and the model takes it", async () => {
    const { body } = await send('gpt-5.1', { thinking: 'off' })
    expect(body['reasoning']).toEqual({ effort: 'none' })
  })

  it('uses the lowest effort without a summary, with a warning, where the model cannot stop reasoning', async () => {
    const { body, warnings } = await send('gpt-5-mini', { thinking: 'off' })
    expect(body['reasoning']).toEqual({ effort: 'minimal' })
    expect(warnings).toEqual([expect.stringContaining('cannot stop reasoning')])
  })

  it('sends the nearest effort a model takes and says so', async () => {
    const { body, warnings } = await send('o3', { thinking: 'max' })
    expect(body['reasoning']).toEqual({ effort: 'high', summary: 'auto' })
    expect(warnings).toEqual([expect.stringContaining("thinking 'max' sent as 'high'")])
    expect((await send('gpt-5.6-terra', { thinking: 'max' })).body['reasoning']).toEqual({
      effort: 'max',
      summary: 'auto',
    })
  })

  it('sends no reasoning to a model without it, and keeps its temperature', async () => {
    const { body, warnings } = await send('gpt-4.1', { thinking: 'high', temperature: 0.3 })
    expect(body).not.toHaveProperty('reasoning')
    expect(body).not.toHaveProperty('include')
    expect(body['temperature']).toBe(0.3)
    expect(warnings).toEqual([expect.stringContaining('does not reason')])
  })

  it('sends a model not in the table no reasoning settings unless asked, and no temperature', async () => {
    const plain = await send('gpt-7-preview', { temperature: 0.5 })
    expect(plain.body).not.toHaveProperty('reasoning')
    // It may reason anyway: what it reasons is asked for encrypted, so that it can be replayed.
    expect(plain.body['include']).toEqual(['reasoning.encrypted_content'])
    expect(plain.body).not.toHaveProperty('temperature')
    expect(plain.warnings).toEqual([expect.stringContaining('temperature dropped')])
    const asked = await send('gpt-7-preview', { thinking: 'medium' })
    expect(asked.body['reasoning']).toEqual({ effort: 'medium', summary: 'auto' })
    expect(asked.body['include']).toEqual(['reasoning.encrypted_content'])
  })

  it('drops temperature for a reasoning model and says so in the turn', async () => {
    const { body, warnings } = await send('gpt-5.4', { temperature: 0.7 })
    expect(body).not.toHaveProperty('temperature')
    expect(warnings).toEqual([expect.stringContaining('temperature dropped')])
  })
})

describe('openai request: options', () => {
  it('sends the system prompt as instructions, tools as functions, and each tool choice', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather now',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]
    const { adapter, replay } = setup([{ body: fixture('refusal.sse') }])
    await run(
      adapter.stream(
        { system: 'Be brief.', turns: ask.turns },
        { tools, toolChoice: 'required', maxTokens: 2000 },
      ),
    )
    expect(sentBody(replay)).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 2000,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather now',
          parameters: tools[0]!.parameters,
          strict: false,
        },
      ],
      tool_choice: 'required',
    })
    expect(
      (await send('gpt-5.4', { tools, toolChoice: { name: 'get_weather' } })).body['tool_choice'],
    ).toEqual({ type: 'function', name: 'get_weather' })
  })

  it('asks for JSON by schema, or as a JSON object with an instruction', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } }
    const bySchema = await send('gpt-5.4', {
      responseFormat: { type: 'json', schema, name: 'count' },
    })
    expect(bySchema.body['text']).toEqual({
      format: { type: 'json_schema', name: 'count', schema, strict: false },
    })
    const plain = await send('gpt-5.4', { responseFormat: { type: 'json' } })
    expect(plain.body['text']).toEqual({ format: { type: 'json_object' } })
    expect(plain.body['instructions']).toMatch(/JSON/)
  })

  it('merges providerOptions.openai into the request, minus what the model rejects', async () => {
    const { body, warnings } = await send('gpt-5.4', {
      providerOptions: {
        openai: { service_tier: 'flex', temperature: 1 },
        anthropic: { metadata: {} },
      },
    })
    expect(body['service_tier']).toBe('flex')
    expect(body).not.toHaveProperty('temperature')
    expect(body).not.toHaveProperty('metadata')
    expect(warnings).toEqual([expect.stringContaining('temperature dropped')])
  })

  it('sends images as input_image parts and the organization and project headers', async () => {
    const { adapter, replay } = setup([{ body: fixture('refusal.sse') }], {
      organization: 'org-fixture',
      project: 'proj-fixture',
      baseURL: 'https://gateway.example.com/v1',
    })
    await run(
      adapter.stream({
        turns: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'image', url: 'https://example.com/cat.jpg' },
            ],
          },
        ],
      }),
    )
    const request = replay.requests[0]!
    expect(request.url).toBe('https://gateway.example.com/v1/responses')
    expect(request.headers['openai-organization']).toBe('org-fixture')
    expect(request.headers['openai-project']).toBe('proj-fixture')
    expect(request.headers['x-stainless-retry-count']).toBe('0')
    expect(sentBody(replay)['input']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this?' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
        ],
      },
    ])
  })
})

describe('openai request: stop sequences, caching, the output cap', () => {
  it('drops stop sequences with a warning naming them: the Responses API takes none', async () => {
    const { body, warnings } = await send('gpt-5.4', { stop: ['END', '\n\n###'] })
    expect(body).not.toHaveProperty('stop')
    expect(warnings).toEqual([
      'stop dropped: the Responses API takes no stop sequences ("END", "\\n\\n###")',
    ])
    expect((await send('gpt-5.4', { stop: [] })).warnings).toEqual([])
  })

  it('sends a cache key as prompt_cache_key, and nothing for cache: true or a 5 minute lifetime', async () => {
    const keyed = await send('gpt-5.4', { cache: { key: 'tenant-42/support', ttl: '5m' } })
    expect(keyed.body['prompt_cache_key']).toBe('tenant-42/support')
    expect(keyed.body).not.toHaveProperty('prompt_cache_retention')
    expect(keyed.warnings).toEqual([])
    const plain = await send('gpt-5.4', { cache: true })
    expect(plain.body).not.toHaveProperty('prompt_cache_key')
    expect(plain.body).not.toHaveProperty('prompt_cache_retention')
    expect(plain.warnings).toEqual([])
  })

  it('drops a one hour cache lifetime with a warning that names the extended-retention option', async () => {
    const { body, warnings } = await send('gpt-5.4', { cache: { ttl: '1h' } })
    expect(body).not.toHaveProperty('prompt_cache_retention')
    expect(body).not.toHaveProperty('prompt_cache_key')
    expect(warnings).toEqual([
      expect.stringMatching(/^cache ttl '1h' dropped: .*prompt_cache_retention: '24h'/),
    ])
    const extended = await send('gpt-5.4', {
      cache: { ttl: '1h' },
      providerOptions: { openai: { prompt_cache_retention: '24h' } },
    })
    expect(extended.body['prompt_cache_retention']).toBe('24h')
  })

  it('reports cached input tokens as cacheReadTokens', async () => {
    const { adapter } = setup([{ body: fixture('commentary-web-search-citations.sse') }])
    const turn = doneTurn((await run(adapter.stream(ask, { cache: { key: 'k' } }))).events)
    expect(turn.usage).toEqual({
      inputTokens: 2600,
      outputTokens: 180,
      reasoningTokens: 0,
      cacheReadTokens: 2048,
      cacheWriteTokens: 0,
      // gpt-5.4: 552 × $2.50 + 2,048 × $0.25 + 180 × $15 = 4,592 micro-dollars.
      cost: 0.004592,
    })
  })

  it('never raises maxTokens, and reads a thinking budget that does not fit under it as half the cap', async () => {
    const { body, warnings } = await send('gpt-5.4', {
      thinking: { budgetTokens: 20_000 },
      maxTokens: 3_000,
    })
    expect(body['max_output_tokens']).toBe(3_000)
    // 20,000 tokens would read as 'high'; 1,500 of them read as 'low'.
    expect(body['reasoning']).toEqual({ effort: 'low', summary: 'auto' })
    expect(warnings).toEqual([
      'thinking budget of 20000 tokens does not fit under maxTokens 3000: read as 1500',
      "gpt-5.4 takes an effort level, not a budget: 1500 tokens sent as 'low'",
    ])
    const fits = await send('gpt-5.4', { thinking: { budgetTokens: 20_000 }, maxTokens: 64_000 })
    expect(fits.body['reasoning']).toEqual({ effort: 'high', summary: 'auto' })
    expect(fits.body['max_output_tokens']).toBe(64_000)
    expect(fits.warnings).toEqual([
      "gpt-5.4 takes an effort level, not a budget: 20000 tokens sent as 'high'",
    ])
  })

  it('keeps encrypted reasoning in include when providerOptions add to it, and replays a call with its reasoning', async () => {
    const { adapter, replay } = setup([
      { body: fixture('reasoning-then-function-calls.sse') },
      { body: fixture('reasoning-then-text.sse') },
    ])
    const options: CallOptions = {
      thinking: 'medium',
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      providerOptions: { openai: { include: ['web_search_call.action.sources'] } },
    }
    const first = doneTurn((await run(adapter.stream(ask, options))).events)
    expect(sentBody(replay, 0)['include']).toEqual([
      'reasoning.encrypted_content',
      'web_search_call.action.sources',
    ])
    const results = [
      { callId: 'call_Paris1', name: 'get_weather', output: '18 °C' },
      { callId: 'call_Tokyo2', name: 'get_weather', output: '21 °C' },
    ]
    await run(adapter.stream({ turns: [...ask.turns, first, { role: 'tool', results }] }, options))
    const next = sentBody(replay, 1)
    expect(next['include']).toEqual([
      'reasoning.encrypted_content',
      'web_search_call.action.sources',
    ])
    const input = next['input'] as { type?: string; encrypted_content?: string }[]
    expect(input.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ])
    expect(input[1]!.encrypted_content).toBe('gAAAAABpToolTurnEncrypted==')
  })
})
