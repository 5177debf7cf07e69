import { describe, expect, it } from 'vitest'
import { sse } from '../../helpers/replay-fetch.ts'
import { doneTurn } from '../../helpers/stream.ts'
import { replayOnce, sdkFinalMessage } from './harness.ts'

/** A server tool's input with every kind of JSON value in it. */
const INPUT = '{"q": "Kraków \\"old\\" ☀", "n": [1, -2.5e3], "ok": true, "x": null, "o": {}}'

/**
 * A paused message whose one block, a `server_tool_use`, got `json` as its input and was never
 * stopped: a block the adapter keeps as the SDK reads it.
 */
function pausedInside(json: string): string {
  const block = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }
  const message = {
    id: 'msg_cut',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 9, output_tokens: 1 },
  }
  const delta = { type: 'input_json_delta', partial_json: json }
  return sse([
    ['message_start', { type: 'message_start', message }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'pause_turn', stop_sequence: null },
        usage: { output_tokens: 7 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])
}

/** The input the SDK's `finalMessage()` reads for the block; undefined where the SDK throws. */
async function sdkInput(json: string): Promise<unknown> {
  const read = await sdkFinalMessage(pausedInside(json))
  if (!read.ok) return undefined
  try {
    return JSON.parse(JSON.stringify(read.message.content[0]))['input'] as unknown
  } catch {
    return undefined
  }
}

describe('anthropic: the input of a block the stream left unfinished', () => {
  it('is read as the SDK reads it, wherever the input was cut', async () => {
    let compared = 0
    for (let end = 1; end < INPUT.length; end++) {
      const json = INPUT.slice(0, end)
      const expected = await sdkInput(json)
      const { events, error } = await replayOnce(pausedInside(json))
      expect(error, json).toBeUndefined()
      const block = doneTurn(events).items?.data[0] as { input: unknown }
      if (expected === undefined) {
        // Nothing the SDK can read (a lone `-`): the adapter keeps an empty input.
        expect(block.input, json).toEqual({})
        continue
      }
      expect(block.input, json).toEqual(expected)
      compared++
    }
    // Every cut but the few the SDK cannot read was compared with the SDK.
    expect(compared).toBeGreaterThan(INPUT.length - 5)
  })
})
