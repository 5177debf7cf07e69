import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import {
  fixture,
  inputOf,
  replayOnce,
  responseOf,
  responseStream,
  sentBody,
  setup,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Weather in Lyon today?' }] }

describe('openai: commentary (preamble) messages', () => {
  it('streams a commentary message as thinking and keeps it out of the answer', async () => {
    const { events, error } = await replayOnce(fixture('commentary-web-search-citations.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, 3)).toEqual([
      { type: 'thinking', text: 'Let me check ' },
      { type: 'thinking', text: 'today’s forecast.' },
      { type: 'text', text: 'Lyon: sunny 🌤 and 31 °C' },
    ])
    const turn = doneTurn(events)
    expect(turn.thinking).toBe('Let me check today’s forecast.')
    expect(turn.text).not.toContain('Let me check')
    expect(turn.text.startsWith('Lyon: sunny 🌤 and 31 °C today.')).toBe(true)
    expect(turn.stopReason).toBe('stop')
    // The preamble stays in the items with its phase, and the server tool call stays items-only.
    expect(turn.items?.data.map((item) => (item as { type: string }).type)).toEqual([
      'message',
      'web_search_call',
      'message',
    ])
    expect(turn.items?.data[0]).toMatchObject({ id: 'msg_pre1', phase: 'commentary' })
    expect(turn.toolCalls).toBeUndefined()
  })

  it('replays the commentary message with its phase, the web search call and the answer verbatim', async () => {
    const { adapter, replay } = setup([{ body: fixture('commentary-web-search-citations.sse') }])
    const turn = doneTurn((await run(adapter.stream(ask))).events)
    await run(
      adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Tomorrow?' }] }),
    )
    const sent = inputOf(sentBody(replay))
    expect(JSON.stringify(sent.slice(1, 4))).toBe(JSON.stringify(turn.items!.data))
    expect(sent[1]).toMatchObject({ phase: 'commentary' })
    expect(sent[3]).toMatchObject({ phase: 'final_answer' })
  })

  it('puts a paragraph break between reasoning and the commentary after it', async () => {
    const commentary = {
      id: 'msg_c',
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      phase: 'commentary',
      content: [],
    }
    const answer = { ...commentary, id: 'msg_a', phase: 'final_answer' }
    const text = (output_index: number, delta: string) => ({
      type: 'response.output_text.delta',
      item_id: 'm',
      output_index,
      content_index: 0,
      delta,
    })
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs',
        output_index: 0,
        summary_index: 0,
        delta: 'Plan it.',
      },
      { type: 'response.output_item.added', output_index: 1, item: commentary },
      text(1, 'Checking first.'),
      { type: 'response.output_item.added', output_index: 2, item: answer },
      text(2, 'Sunny.'),
      { type: 'response.completed', response: responseOf('completed', []) },
    ])
    const { events } = await replayOnce(body)
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Plan it.' },
      { type: 'thinking', text: '\n\nChecking first.' },
      { type: 'text', text: 'Sunny.' },
    ])
  })

  it('leaves the commentary out when another model gets the turn re-encoded from its text', async () => {
    const { adapter } = setup([{ body: fixture('commentary-web-search-citations.sse') }])
    const turn = doneTurn((await run(adapter.stream(ask))).events)
    const other = setup([{ body: fixture('refusal.sse') }], { model: 'gpt-5-mini' })
    await run(
      other.adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Ok' }] }),
    )
    expect(inputOf(sentBody(other.replay))).toEqual([
      ask.turns[0],
      { role: 'assistant', content: turn.text },
      { role: 'user', content: 'Ok' },
    ])
  })
})
