import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { inputOf, responseOf, responseStream, sentBody, setup } from './harness.ts'

const computer = { type: 'computer_use_preview', display_width: 1024, display_height: 768 }
const options = { providerOptions: { openai: { tools: [computer] } } }
const ask: Conversation = { turns: [{ role: 'user', content: 'Open the café menu.' }] }

const message = {
  id: 'msg_first',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'Looking at the screen → ', annotations: [] }],
}
const reasoning = {
  id: 'rs_click',
  type: 'reasoning',
  summary: [],
  encrypted_content: 'gAAAAABpClickEncrypted==',
}
const click = {
  id: 'cu_click',
  type: 'computer_call',
  call_id: 'call_Click1',
  action: { type: 'click', button: 'left', x: 312, y: 96 },
  pending_safety_checks: [],
  status: 'completed',
}

/** A response whose output is `items`, each streamed as added and done. */
function answer(items: object[]): string {
  return responseStream([
    { type: 'response.created', response: responseOf('in_progress', []) },
    ...items.flatMap((item, output_index) => [
      { type: 'response.output_item.added', output_index, item },
      { type: 'response.output_item.done', output_index, item },
    ]),
    { type: 'response.completed', response: responseOf('completed', items) },
  ])
}

describe("openai: calls of the API's client-run tools (computer use, shell, apply_patch)", () => {
  it('are kept in items, and left out of the next request with the reasoning that made them, since nothing answers them', async () => {
    const { adapter, replay } = setup([
      { body: answer([message, reasoning, click]) },
      { body: answer([{ ...message, id: 'msg_next' }]) },
    ])
    const first = await run(adapter.stream(ask, options))
    expect(first.error).toBeUndefined()
    const turn = doneTurn(first.events)
    expect(turn.items?.data).toEqual([message, reasoning, click])
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([
      "computer_call call_Click1 kept in items only: nothing here runs the API's client-run tools, and later requests leave it out",
    ])

    const next = await run(
      adapter.stream(
        { turns: [...ask.turns, turn, { role: 'user', content: 'Never mind.' }] },
        options,
      ),
    )
    expect(next.error).toBeUndefined()
    const sent = sentBody(replay, 1)
    // Sent as stored, the click would be refused: "No tool output found for computer call".
    expect(inputOf(sent)).toEqual([ask.turns[0], message, { role: 'user', content: 'Never mind.' }])
    expect(openaiRequestProblems(sent)).toEqual([])
    expect(doneTurn(next.events).warnings).toEqual([
      'computer_call call_Click1 left out: no output answers it, and the API refuses a call without one',
    ])
  })
})
