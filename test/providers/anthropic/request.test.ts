import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { ask, fixture, sentBody, setup } from './harness.ts'

/** Makes one call to `model` and returns the body it sent and the turn's warnings. */
async function send(model: string, options: CallOptions = {}) {
  const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }], { model })
  const { events, error } = await run(adapter.stream(ask, options))
  if (error !== undefined) throw error
  return { body: sentBody(replay), warnings: doneTurn(events).warnings ?? [], replay }
}

describe('anthropic request: thinking per model', () => {
  it('gives a budget model enabled thinking with the level budget below max_tokens', async () => {
    const { body } = await send('claude-haiku-4-5', { thinking: 'medium' })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 8192 })
    expect(body['max_tokens']).toBe(32_000)
    expect(body['output_config']).toBeUndefined()
  })

  it("never raises the caller's maxTokens: the budget shrinks under it, leaving room for the answer", async () => {
    const { body, warnings } = await send('claude-haiku-4-5', {
      thinking: 'high',
      maxTokens: 10_000,
    })
    expect(body['max_tokens']).toBe(10_000)
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 10_000 - 4096 })
    expect(warnings).toEqual(['thinking budget 16384 lowered to 5904 to fit under maxTokens 10000'])
  })

  it('shrinks the budget to the minimum, never below it, when the room left is smaller', async () => {
    const { body, warnings } = await send('claude-haiku-4-5', { thinking: 'high', maxTokens: 4000 })
    expect(body['max_tokens']).toBe(4000)
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 1024 })
    expect(warnings).toEqual(['thinking budget 16384 lowered to 1024 to fit under maxTokens 4000'])
  })

  it("keeps a budget that already fits under the caller's maxTokens, without a warning", async () => {
    const { body, warnings } = await send('claude-haiku-4-5', {
      thinking: 'medium',
      maxTokens: 10_000,
    })
    expect(body['max_tokens']).toBe(10_000)
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 8192 })
    expect(warnings).toEqual([])
  })

  it('sends thinking disabled, with a warning, when even the smallest budget does not fit', async () => {
    const { body, warnings } = await send('claude-haiku-4-5', { thinking: 'low', maxTokens: 1024 })
    expect(body['max_tokens']).toBe(1024)
    expect(body['thinking']).toEqual({ type: 'disabled' })
    expect(warnings).toEqual([
      "thinking off: maxTokens 1024 leaves no room for claude-haiku-4-5's smallest thinking budget (1024)",
    ])
  })

  it('lets forced tool use through when thinking had to be turned off to fit', async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object' } }]
    const { body } = await send('claude-haiku-4-5', {
      thinking: 'low',
      maxTokens: 800,
      tools,
      toolChoice: 'required',
    })
    expect(body['thinking']).toEqual({ type: 'disabled' })
    expect(body['tool_choice']).toEqual({ type: 'any' })
  })

  it('grows the default max_tokens above a budget when the call sets no maxTokens', async () => {
    const { body, warnings } = await send('claude-haiku-4-5', {
      thinking: { budgetTokens: 40_000 },
    })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 40_000 })
    expect(body['max_tokens']).toBe(44_096)
    expect(warnings).toEqual([])
  })

  it('lifts an explicit budget below the minimum to 1024', async () => {
    const { body, warnings } = await send('claude-haiku-4-5', { thinking: { budgetTokens: 300 } })
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 1024 })
    expect(warnings).toEqual([expect.stringContaining('thinking budget 300 moved to 1024')])
  })

  it('gives an adaptive model adaptive thinking and the level as effort', async () => {
    const { body, warnings } = await send('claude-opus-4-6', { thinking: 'max' })
    expect(body['thinking']).toEqual({ type: 'adaptive' })
    expect(body['output_config']).toEqual({ effort: 'max' })
    expect(warnings).toEqual([])
  })

  it('asks a model that hides its thinking by default for a summary', async () => {
    const { body } = await send('claude-opus-4-8', { thinking: 'low' })
    expect(body['thinking']).toEqual({ type: 'adaptive', display: 'summarized' })
    expect(body['output_config']).toEqual({ effort: 'low' })
  })

  it('asks a model that thinks by default for visible thinking even when the call says nothing', async () => {
    const { body } = await send('claude-sonnet-5')
    expect(body['thinking']).toEqual({ type: 'adaptive', display: 'summarized' })
    expect(body['output_config']).toBeUndefined()
  })

  it('sends nothing about thinking to a model that is off by default when the call says nothing', async () => {
    const { body } = await send('claude-opus-4-6')
    expect(body['thinking']).toBeUndefined()
  })

  it('sends disabled when thinking is off and the model can stop thinking', async () => {
    const { body } = await send('claude-sonnet-5', { thinking: 'off' })
    expect(body['thinking']).toEqual({ type: 'disabled' })
    expect(body['output_config']).toBeUndefined()
  })

  it('never sends disabled to a model that always thinks: lowest effort, nothing shown, and a warning', async () => {
    const { body, warnings } = await send('claude-fable-5', { thinking: 'off' })
    expect(body['thinking']).toEqual({ type: 'adaptive', display: 'omitted' })
    expect(body['output_config']).toEqual({ effort: 'low' })
    expect(warnings).toEqual([expect.stringContaining('cannot stop thinking')])
  })

  it('gives a model not in the table adaptive thinking with an effort every model takes', async () => {
    const { body, warnings } = await send('claude-nova-9', { thinking: 'max' })
    expect(body['thinking']).toEqual({ type: 'adaptive', display: 'summarized' })
    expect(body['output_config']).toEqual({ effort: 'high' })
    expect(warnings).toEqual([expect.stringContaining("thinking 'max' sent as 'high'")])
  })

  it('never sends disabled to a model not in the table', async () => {
    const { body, warnings } = await send('claude-nova-9', { thinking: 'off' })
    expect(body['thinking']).toBeUndefined()
    expect(warnings).toEqual([expect.stringContaining('not sent')])
  })

  it('maps an explicit budget to the nearest effort on an adaptive model, with a warning', async () => {
    const { body, warnings } = await send('claude-sonnet-4-6', {
      thinking: { budgetTokens: 10_000 },
    })
    expect(body['output_config']).toEqual({ effort: 'medium' })
    expect(warnings).toEqual([expect.stringContaining('10000 tokens sent as')])
  })

  it('tags the turn with the thinking mode it was made with', async () => {
    const { adapter } = setup([{ body: fixture('omitted-thinking.sse') }])
    const { events } = await run(adapter.stream(ask, { thinking: { budgetTokens: 5000 } }))
    expect(doneTurn(events).items?.thinkingMode).toBe('budget-5000')
  })
})

describe('anthropic request: options', () => {
  it('drops temperature, which the API refuses, and says so in the turn', async () => {
    const { body, warnings } = await send('claude-sonnet-5', { temperature: 0.2 })
    expect(body).not.toHaveProperty('temperature')
    expect(warnings).toEqual([expect.stringContaining('temperature dropped')])
  })

  it('sends stop as stop_sequences, once each, dropping the empty or blank ones the API refuses', async () => {
    const { body, warnings } = await send('claude-sonnet-5', {
      stop: ['END', '\n\n', '', 'END', '### Done'],
    })
    expect(body['stop_sequences']).toEqual(['END', '### Done'])
    expect(warnings).toEqual([
      'stop sequences "\\n\\n", "" dropped: Anthropic takes none that is empty or only whitespace',
    ])
    const none = await send('claude-sonnet-5', { stop: [] })
    expect(none.body).not.toHaveProperty('stop_sequences')
    expect(none.warnings).toEqual([])
    const blank = await send('claude-sonnet-5', { stop: [' '] })
    expect(blank.body).not.toHaveProperty('stop_sequences')
    expect(blank.warnings).toEqual([expect.stringContaining('" " dropped')])
  })

  it('sends tools with their schema and maps each tool choice', async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather now',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]
    const required = await send('claude-sonnet-5', { tools, toolChoice: 'required' })
    expect(required.body['tools']).toEqual([
      {
        name: 'get_weather',
        description: 'Weather now',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ])
    expect(required.body['tool_choice']).toEqual({ type: 'any' })
    expect(
      (await send('claude-sonnet-5', { tools, toolChoice: { name: 'get_weather' } })).body[
        'tool_choice'
      ],
    ).toEqual({ type: 'tool', name: 'get_weather' })
    expect(
      (await send('claude-sonnet-5', { tools, toolChoice: 'none' })).body['tool_choice'],
    ).toEqual({ type: 'none' })
  })

  it('turns forced tool use into auto where the model or budget thinking refuses it', async () => {
    const tools = [{ name: 'get_weather', parameters: { type: 'object' } }]
    const refusing = await send('claude-opus-5-5', { tools, toolChoice: 'required' })
    expect(refusing.body['tool_choice']).toEqual({ type: 'auto' })
    expect(refusing.warnings).toEqual([expect.stringContaining('does not take forced tool use')])
    const budget = await send('claude-haiku-4-5', {
      tools,
      toolChoice: { name: 'get_weather' },
      thinking: 'low',
    })
    expect(budget.body['tool_choice']).toEqual({ type: 'auto' })
    expect(budget.warnings).toEqual([expect.stringContaining('budget thinking')])
  })

  it('asks for structured output with the schema next to the effort', async () => {
    const schema = {
      type: 'object',
      properties: { answer: { type: 'number' } },
      required: ['answer'],
    }
    const { body } = await send('claude-opus-4-8', {
      thinking: 'medium',
      responseFormat: { type: 'json', schema },
    })
    expect(body['output_config']).toEqual({
      effort: 'medium',
      format: { type: 'json_schema', schema },
    })
  })

  it('asks for JSON in the system prompt where structured output is not known to work', async () => {
    const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }], {
      model: 'claude-nova-9',
    })
    await run(
      adapter.stream(
        { system: 'Be terse.', turns: ask.turns },
        { responseFormat: { type: 'json' } },
      ),
    )
    const body = sentBody(replay)
    expect(body['system']).toMatch(/^Be terse\.\n\nAnswer with one JSON value only/)
    expect(body['output_config']).toBeUndefined()
  })

  it('merges providerOptions.anthropic into the request, minus what the model rejects', async () => {
    const { body, warnings } = await send('claude-sonnet-5', {
      providerOptions: {
        anthropic: { metadata: { user_id: 'user-7' }, top_k: 5 },
        openai: { store: true },
      },
    })
    expect(body['metadata']).toEqual({ user_id: 'user-7' })
    expect(body).not.toHaveProperty('top_k')
    expect(body).not.toHaveProperty('store')
    expect(warnings).toEqual([expect.stringContaining('top_k dropped')])
  })

  it('sends the system prompt, the headers given, and no retry layer of its own', async () => {
    const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }], {
      headers: { 'anthropic-beta': 'fixture-beta-1' },
      baseURL: 'https://proxy.example.com',
    })
    await run(adapter.stream({ system: 'You are terse.', turns: ask.turns }))
    const request = replay.requests[0]!
    expect(request.url).toBe('https://proxy.example.com/v1/messages')
    expect(request.headers['anthropic-beta']).toBe('fixture-beta-1')
    expect(request.headers['x-stainless-retry-count']).toBe('0')
    expect(sentBody(replay)['system']).toBe('You are terse.')
  })

  it('marks browser use on the request when the caller allows it', async () => {
    const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }], {
      dangerouslyAllowBrowser: true,
    })
    await run(adapter.stream(ask))
    expect(replay.requests[0]!.headers['anthropic-dangerous-direct-browser-access']).toBe('true')
  })

  it('sends images as base64 or URL sources and refuses a media type the API does not take', async () => {
    const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }])
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
    expect(sentBody(replay)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
          },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ])
    const { error } = await run(
      adapter.stream({
        turns: [
          { role: 'user', content: [{ type: 'image', mediaType: 'image/tiff', data: 'AA==' }] },
        ],
      }),
    )
    expect(error).toMatchObject({
      kind: 'invalid-request',
      message: expect.stringContaining('turns[0].content[0].mediaType'),
    })
    expect(replay.requests).toHaveLength(1)
  })
})
