import { describe, expect, it } from 'vitest'
import { mapSources } from '../../../src/providers/anthropic/map-sources.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, replayOnce, sentBody, setup, turnThenNext } from './harness.ts'

describe('anthropic sources', () => {
  it("gives a document's citations as title and quote, in order, each one once", async () => {
    const { events } = await replayOnce(fixture('citations.sse'))
    const turn = doneTurn(events)
    expect(turn.sources).toEqual([
      { title: 'Q3 résumé', quote: 'Revenue grew 12% → €4.2M' },
      { title: 'Annex', quote: 'Margins held.' },
      { quote: 'Costs were flat.' },
    ])
    // The raw citations stay in the items, the repeated one included.
    const data = turn.items?.data as { citations: unknown[] }[]
    expect(data[1]!.citations).toHaveLength(2)
  })

  it('gives the pages a web search found, then the cited passages, url, title and quote', async () => {
    const { events } = await replayOnce(fixture('server-tool.sse'))
    expect(doneTurn(events).sources).toEqual([
      { url: 'https://example.com/paris', title: 'Météo Paris' },
      { url: 'https://example.com/paris', title: 'Météo Paris', quote: 'Ciel dégagé, 18 °C' },
    ])
  })

  it('gives every search result and a passage cited twice once, around interleaved thinking', async () => {
    const { events } = await replayOnce(fixture('interleaved-thinking.sse'))
    expect(doneTurn(events).sources).toEqual([
      { url: 'https://example.com/lisboa', title: 'Tempo em Lisboa' },
      { url: 'https://example.com/lisbon-forecast', title: 'Lisbon forecast' },
      { url: 'https://example.com/lisboa', title: 'Tempo em Lisboa', quote: 'Sol, 24 °C' },
    ])
  })

  it('gives the page a web fetch read, url and title, then the passages cited from it', async () => {
    const body = fixture('web-fetch.sse')
    const { events, turn, next } = await turnThenNext(body, () => [
      { role: 'user', content: 'Und das Frühstück?' },
    ])
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'Hotel Wawel is a 4★ near the castle.' },
    ])
    expect(turn.sources).toEqual([
      { url: 'https://example.com/kraków/hotels', title: 'Hôtels à Kraków' },
      { title: 'Hôtels à Kraków', quote: 'Hotel Wawel → 4★' },
    ])
    const data = turn.items?.data as { type: string }[]
    expect(data.map((block) => block.type)).toEqual([
      'server_tool_use',
      'web_fetch_tool_result',
      'text',
    ])
    // The fetched page goes back as it came: the sources are read from the items, never into them.
    const messages = next['messages'] as { content: unknown }[]
    expect(JSON.stringify(messages[1]!.content)).toBe(JSON.stringify(data))
  })

  it('gives no source for a web fetch that failed', () => {
    expect(
      mapSources([
        {
          type: 'web_fetch_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' },
        },
        { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_2', content: null },
      ]),
    ).toEqual([])
  })

  it('gives none for a turn that cites nothing', async () => {
    const { events } = await replayOnce(fixture('thinking-then-tool.sse'))
    expect(doneTurn(events).sources).toBeUndefined()
  })

  it('replays the cited turn with its raw citations, untouched by the sources', async () => {
    const { adapter, replay } = setup([
      { body: fixture('citations.sse') },
      { body: fixture('answer-after-tool.sse') },
    ])
    const ask = { role: 'user', content: 'Sum up the report.' } as const
    const turn = doneTurn((await run(adapter.stream({ turns: [ask] }))).events)
    await run(adapter.stream({ turns: [ask, turn, { role: 'user', content: 'More?' }] }))
    const messages = sentBody(replay, 1)['messages'] as { content: unknown }[]
    expect(JSON.stringify(messages[1]!.content)).toBe(JSON.stringify(turn.items!.data))
    expect(JSON.stringify(messages[1]!.content)).toContain('"document_index":0')
  })

  it('reads a search-result citation, a failed search and blocks that are not records without failing', () => {
    expect(
      mapSources([
        null,
        'text',
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
        },
        {
          type: 'text',
          text: 'From the knowledge base.',
          citations: [
            {
              type: 'search_result_location',
              source: 'https://kb.example.com/a',
              title: 'KB article',
              cited_text: 'Reset the router.',
              search_result_index: 0,
              start_block_index: 0,
              end_block_index: 1,
            },
            {
              type: 'search_result_location',
              source: 'kb://internal/42',
              title: null,
              cited_text: 'Wait a minute.',
              search_result_index: 1,
              start_block_index: 0,
              end_block_index: 1,
            },
            { type: 'char_location', cited_text: '', document_title: null },
          ],
        },
      ]),
    ).toEqual([
      { url: 'https://kb.example.com/a', title: 'KB article', quote: 'Reset the router.' },
      { quote: 'Wait a minute.' },
    ])
  })
})
