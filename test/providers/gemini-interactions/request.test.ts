import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { Conversation } from '../../../src/core/conversation.ts'
import { geminiInteractionsCapabilities } from '../../../src/providers/gemini/catalog.ts'
import { collect, doneTurn, fixture, sentBody, setup } from './harness.ts'

const answer = fixture('tool-result-answer.sse')

/** The body `options` make for `model`, and the turn's warnings. */
async function request(
  options: CallOptions,
  model = 'gemini-3-flash-preview',
  conversation: Conversation = { turns: [{ role: 'user', content: 'Hallo' }] },
) {
  const { adapter, replay } = setup([{ body: answer }], { model })
  const turn = doneTurn(await collect(adapter.stream(conversation, options)))
  return { body: sentBody(replay), warnings: turn.warnings ?? [] }
}

describe('gemini interactions request', () => {
  it('sends a stateless streamed interaction with the system prompt and the user input', async () => {
    const { body } = await request({}, 'gemini-3-flash-preview', {
      system: 'Antworte kurz.',
      turns: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Was ist das?' },
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'image', url: 'https://example.test/cat.jpg' },
          ],
        },
      ],
    })
    expect(body).toEqual({
      model: 'gemini-3-flash-preview',
      input: [
        {
          type: 'user_input',
          content: [
            { type: 'text', text: 'Was ist das?' },
            { type: 'image', data: 'iVBORw0KGgo=', mime_type: 'image/png' },
            { type: 'image', uri: 'https://example.test/cat.jpg' },
          ],
        },
      ],
      stream: true,
      store: false,
      system_instruction: 'Antworte kurz.',
      generation_config: { thinking_summaries: 'auto' },
    })
  })

  it('maps thinking to a level the model takes, rounding up, and asks for thought summaries', async () => {
    const level = async (options: CallOptions, model?: string) => {
      const { body, warnings } = await request(options, model)
      return { config: body['generation_config'], warnings }
    }
    expect(await level({ thinking: 'high' })).toEqual({
      config: { thinking_level: 'high', thinking_summaries: 'auto' },
      warnings: [],
    })
    expect(await level({ thinking: 'max' })).toMatchObject({ config: { thinking_level: 'high' } })
    // Gemini 3 Pro has no minimal level and cannot turn thinking off.
    expect(await level({ thinking: 'off' }, 'gemini-3.1-pro-preview')).toEqual({
      config: { thinking_level: 'low', thinking_summaries: 'auto' },
      warnings: ['thinking: this model cannot turn thinking off; used its lowest level, low'],
    })
    expect(await level({ thinking: { budgetTokens: 4000 } })).toEqual({
      config: { thinking_level: 'medium', thinking_summaries: 'auto' },
      warnings: ["thinking: this model takes a level, not a budget; budget 4000 became 'medium'"],
    })
  })

  it('gives Gemini 2.5 a level too, since the Interactions API takes no budget', async () => {
    const { body, warnings } = await request({ thinking: 'medium' }, 'gemini-2.5-pro')
    expect(body['generation_config']).toEqual({
      thinking_level: 'medium',
      thinking_summaries: 'auto',
    })
    expect(warnings).toEqual([])
    expect(geminiInteractionsCapabilities('gemini-2.5-pro').thinking).toEqual({
      mode: 'effort',
      levels: ['low', 'medium', 'high'],
      canDisable: false,
    })
  })

  it('sends no thinking setting to a model that takes none, and says so', async () => {
    const { body, warnings } = await request({ thinking: 'high' }, 'gemini-2.0-flash')
    expect(body['generation_config']).toBeUndefined()
    expect(warnings).toEqual(['thinking: this model takes no thinking setting; it was dropped'])
  })

  it('declares function tools and maps each tool choice', async () => {
    const tools = [{ name: 'get_weather', description: 'Weather.', parameters: { type: 'object' } }]
    const choice = async (toolChoice: CallOptions['toolChoice']) =>
      (await request({ tools, toolChoice })).body
    const body = await choice('required')
    expect(body['tools']).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Weather.',
        parameters: { type: 'object' },
      },
    ])
    expect(body['generation_config']).toMatchObject({ tool_choice: 'any' })
    expect((await choice('none'))['generation_config']).toMatchObject({ tool_choice: 'none' })
    expect((await choice({ name: 'get_weather' }))['generation_config']).toMatchObject({
      tool_choice: { allowed_tools: { mode: 'any', tools: ['get_weather'] } },
    })
  })

  it('sends the output cap, temperature, stop sequences and JSON output', async () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    const { body, warnings } = await request({
      maxTokens: 100_000,
      temperature: 0.2,
      stop: ['A', 'B', 'C', 'D', 'E', 'F'],
      responseFormat: { type: 'json', schema },
    })
    expect(body['generation_config']).toEqual({
      thinking_summaries: 'auto',
      max_output_tokens: 65_536,
      temperature: 0.2,
      stop_sequences: ['A', 'B', 'C', 'D', 'E'],
    })
    expect(body['response_format']).toEqual({ type: 'text', mime_type: 'application/json', schema })
    expect(warnings).toEqual([
      "maxTokens: 100000 is over this model's 65536; used 65536",
      'stop: Gemini takes at most 5 stop sequences; dropped "F"',
    ])
  })

  it('merges providerOptions over the body, where server-held state is asked for', async () => {
    const { body } = await request({
      providerOptions: {
        'gemini-interactions': {
          store: true,
          previous_interaction_id: 'v1_prev',
          generation_config: { seed: 7 },
          service_tier: 'flex',
        },
        // Another adapter's options are not this one's.
        gemini: { cachedContent: 'cachedContents/x' },
      },
    })
    expect(body).toMatchObject({
      store: true,
      previous_interaction_id: 'v1_prev',
      service_tier: 'flex',
      generation_config: { thinking_summaries: 'auto', seed: 7 },
    })
    expect(body['cachedContent']).toBeUndefined()
  })

  it('sends the caller’s fetch a url and init, and the SDK’s headers', async () => {
    const { adapter, replay } = setup([{ body: answer }], { headers: { 'x-team': 'wetter' } })
    await collect(adapter.stream({ turns: [{ role: 'user', content: 'Hallo' }] }))
    const sent = replay.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.signal).toBeInstanceOf(AbortSignal)
    expect(sent.headers).toMatchObject({
      accept: 'text/event-stream',
      'content-type': 'application/json',
      'x-team': 'wetter',
    })
  })
})
