import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import { awkwardCuts, errorBody, fixture, inputOf, sentBody, setup } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Where does chapter 12 end?' }] }
const next = { role: 'user', content: 'And chapter 13?' } as const

const reasoning = {
  id: 'rs_compacted1',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'Résumé first, then answer.' }],
  encrypted_content: 'gAAAAABpCompactedReasoning==',
}
const message = {
  id: 'msg_compacted1',
  type: 'message',
  status: 'completed',
  content: [
    { type: 'output_text', annotations: [], logprobs: [], text: 'Chapter 12 ends in Köln 🚂.' },
  ],
  role: 'assistant',
}
const compaction = {
  id: 'cmp_compacted1',
  type: 'compaction',
  encrypted_content: 'gAAAAABpCompactionSummaryEncrypted==',
}

const unverified = {
  status: 400,
  body: errorBody(
    'invalid_encrypted_content',
    'The encrypted content gAAA...Q== could not be verified.',
  ),
  headers: { 'content-type': 'application/json' },
}

/** The compacted turn, as the adapter streams it from the fixture cut at awkward places. */
async function compactedTurn(): Promise<AssistantTurn> {
  const body = fixture('compaction-after-text.sse')
  const { adapter } = setup([{ body, splitAt: awkwardCuts(body) }])
  const { events, error } = await run(adapter.stream(ask))
  expect(error).toBeUndefined()
  expect(events.slice(0, -1)).toEqual([
    { type: 'thinking', text: 'Résumé first, then answer.' },
    { type: 'text', text: 'Chapter 12 ends ' },
    { type: 'text', text: 'in Köln 🚂.' },
  ])
  return doneTurn(events)
}

describe('openai: compaction items', () => {
  it('keeps a compaction item in the items, in order, and replays it to the same model', async () => {
    const turn = await compactedTurn()
    expect(turn).toMatchObject({ text: 'Chapter 12 ends in Köln 🚂.', stopReason: 'stop' })
    expect(turn.items).toEqual({
      provider: 'openai',
      model: 'gpt-5.4',
      thinkingMode: 'default',
      data: [reasoning, message, compaction],
    })

    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    await run(adapter.stream({ turns: [...ask.turns, turn, next] }))
    const sent = sentBody(replay)
    expect(inputOf(sent)).toEqual([ask.turns[0], reasoning, message, compaction, next])
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('sends a compaction item as the input it is, without what only an output item has', async () => {
    const turn = await compactedTurn()
    const stored = {
      ...turn,
      items: {
        ...turn.items!,
        data: [reasoning, message, { ...compaction, created_by: 'server', status: 'completed' }],
      },
    }
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    await run(adapter.stream({ turns: [...ask.turns, stored, next] }))
    expect(inputOf(sentBody(replay))[3]).toEqual(compaction)
    expect(openaiRequestProblems(sentBody(replay))).toEqual([])
  })

  it('replays no compaction item to another model or thinking mode', async () => {
    const turn = await compactedTurn()
    for (const [model, thinking] of [
      ['gpt-5.4-mini', undefined],
      ['gpt-5.4', 'high'],
    ] as const) {
      const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }], { model })
      await run(adapter.stream({ turns: [...ask.turns, turn, next] }, { thinking }))
      expect(inputOf(sentBody(replay))).toEqual([
        ask.turns[0],
        { role: 'assistant', content: 'Chapter 12 ends in Köln 🚂.' },
        next,
      ])
    }
  })

  it('asks once more without the encrypted items of earlier turns when the API cannot verify them', async () => {
    const turn = await compactedTurn()
    const answer = fixture('reasoning-then-text.sse')
    const { adapter, replay } = setup([unverified, { body: answer, splitAt: awkwardCuts(answer) }])
    const { events, error } = await run(adapter.stream({ turns: [...ask.turns, turn, next] }))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: '**Plan** → compare' },
      { type: 'thinking', text: ' 9.11 and 9.8 é' },
      { type: 'thinking', text: '\n\nThen answer 🙂' },
      { type: 'text', text: '9.8 is larger → ' },
      { type: 'text', text: 'because 0.80 > 0.11 ✅' },
    ])
    const done = doneTurn(events)
    expect(done).toMatchObject({
      text: '9.8 is larger → because 0.80 > 0.11 ✅',
      stopReason: 'stop',
    })
    expect(done.warnings).toEqual([
      'encrypted items of earlier turns left out (2: reasoning and compaction): the API could not verify them (invalid_encrypted_content)',
    ])
    expect(replay.requests).toHaveLength(2)
    expect(inputOf(sentBody(replay, 0))).toEqual([
      ask.turns[0],
      reasoning,
      message,
      compaction,
      next,
    ])
    // The message its reasoning made goes without its id, now that the reasoning is left out.
    const { id: _id, ...unbound } = message
    const retried = sentBody(replay, 1)
    expect(inputOf(retried)).toEqual([ask.turns[0], unbound, next])
    expect(JSON.stringify(retried)).not.toContain('gAAAAABp')
    const { input: _first, ...rest } = sentBody(replay, 0)
    const { input: _second, ...same } = retried
    expect(same).toEqual(rest)
    expect(openaiRequestProblems(retried)).toEqual([])
  })

  it('recovers once only, and not when nothing encrypted was sent', async () => {
    const turn = await compactedTurn()
    const twice = setup([unverified])
    const again = await run(twice.adapter.stream({ turns: [...ask.turns, turn, next] }))
    expect(again.events).toEqual([])
    expect(again.error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect(twice.replay.requests).toHaveLength(2)

    const plain = setup([unverified])
    const fresh = await run(plain.adapter.stream(ask))
    expect(fresh.error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect(plain.replay.requests).toHaveLength(1)
  })
})
