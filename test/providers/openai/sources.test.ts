import { describe, expect, it } from 'vitest'
import { doneTurn } from '../../helpers/stream.ts'
import { fixture, replayOnce, responseOf, responseStream } from './harness.ts'

const LYON = '([meteo.example](https://meteo.example/lyon))'
const HEAT = '([news.example](https://news.example/heat))'

const message = (text: string, annotations: object[], status = 'completed') => ({
  id: 'msg_src',
  type: 'message',
  role: 'assistant',
  status,
  content: [{ type: 'output_text', text, annotations, logprobs: [] }],
})

describe('openai: sources', () => {
  it('turns url_citation annotations into sources, in order, quoting the cited span, once per url and quote', async () => {
    const { events } = await replayOnce(fixture('commentary-web-search-citations.sse'))
    const turn = doneTurn(events)
    expect(turn.sources).toEqual([
      { url: 'https://meteo.example/lyon', title: 'Lyon — météo du jour', quote: LYON },
      { url: 'https://news.example/heat', title: 'Heat alert for the Rhône', quote: HEAT },
    ])
    // The raw records stay in the items, untouched: three annotations, the repeated one included.
    const answer = turn.items?.data[2] as { content: { annotations: unknown[] }[] }
    expect(answer.content[0]!.annotations).toHaveLength(3)
  })

  it('counts annotation indices in code points, so an emoji before the span does not shift the quote', async () => {
    const turn = doneTurn((await replayOnce(fixture('commentary-web-search-citations.sse'))).events)
    const answer = turn.items?.data[2] as {
      content: { text: string; annotations: { start_index: number; end_index: number }[] }[]
    }
    const { text, annotations } = answer.content[0]!
    const { start_index: start, end_index: end } = annotations[0]!
    // Counted in UTF-16 units the span would be off by one ('🌤' is two of them).
    expect(text.slice(start, end)).not.toBe(LYON)
    expect(turn.sources?.[0]?.quote).toBe(LYON)
  })

  it('makes file citations sources titled by their file name, a container file citation with its quote', async () => {
    const text = 'Refunds take 14 days.【4:0†policy.pdf】 See the sheet: data.csv'
    const annotations = [
      { type: 'file_citation', file_id: 'file-1', filename: 'policy.pdf', index: 21 },
      { type: 'file_citation', file_id: 'file-1', filename: 'policy.pdf', index: 21 },
      { type: 'file_path', file_id: 'file-9', index: 3 },
      {
        type: 'container_file_citation',
        container_id: 'cntr_1',
        file_id: 'cfile_2',
        filename: 'data.csv',
        start_index: 53,
        end_index: 61,
      },
    ]
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.output_text.delta',
        item_id: 'msg_src',
        output_index: 0,
        content_index: 0,
        delta: text,
      },
      {
        type: 'response.completed',
        response: responseOf('completed', [message(text, annotations)]),
      },
    ])
    const turn = doneTurn((await replayOnce(body)).events)
    expect(turn.sources).toEqual([
      { title: 'policy.pdf' },
      { title: 'data.csv', quote: 'data.csv' },
    ])
  })

  it('keeps a citation that was only streamed, without a quote when its message never completed', async () => {
    const annotation = {
      type: 'url_citation',
      url: 'https://meteo.example/lyon',
      title: 'Lyon',
      start_index: 6,
      end_index: 51,
    }
    const text = `Sunny ${LYON} and`
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.output_text.delta',
        item_id: 'msg_src',
        output_index: 0,
        content_index: 0,
        delta: text,
      },
      {
        type: 'response.output_text.annotation.added',
        item_id: 'msg_src',
        output_index: 0,
        content_index: 0,
        annotation_index: 0,
        annotation,
      },
      {
        type: 'response.incomplete',
        // The cut message comes back without the annotation streamed for it.
        response: responseOf('incomplete', [message(text, [], 'incomplete')], {
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      },
    ])
    const turn = doneTurn((await replayOnce(body)).events)
    expect(turn.sources).toEqual([{ url: 'https://meteo.example/lyon', title: 'Lyon' }])
  })

  it('takes the quote of a streamed citation from its completed item, and counts it once', async () => {
    const annotation = {
      type: 'url_citation',
      url: 'https://news.example/heat',
      title: 'Heat',
      start_index: 5,
      end_index: 48,
    }
    const text = `Hot. ${HEAT}`
    const completed = message(text, [annotation])
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.output_text.annotation.added',
        item_id: 'msg_src',
        output_index: 0,
        content_index: 0,
        annotation_index: 0,
        annotation,
      },
      { type: 'response.output_item.done', output_index: 0, item: completed },
      // A terminal response without its output: the items are the completed ones.
      { type: 'response.completed', response: responseOf('completed', []) },
    ])
    const turn = doneTurn((await replayOnce(body)).events)
    expect(turn.sources).toEqual([{ url: 'https://news.example/heat', title: 'Heat', quote: HEAT }])
  })

  it('counts a streamed citation once when the items hold it with its fields in another order', async () => {
    const text = `Hot. ${HEAT}`
    const streamed = {
      type: 'url_citation',
      url: 'https://news.example/heat',
      title: 'Heat',
      start_index: 5,
      end_index: 48,
    }
    const held = {
      end_index: 48,
      start_index: 5,
      title: 'Heat',
      type: 'url_citation',
      url: 'https://news.example/heat',
    }
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.output_text.annotation.added',
        item_id: 'msg_src',
        output_index: 0,
        content_index: 0,
        annotation_index: 0,
        annotation: streamed,
      },
      {
        type: 'response.incomplete',
        response: responseOf('incomplete', [message(text, [held], 'incomplete')], {
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      },
    ])
    const turn = doneTurn((await replayOnce(body)).events)
    expect(turn.sources).toEqual([{ url: 'https://news.example/heat', title: 'Heat', quote: HEAT }])
  })

  it('gives a turn that cites nothing no sources', async () => {
    const turn = doneTurn((await replayOnce(fixture('reasoning-then-text.sse'))).events)
    expect(turn).not.toHaveProperty('sources')
    expect(turn).not.toHaveProperty('stopDetails')
  })
})
