import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { withRetry } from '../../../src/middleware/retry.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, inputOf, responseOf, responseStream, sentBody, setup } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Tell me something off-limits.' }] }

describe('openai: refusals', () => {
  it('streams a refusal part as text and ends with a refusal turn whose explanation is that text', async () => {
    const { adapter, replay } = setup([{ body: fixture('refusal.sse') }])
    const { events, error } = await run(withRetry(adapter, { maxRetries: 3 }).stream(ask))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'I can’t help with that' },
      { type: 'text', text: ' — sorry.' },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: 'I can’t help with that — sorry.',
      stopReason: 'refusal',
      stopDetails: { category: 'refusal', explanation: 'I can’t help with that — sorry.' },
    })
    // A turn, not an error: nothing is retried.
    expect(replay.requests).toHaveLength(1)
    expect(turn.items?.data).toEqual([
      {
        id: 'msg_fixture6',
        type: 'message',
        status: 'completed',
        content: [{ type: 'refusal', refusal: 'I can’t help with that — sorry.' }],
        role: 'assistant',
      },
    ])
    await run(adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Why?' }] }))
    const sent = sentBody(replay)
    expect(inputOf(sent)).toEqual([
      ...ask.turns,
      ...turn.items!.data,
      { role: 'user', content: 'Why?' },
    ])
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('ends a response stopped by the content filter as a refusal, drops the call it cut, and replays validly', async () => {
    const tools = [{ name: 'lookup', parameters: { type: 'object' } }]
    const { adapter, replay } = setup([{ body: fixture('incomplete-content-filter.sse') }])
    const { events, error } = await run(adapter.stream(ask, { tools }))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Answer, then look it up.' },
      { type: 'text', text: 'Here is the ' },
      { type: 'text', text: 'first step — ' },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: 'Here is the first step — ',
      stopReason: 'refusal',
      // The filter wrote no refusal text: there is nothing to explain with.
      stopDetails: { category: 'content_filter' },
      warnings: ['tool call call_Lookup1 (lookup) dropped: it was cut off by the content filter'],
    })
    expect(turn.stopDetails).not.toHaveProperty('explanation')
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.items?.data.map((item) => (item as { id: string }).id)).toEqual([
      'rs_filter1',
      'msg_filter1',
    ])
    await run(adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Ok.' }] }))
    const sent = sentBody(replay)
    expect(JSON.stringify(sent)).not.toContain('call_Lookup1')
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('explains a content-filtered response with the refusal text the model wrote before the stop', async () => {
    const refusal = { type: 'refusal', refusal: 'I won’t describe that.' }
    const message = { id: 'msg_r', type: 'message', role: 'assistant', status: 'incomplete' }
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
      {
        type: 'response.refusal.delta',
        item_id: 'msg_r',
        output_index: 0,
        content_index: 0,
        delta: 'I won’t describe that.',
      },
      {
        type: 'response.incomplete',
        response: responseOf('incomplete', [{ ...message, content: [refusal] }], {
          incomplete_details: { reason: 'content_filter' },
        }),
      },
    ])
    const { adapter } = setup([{ body }])
    const turn = doneTurn((await run(adapter.stream(ask))).events)
    expect(turn).toMatchObject({
      text: 'I won’t describe that.',
      stopReason: 'refusal',
      stopDetails: { category: 'content_filter', explanation: 'I won’t describe that.' },
    })
  })
})
