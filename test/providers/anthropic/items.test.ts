import { describe, expect, it } from 'vitest'
import type { JsonRecord } from '../../../src/kit/json.ts'
import { mapAnthropicError } from '../../../src/providers/anthropic/map-error.ts'
import { mapStopReason, mapUsage } from '../../../src/providers/anthropic/map-finish.ts'
import { anthropicPricing } from '../../../src/providers/anthropic/prices.ts'
import { costOf } from '../../../src/core/pricing.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { doneTurn } from '../../helpers/stream.ts'
import { fixture, fixtureNames, replayOnce, sdkFinalMessage, type SdkMessage } from './harness.ts'

/** The `data` of each event of an SSE fixture (every fixture writes one line of data per event). */
function recordedEvents(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>)
}

/**
 * The ids of the calls that a recording's output limit or refusal cut off: blocks with an input
 * whose `input_json_delta`s do not make JSON, or that never got their `content_block_stop`.
 */
function cutCallIds(body: string): Set<unknown> {
  const blocks = new Map<unknown, { id: unknown; json: string; stopped: boolean }>()
  let stop: unknown
  for (const event of recordedEvents(body)) {
    const block = event['content_block'] as Record<string, unknown> | undefined
    const delta = event['delta'] as Record<string, unknown> | undefined
    if (event['type'] === 'content_block_start' && block !== undefined && 'input' in block)
      blocks.set(event['index'], { id: block['id'], json: '', stopped: false })
    const open = blocks.get(event['index'])
    if (event['type'] === 'content_block_delta' && open !== undefined)
      open.json += String(delta?.['partial_json'] ?? '')
    if (event['type'] === 'content_block_stop' && open !== undefined) open.stopped = true
    if (event['type'] === 'message_delta') stop = delta?.['stop_reason']
  }
  if (stop !== 'max_tokens' && stop !== 'model_context_window_exceeded' && stop !== 'refusal')
    return new Set()
  const parses = (json: string) => {
    try {
      JSON.parse(json)
      return true
    } catch {
      return json.trim() === ''
    }
  }
  return new Set([...blocks.values()].filter((b) => !b.stopped || !parses(b.json)).map((b) => b.id))
}

/**
 * What the items of a recording must be, from the SDK's reading of it: its content blocks, less
 * the calls cut off and any block answering one, less what the API refuses back (text blocks
 * without text; in a turn the output limit cut, thinking without a signature; in any turn not
 * paused, the thinking it ends with), then the message's container when it has one. Undefined
 * (no items) when no block is left.
 */
function expectedItems(message: SdkMessage, body: string): unknown[] | undefined {
  const cut = cutCallIds(body)
  const limited = ['max_tokens', 'model_context_window_exceeded'].includes(
    String(message.stop_reason),
  )
  const content = (JSON.parse(JSON.stringify(message.content)) as Record<string, unknown>[]).filter(
    (block) =>
      !cut.has(block['id']) &&
      !cut.has(block['tool_use_id']) &&
      !(block['type'] === 'text' && block['text'] === '') &&
      !(limited && block['type'] === 'thinking' && !block['signature']),
  )
  const thinking = (block: Record<string, unknown> | undefined) =>
    block?.['type'] === 'thinking' || block?.['type'] === 'redacted_thinking'
  if (message.stop_reason !== 'pause_turn') while (thinking(content.at(-1))) content.pop()
  if (content.length === 0) return undefined
  return message.container == null
    ? content
    : [...content, { type: 'thinkwire_container', container: message.container }]
}

describe('anthropic items against the SDK', () => {
  it('has fixtures with citations, server tools, redacted thinking, unknown blocks and deltas', () => {
    expect(fixtureNames()).toEqual(
      expect.arrayContaining([
        'citations.sse',
        'server-tool.sse',
        'redacted-thinking.sse',
        'unknown-types.sse',
        'parallel-tools.sse',
        'tool-cut-off.sse',
        'parallel-cut-off.sse',
        'refusal-cut-tool.sse',
        'pause-turn.sse',
        'compaction.sse',
        'interleaved-thinking.sse',
        'mid-stream-error.sse',
        'thinking-cut-off.sse',
        'thinking-cut-inside.sse',
        'stop-sequence-at-once.sse',
        'compatible-tool-input.sse',
        'web-fetch.sse',
        'compaction-summary.sse',
      ]),
    )
  })

  it('finds the cut-off calls of the recordings that have them, and none elsewhere', () => {
    expect(cutCallIds(fixture('tool-cut-off.sse'))).toEqual(new Set(['toolu_01Save']))
    expect(cutCallIds(fixture('parallel-cut-off.sse'))).toEqual(new Set(['toolu_02Oslo']))
    expect(cutCallIds(fixture('refusal-cut-tool.sse'))).toEqual(new Set(['toolu_01Scan']))
    expect(cutCallIds(fixture('pause-turn.sse'))).toEqual(new Set())
  })

  for (const name of fixtureNames()) {
    // The beta reader: it knows every block and delta the API sends (a compaction's summary too).
    it(`gives what finalMessage() gives for ${name}: the same content byte for byte (less calls cut off, plus the container), usage and stop reason`, async () => {
      const body = fixture(name)
      const sdk = await sdkFinalMessage(body, 'beta')
      const { events, error } = await replayOnce(body)
      if (!sdk.ok) {
        // The SDK fails the stream: the adapter fails it with the same error, mapped alike.
        expect(events.some((e) => e.type === 'done')).toBe(false)
        const expected = mapAnthropicError(sdk.error)
        expect(error).toMatchObject({ kind: expected.kind, message: expected.message })
        expect((error as Error).cause).toEqual(sdk.error)
        return
      }
      expect(error).toBeUndefined()
      const turn = doneTurn(events)
      const expected = expectedItems(sdk.message, body)
      if (expected === undefined) expect(turn.items).toBeUndefined()
      else {
        const content = JSON.stringify(expected)
        expect(turn.items?.data).toEqual(JSON.parse(content))
        // Key order too, so a replayed turn is the same bytes whichever reader made it.
        expect(JSON.stringify(turn.items?.data)).toBe(content)
      }
      const counts = mapUsage(sdk.message.usage as unknown as JsonRecord)
      // Claude Sonnet 5's prices: the cost is worked out from the same counts.
      const cost = costOf(counts, anthropicPricing('claude-sonnet-5')!)
      expect(turn.usage).toEqual({ ...counts, cost })
      expect(turn.stopReason).toBe(mapStopReason(sdk.message.stop_reason))
    })
  }

  it('keeps unknown block types as sent and ignores unknown deltas, without failing', async () => {
    const { events, error } = await replayOnce(fixture('unknown-types.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Done ✅.' }])
    expect(doneTurn(events).items?.data).toEqual([
      { type: 'container_upload', file_id: 'file_01Fixture' },
      { type: 'progress_note', note: '', meta: { step: 1, tags: ['a', 'b'] } },
      { type: 'text', text: 'Done ✅.', citations: null },
    ])
  })

  it('appends citations to their text block, starting a list where the block had none', async () => {
    const { events } = await replayOnce(fixture('citations.sse'))
    const data = doneTurn(events).items?.data as { text: string; citations: { type: string }[] }[]
    expect(data.map((block) => block.text)).toEqual([
      'According to the report, revenue grew 12% 📈.',
      ' Costs were flat.',
    ])
    expect(data.map((block) => block.citations.map((c) => c.type))).toEqual([
      ['char_location', 'page_location'],
      ['content_block_location', 'char_location'],
    ])
  })

  it('assembles the input of any block that has one, where this SDK would keep the empty start', async () => {
    // The beta `mcp_tool_use` block: the non-beta SDK tracks input only for tool_use and
    // server_tool_use and would keep `input: {}`; the adapter keeps what the model sent.
    const body = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_mcp',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 9, output_tokens: 1 },
          },
        },
      ],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: {
            type: 'mcp_tool_use',
            id: 'mcptoolu_1',
            name: 'lookup',
            server_name: 'wiki',
            input: {},
          },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"q": "Osl' },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: 'o"}' },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 7 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ])
    const sdk = await sdkFinalMessage(body)
    expect(sdk.ok && sdk.message.content[0]).toMatchObject({ type: 'mcp_tool_use', input: {} })
    const { events } = await replayOnce(body)
    expect(events.map((e) => e.type)).toEqual(['done'])
    expect(doneTurn(events).items?.data).toEqual([
      {
        type: 'mcp_tool_use',
        id: 'mcptoolu_1',
        name: 'lookup',
        server_name: 'wiki',
        input: { q: 'Oslo' },
      },
    ])
  })

  it('streams every client tool call of a parallel step, an empty or missing input as {}', async () => {
    const { events } = await replayOnce(fixture('parallel-tools.sse'))
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: 'toolu_01Paris', name: 'get_weather', input: { city: 'Paris', note: 'été ☀' } },
      },
      {
        type: 'tool-call',
        call: { id: 'toolu_02Oslo', name: 'get_weather', input: { city: 'Oslo' } },
      },
      { type: 'tool-call', call: { id: 'toolu_03Clock', name: 'get_time', input: {} } },
      { type: 'tool-call', call: { id: 'toolu_04Nothing', name: 'get_time', input: {} } },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.usage).toEqual({
      inputTokens: 820,
      outputTokens: 140,
      cacheReadTokens: 400,
      cacheWriteTokens: 0,
      reasoningTokens: 9,
      // Sonnet 5: 420 × $2 + 400 × $0.20 + 140 × $10 = 2,320 micro-dollars.
      cost: 0.00232,
    })
    // The items and the tool calls are separate objects: editing one cannot change the other.
    const block = turn.items!.data[1] as { input: unknown }
    expect(block.input).toEqual(turn.toolCalls![0]!.input)
    expect(block.input).not.toBe(turn.toolCalls![0]!.input)
  })

  it('reads a compaction summary that the non-beta SDK reader would leave null', async () => {
    const body = fixture('compaction.sse')
    const plain = await sdkFinalMessage(body)
    expect(plain.ok && plain.message.content[0]).toEqual({ type: 'compaction', content: null })
    const { events } = await replayOnce(body)
    expect(doneTurn(events).items?.data[0]).toEqual({
      type: 'compaction',
      content: 'Summary → the user is planning a trip to Kraków 🇵🇱; flights booked, hotel pending.',
      encrypted_content: 'EsYDCkYICompactionFixture==',
    })
  })
})
