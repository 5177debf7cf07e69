import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import { compatibleWith, eventsAtCuts, fixture, type CompatibleSetup } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter heute?' }] }
const openrouter: CompatibleSetup = { ...presets.openrouter, model: 'openai/gpt-5', apiKey: 'k' }
const perplexity: CompatibleSetup = {
  provider: 'perplexity',
  baseURL: 'https://api.perplexity.ai',
  model: 'sonar',
  apiKey: 'pplx-test',
}

describe('openai-compatible: sources', () => {
  it('turns OpenRouter url_citation annotations into sources, in order and once each', async () => {
    const events = await eventsAtCuts(fixture('openrouter-web-search.sse'), openrouter, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: 'Wien hat heute 21 °C' },
      { type: 'text', text: ' und Sonne ☀️.' },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('stop')
    expect(turn.sources).toEqual([
      {
        url: 'https://wetter.example/wien',
        title: 'Wetter Wien',
        quote: 'Heute 21 °C, sonnig.',
      },
      {
        url: 'https://news.example/sommer',
        title: 'Sommer in Österreich',
        quote: 'Sonne satt im Osten.',
      },
    ])
    // The answer replays as it was; the annotations are not part of a request.
    expect(turn.items?.data).toEqual([
      { role: 'assistant', content: 'Wien hat heute 21 °C und Sonne ☀️.', reasoning_details: [] },
    ])
  })

  it('turns Perplexity citations and search results, repeated on every chunk, into one source each', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('perplexity-citations.sse'), perplexity, ask))
    expect(turn.text).toBe('In Graz regnet es [1], in den Alpen schneit es [2].')
    expect(turn.sources).toEqual([
      { url: 'https://graz.example/wetter', title: 'Wetter in Graz' },
      { url: 'https://alpen.example/bericht', title: 'Alpenbericht' },
    ])
    expect(turn.usage).toEqual({ inputTokens: 8, outputTokens: 18 })
  })

  it('takes urls alone from citations, and fills in a title that comes later', async () => {
    const body = fixture('perplexity-citations.sse').replace(/,"search_results":\[[^\]]*\]/, '')
    const turn = doneTurn(await collect(compatibleWith([{ body }], perplexity).adapter.stream(ask)))
    expect(turn.sources).toEqual([
      { url: 'https://graz.example/wetter', title: 'Wetter in Graz' },
      { url: 'https://alpen.example/bericht', title: 'Alpenbericht' },
    ])
    const urlsOnly = fixture('perplexity-citations.sse').replaceAll(
      /,"search_results":\[[^\]]*\]/g,
      '',
    )
    const bare = doneTurn(
      await collect(compatibleWith([{ body: urlsOnly }], perplexity).adapter.stream(ask)),
    )
    expect(bare.sources).toEqual([
      { url: 'https://graz.example/wetter' },
      { url: 'https://alpen.example/bericht' },
    ])
  })

  it('leaves sources out of a turn that cites nothing', async () => {
    const turn = doneTurn(
      await collect(
        compatibleWith([{ body: fixture('text-usage.sse') }], perplexity).adapter.stream(ask),
      ),
    )
    expect(turn).not.toHaveProperty('sources')
  })
})
