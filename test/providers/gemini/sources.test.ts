import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { sourcesOf } from '../../../src/providers/gemini/map-sources.ts'
import { collect, doneTurn, eventsAtCuts, fixture, geminiWith } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wie hoch ist die Zugspitze?' }] }
const redirect = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/'
const wikipedia = { url: `${redirect}QUFBLXdpa2lwZWRpYQ==`, title: 'wikipedia.org' }
const zugspitze = { url: `${redirect}QkJCLXp1Z3NwaXR6ZQ==`, title: 'zugspitze.de' }
const bergfex = { url: `${redirect}Q0NDLWJlcmdmZXg=`, title: 'bergfex.at' }

describe('gemini sources', () => {
  it('turns citations and grounding into sources in stream order, each url and quote once', async () => {
    const events = await eventsAtCuts(fixture('grounded-answer.sse'), ask)
    const turn = doneTurn(events)
    expect(turn.text).toBe(
      'Die Zugspitze ist 2962 m hoch und liegt an der Grenze zu Österreich. ⛰️',
    )
    expect(turn.sources).toEqual([
      // The citation came on the second chunk, the grounding on the last.
      { url: 'https://de.wikipedia.org/wiki/Zugspitze' },
      { ...wikipedia, quote: 'Die Zugspitze ist 2962 m hoch' },
      { ...zugspitze, quote: 'Die Zugspitze ist 2962 m hoch' },
      { ...wikipedia, quote: 'liegt an der Grenze zu Österreich' },
      // Searched, but no support cites it.
      bergfex,
    ])
    // Search grounding counts its tool prompt as input.
    expect(turn.usage).toEqual({
      inputTokens: 14 + 180,
      outputTokens: 22 + 40,
      reasoningTokens: 40,
    })
  })

  it('keeps the parts in items untouched and sends no grounding back', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('grounded-answer.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    expect(turn.items?.data).toEqual([
      { text: 'Die Zugspitze ist 2962 m hoch und liegt an der Grenze zu Österreich. ⛰️' },
      { text: '', thoughtSignature: 'U0lHLWdyb3VuZGVk' },
    ])
    conversation.turns.push(turn, { role: 'user', content: 'Und der Mont Blanc?' })
    await collect(adapter.stream(conversation))
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents[1]).toEqual({ role: 'model', parts: turn.items?.data })
    const sent = JSON.stringify(body)
    for (const word of ['grounding', 'citation', 'webSearchQueries', 'vertexaisearch'])
      expect(sent).not.toContain(word)
  })

  it('has no sources when the answer cites nothing', async () => {
    const { adapter } = geminiWith([{ body: fixture('conversation-3-answer.sse') }])
    expect(doneTurn(await collect(adapter.stream(ask))).sources).toBeUndefined()
  })
})

describe('gemini sourcesOf', () => {
  it('reads Vertex AI citations with titles, retrieval and maps chunks, and skips what says nothing', () => {
    const sources = sourcesOf([
      {
        citation: {
          citations: [
            { uri: 'https://example.test/a', title: 'A', startIndex: 0, endIndex: 4 },
            { startIndex: 5, endIndex: 9, license: 'mit' },
          ],
        },
      },
      {
        grounding: {
          groundingChunks: [
            { retrievedContext: { uri: 'gs://bucket/doc.pdf', title: 'Handbuch' } },
            'not a chunk',
            { maps: { uri: 'https://maps.test/place', title: 'Café' } },
            { image: { imageUri: 'https://img.test/x.png' } },
          ],
          groundingSupports: [
            // Indices name chunks by place: 2 is the maps chunk, whatever comes before it.
            { segment: { text: 'ein Café' }, groundingChunkIndices: [2, 3, 9, -1, 'x'] },
            { groundingChunkIndices: [0] },
            'not a support',
          ],
        },
      },
    ])
    expect(sources).toEqual([
      { url: 'https://example.test/a', title: 'A' },
      { url: 'https://maps.test/place', title: 'Café', quote: 'ein Café' },
      { url: 'gs://bucket/doc.pdf', title: 'Handbuch' },
    ])
  })

  it('collapses the same grounding sent on several chunks', () => {
    const grounding = {
      groundingChunks: [{ web: { uri: 'https://example.test/', title: 'Example' } }],
      groundingSupports: [{ segment: { text: 'x' }, groundingChunkIndices: [0] }],
    }
    expect(sourcesOf([{ grounding }, { grounding }])).toEqual([
      { url: 'https://example.test/', title: 'Example', quote: 'x' },
    ])
  })
})
