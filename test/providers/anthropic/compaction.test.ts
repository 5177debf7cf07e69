import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { Turn } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { awkwardSplits, fixture, messageOf, sentBody, setup, turnThenNext } from './harness.ts'

const plan: Turn = { role: 'user', content: 'Plan my trip to Kraków.' }
const hotel: Turn = { role: 'user', content: 'Book the hotel near the castle.' }
const breakfast: Turn = { role: 'user', content: 'Śniadanie included?' }

/** The summary and the rest of the block `compaction.sse` streams. */
const THRESHOLD_BLOCK = {
  type: 'compaction',
  content: 'Summary → the user is planning a trip to Kraków 🇵🇱; flights booked, hotel pending.',
  encrypted_content: 'EsYDCkYICompactionFixture==',
}

/** The signed block `compaction-summary.sse` sends whole in its `content_block_start`. */
const SIGNED_BLOCK = {
  type: 'compaction',
  content:
    '<summary>Trip to Kraków 🇵🇱 → flights booked; the user asked for a hotel near the castle.</summary>',
  encrypted_content: null,
  signature: 'EuYBCkYIBxgCKkSignedCompactionFixture==',
  tool_changes: [],
}

const summarize: CallOptions = {
  providerOptions: { anthropic: { compaction: { type: 'summarize' } } },
}

describe('anthropic: compaction by threshold (context_management, compact_20260112)', () => {
  it('keeps the block ahead of the answer in the items, and sends the turn back whole after the turns it summarized', async () => {
    const earlier: Turn[] = [
      plan,
      {
        role: 'assistant',
        text: 'Flights first.',
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: 'stop',
      },
      hotel,
    ]
    const { events, turn, next } = await turnThenNext(
      fixture('compaction.sse'),
      () => [breakfast],
      { question: earlier },
    )
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Next: the hotel in Kraków.' }])
    expect(turn).toMatchObject({ text: 'Next: the hotel in Kraków.', stopReason: 'stop' })
    expect(turn.warnings).toBeUndefined()
    const data = [THRESHOLD_BLOCK, { type: 'text', text: 'Next: the hotel in Kraków.' }]
    expect(turn.items?.data).toEqual(data)
    // The API itself ignores what comes before the block: every turn goes as it is.
    expect(next['messages']).toEqual([
      plan,
      { role: 'assistant', content: [{ type: 'text', text: 'Flights first.' }] },
      hotel,
      { role: 'assistant', content: data },
      breakfast,
    ])
  })

  it('paused after its block (pause_after_compaction) ends with the block alone, which goes back last to be continued', async () => {
    const body = messageOf(
      [
        [
          { type: 'compaction', content: null, encrypted_content: null },
          [
            {
              type: 'compaction_delta',
              content: THRESHOLD_BLOCK.content,
              encrypted_content: THRESHOLD_BLOCK.encrypted_content,
            },
          ],
        ],
      ],
      'compaction',
    )
    const { adapter, replay } = setup([
      { body, splitAt: awkwardSplits(body) },
      { body: fixture('answer-after-tool.sse') },
    ])
    const first = await run(adapter.stream({ turns: [plan] }))
    expect(first.events.map((event) => event.type)).toEqual(['done'])
    const turn = doneTurn(first.events)
    expect(turn).toMatchObject({
      text: '',
      stopReason: 'other',
      stopDetails: { category: 'compaction' },
    })
    expect(turn.items?.data).toEqual([THRESHOLD_BLOCK])
    const second = await run(adapter.stream({ turns: [plan, turn] }))
    expect(second.error).toBeUndefined()
    expect(sentBody(replay, 1)['messages']).toEqual([
      plan,
      { role: 'assistant', content: [THRESHOLD_BLOCK] },
    ])
  })
})

describe('anthropic: compaction on demand (the compaction parameter, a signed block)', () => {
  it('ends with the signed block alone, and later requests send it first, in place of the turns it summarized', async () => {
    const body = fixture('compaction-summary.sse')
    const { adapter, replay } = setup(
      [
        { body: fixture('answer-after-tool.sse') },
        { body, splitAt: awkwardSplits(body) },
        { body: fixture('answer-after-tool.sse') },
      ],
      { headers: { 'anthropic-beta': 'compact-2026-09-04' } },
    )
    const answer = doneTurn((await run(adapter.stream({ turns: [plan] }))).events)
    const { events, error } = await run(adapter.stream({ turns: [plan, answer] }, summarize))
    expect(error).toBeUndefined()
    expect(sentBody(replay, 1)).toMatchObject({
      compaction: { type: 'summarize' },
      messages: [plan, { role: 'assistant', content: answer.items?.data }],
    })
    expect(replay.requests[1]!.headers['anthropic-beta']).toBe('compact-2026-09-04')
    expect(events.map((event) => event.type)).toEqual(['done'])
    const summary = doneTurn(events)
    expect(summary).toMatchObject({
      text: '',
      stopReason: 'other',
      stopDetails: { category: 'compaction' },
    })
    expect(summary.warnings).toBeUndefined()
    expect(summary.items?.data).toEqual([SIGNED_BLOCK])

    // The conversation keeps every turn; the API gets the block first and what follows it.
    const next = await run(adapter.stream({ turns: [plan, answer, summary, hotel] }))
    expect(next.error).toBeUndefined()
    expect(sentBody(replay, 2)['messages']).toEqual([
      { role: 'assistant', content: [SIGNED_BLOCK] },
      hotel,
    ])
  })

  it('keeps the turns that follow the block word for word, an answer that came meanwhile in the block’s message', async () => {
    const { adapter, replay } = setup([
      { body: fixture('compaction-summary.sse') },
      { body: fixture('answer-after-tool.sse') },
      { body: fixture('answer-after-tool.sse') },
    ])
    const summary = doneTurn((await run(adapter.stream({ turns: [plan] }, summarize))).events)
    // The answer to `plan` arrived while the summary was being written.
    const answer = doneTurn((await run(adapter.stream({ turns: [plan] }))).events)
    await run(adapter.stream({ turns: [plan, summary, answer, hotel] }))
    expect(sentBody(replay, 2)['messages']).toEqual([
      { role: 'assistant', content: [SIGNED_BLOCK, ...(answer.items?.data ?? [])] },
      hotel,
    ])
  })

  it('made under another thinking mode is not used: the whole conversation goes, without it', async () => {
    const { adapter, replay } = setup([
      { body: fixture('compaction-summary.sse') },
      { body: fixture('answer-after-tool.sse') },
    ])
    const summary = doneTurn((await run(adapter.stream({ turns: [plan] }, summarize))).events)
    await run(adapter.stream({ turns: [plan, summary, hotel] }, { thinking: 'high' }))
    expect(sentBody(replay, 1)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: plan.content },
          { type: 'text', text: hotel.content },
        ],
      },
    ])
  })
})
