import { describe, expect, it } from 'vitest'
import type { Conversation, ToolTurn } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import { awkwardCuts, fixture, inputOf, sentBody, setup } from './harness.ts'

/** A fine-tuned reasoning model: an id the model table does not know. */
const FINE_TUNED = 'ft:o4-mini-2025-04-16:acme::tw1'
const tools = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
]
const ask: Conversation = { turns: [{ role: 'user', content: 'Weather in Zürich?' }] }
const zurich = { id: 'call_Zurich1', name: 'get_weather', input: { city: 'Zürich', unit: '°C' } }
const answered: ToolTurn = {
  role: 'tool',
  results: [{ callId: 'call_Zurich1', name: 'get_weather', output: '4 °C' }],
}

describe('openai: a model the table does not know', () => {
  it('sends the call after a reasoning item it cannot replay without its item id, so the next tool step is taken', async () => {
    const body = fixture('unlisted-reasoning-then-function-call.sse')
    const { adapter, replay } = setup(
      [{ body, splitAt: awkwardCuts(body) }, { body: fixture('reasoning-then-text.sse') }],
      { model: FINE_TUNED },
    )
    const first = await run(adapter.stream(ask, { tools }))
    expect(first.error).toBeUndefined()
    expect(first.events.slice(0, -1)).toEqual([{ type: 'tool-call', call: zurich }])
    const turn = doneTurn(first.events)
    expect(turn).toMatchObject({ stopReason: 'tool-calls', toolCalls: [zurich] })
    // The provider's records stay as it sent them, ids included.
    expect(turn.items?.data).toEqual([
      { id: 'rs_unlisted1', type: 'reasoning', summary: [] },
      expect.objectContaining({ id: 'fc_unlisted1', call_id: 'call_Zurich1' }),
    ])

    const second = await run(adapter.stream({ turns: [...ask.turns, turn, answered] }, { tools }))
    expect(second.error).toBeUndefined()
    const sent = sentBody(replay, 1)
    // With store: false a reasoning item without encrypted_content cannot be sent, and the API
    // refuses the call it made when the call keeps its fc_ id ("provided without its required
    // 'reasoning' item"): call_id alone pairs the call with its output.
    expect(inputOf(sent)).toEqual([
      ask.turns[0],
      {
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Zürich","unit":"°C"}',
        call_id: 'call_Zurich1',
        name: 'get_weather',
      },
      { type: 'function_call_output', call_id: 'call_Zurich1', output: '4 °C' },
    ])
    expect(JSON.stringify(sent)).not.toContain('fc_unlisted1')
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('keeps the item ids after a reasoning item it replays', async () => {
    const { adapter, replay } = setup([
      { body: fixture('reasoning-then-function-calls.sse') },
      { body: fixture('reasoning-then-text.sse') },
    ])
    const turn = doneTurn((await run(adapter.stream(ask, { tools }))).events)
    await run(
      adapter.stream(
        {
          turns: [
            ...ask.turns,
            turn,
            {
              role: 'tool',
              results: [
                { callId: 'call_Paris1', name: 'get_weather', output: '18' },
                { callId: 'call_Tokyo2', name: 'get_weather', output: '21' },
              ],
            },
          ],
        },
        { tools },
      ),
    )
    expect(inputOf(sentBody(replay)).slice(1, 4)).toEqual(turn.items!.data)
  })
})
