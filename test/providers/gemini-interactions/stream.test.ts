import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import {
  atCuts,
  collect,
  doneTurn,
  eventsAtCuts,
  fixture,
  fixtureNames,
  sentBody,
  setup,
  signatureOf,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Was ist die Hauptstadt Japans?' }] }
const weather = {
  tools: [
    { name: 'get_weather', description: 'Weather of a city.', parameters: { type: 'object' } },
    { name: 'get_time', description: 'Time in a timezone.', parameters: { type: 'object' } },
  ],
}

describe('gemini interactions streaming', () => {
  it('streams thought summaries as thinking and model output as text, the same at each kind of cut', async () => {
    const events = await eventsAtCuts(fixture('thinking-then-text.sse'), ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: '**Die Frage** – Hauptstadt von Japan? ' },
      { type: 'thinking', text: 'Das ist Tōkyō 🗼.' },
      // The first text came on the step's start, before any delta.
      { type: 'text', text: '東京は' },
      { type: 'text', text: '日本の首都です。' },
      { type: 'text', text: ' 🗼' },
    ])
    const turn = doneTurn(events)
    expect(turn.text).toBe('東京は日本の首都です。 🗼')
    expect(turn.thinking).toBe('**Die Frage** – Hauptstadt von Japan? Das ist Tōkyō 🗼.')
    expect(turn.stopReason).toBe('stop')
    expect(turn.stopDetails).toBeUndefined()
    // Thoughts are counted apart from the output: output is both, thoughts its reasoning.
    expect(turn.usage).toEqual({
      inputTokens: 24,
      outputTokens: 11 + 57,
      reasoningTokens: 57,
      cacheReadTokens: 8,
    })
  })

  it('keeps the turn as its steps, the signature on the thought step it came with', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('thinking-then-text.sse'), ask))
    expect(turn.items).toEqual({
      provider: 'gemini-interactions',
      model: 'gemini-3-flash-preview',
      thinkingMode: 'default',
      data: [
        {
          type: 'thought',
          summary: [
            { type: 'text', text: '**Die Frage** – Hauptstadt von Japan? Das ist Tōkyō 🗼.' },
          ],
          signature: expect.stringMatching(/^CiQBjz1rX3Tp/),
        },
        { type: 'model_output', content: [{ type: 'text', text: '東京は日本の首都です。 🗼' }] },
      ],
    })
  })

  it('assembles a call from its argument fragments, with the id the API gave it', async () => {
    const events = await eventsAtCuts(fixture('thinking-then-tool.sse'), ask, weather)
    const call = {
      id: 'k3v9q2xa',
      name: 'get_weather',
      input: { city: 'München', unit: 'celsius' },
    }
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([{ type: 'tool-call', call }])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.toolCalls).toEqual([call])
    expect(turn.thinking).toBe('Ich brauche das Wetter für München ☔.')
    // The call step keeps no empty signature: the thought step before it holds the signature.
    expect(turn.items?.data).toEqual([
      {
        type: 'thought',
        summary: [{ type: 'text', text: 'Ich brauche das Wetter für München ☔.' }],
        signature: expect.stringMatching(/^CikBjz1rXwq8/),
      },
      {
        type: 'function_call',
        id: 'k3v9q2xa',
        name: 'get_weather',
        arguments: { city: 'München', unit: 'celsius' },
      },
    ])
  })

  it('sends the whole conversation back with every step verbatim and the results by call id', async () => {
    const { adapter, replay } = setup([
      { body: fixture('thinking-then-tool.sse') },
      { body: fixture('tool-result-answer.sse') },
    ])
    const first = doneTurn(await collect(adapter.stream(ask, weather)))
    const results = {
      role: 'tool' as const,
      results: [{ callId: 'k3v9q2xa', name: 'get_weather', output: { celsius: 18, rain: true } }],
    }
    const second = doneTurn(
      await collect(adapter.stream({ turns: [...ask.turns, first, results] }, weather)),
    )
    expect(second.text).toBe('In München sind es 18 °C und es regnet ☔.')
    const body = sentBody(replay)
    expect(body['store']).toBe(false)
    expect(body['stream']).toBe(true)
    expect(body['previous_interaction_id']).toBeUndefined()
    expect(body['input']).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'Was ist die Hauptstadt Japans?' }] },
      ...(first.items?.data ?? []),
      {
        type: 'function_result',
        call_id: 'k3v9q2xa',
        name: 'get_weather',
        result: '{"celsius":18,"rain":true}',
      },
    ])
    // Each signature is in the request once, on its thought step.
    const sent = JSON.stringify(body['input'])
    const signature = signatureOf(first)
    expect(sent.split(signature)).toHaveLength(2)
  })

  it('emits parallel calls in order, each when its step stops', async () => {
    const events = await eventsAtCuts(fixture('parallel-calls.sse'), ask, weather)
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.call] : []))).toEqual([
      { id: 'p1a7', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'p2b8', name: 'get_time', input: { timezone: 'Europe/Paris' } },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.items?.data.map((step) => (step as { type: string }).type)).toEqual([
      'thought',
      'function_call',
      'function_call',
    ])
  })

  it('reads the sources of the text annotations, each quote the span of bytes it covers', async () => {
    const events = await eventsAtCuts(fixture('grounded-answer.sse'), ask)
    const turn = doneTurn(events)
    expect(turn.text).toBe(
      'Die Zugspitze ist 2962 m hoch – Deutschlands höchster Berg. Sie liegt in Bayern an der Grenze zu Österreich, nahe Garmisch.',
    )
    expect(turn.sources).toEqual([
      {
        url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/zugspitze-de',
        title: 'zugspitze.de',
        quote: 'Die Zugspitze ist 2962 m hoch – Deutschlands höchster Berg.',
      },
      {
        url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/wiki-zugspitze',
        title: 'wikipedia.org',
        quote: 'Sie liegt in Bayern an der Grenze zu Österreich',
      },
      {
        url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/zugspitze-de',
        title: 'zugspitze.de',
        quote: 'Sie liegt in Bayern an der Grenze zu Österreich',
      },
    ])
    // Tool-use prompt tokens are input too.
    expect(turn.usage.inputTokens).toBe(35 + 112)
    // The search steps are kept for replay, each with its own signature; the annotations stay on
    // the text they annotate.
    const steps = turn.items?.data as Record<string, unknown>[]
    expect(steps.map((s) => s['type'])).toEqual([
      'thought',
      'google_search_call',
      'google_search_result',
      'model_output',
    ])
    expect(steps[1]).toEqual({
      id: 'gs41',
      signature: 'CiIBjz1rX0sEaRcH',
      type: 'google_search_call',
      arguments: { queries: ['Zugspitze Höhe'] },
    })
    expect(JSON.stringify(steps[3])).toContain('"annotations":[{"start_index":0')
  })

  it('ends at interaction.completed although the body stays open, and releases it', async () => {
    const body = fixture('stored-interaction.sse')
    const { adapter, replay } = setup([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.text).toBe('Gespeichert ✓')
    expect(replay.aborted()).toBe(true)
  })

  it('keeps a stored interaction’s id after the steps, and leaves it out of the next input', async () => {
    const { adapter, replay } = setup([{ body: fixture('stored-interaction.sse') }])
    const options = { providerOptions: { 'gemini-interactions': { store: true } } }
    const turn = doneTurn(await collect(adapter.stream(ask, options)))
    const id = 'v1_ChdsT2w4YVhEM1JrX2NRZ0xzcUEwEhdsT2w4YVhEM1JrX2NRZ0xzcUEw'
    expect(turn.items?.data.at(-1)).toEqual({ interaction_id: id })
    expect(sentBody(replay)['store']).toBe(true)

    const next = { turns: [...ask.turns, turn, { role: 'user' as const, content: 'Danke.' }] }
    await collect(adapter.stream(next, options))
    expect(JSON.stringify(sentBody(replay)['input'])).not.toContain(id)
  })

  it.each(fixtureNames())('replays %s at every kind of cut with the same outcome', async (name) => {
    await atCuts(fixture(name), ask, weather)
  })
})
