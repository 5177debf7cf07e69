import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../../../src/core/errors.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { cutsThatDiffer, doneTurn, run } from '../../helpers/stream.ts'
import { fixture, fixtureNames, replayOnce, setup } from './harness.ts'

describe('anthropic stream', () => {
  it('streams thinking, text and a tool call whose input was split inside a string and a \\u escape', async () => {
    const { events, error } = await replayOnce(fixture('thinking-then-tool.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'The user wants the weather in Paris → ' },
      { type: 'thinking', text: 'I should call get_weather. Café é 🙂' },
      { type: 'text', text: 'Checking the weather → ' },
      { type: 'text', text: 'one moment 🌦️.' },
      {
        type: 'tool-call',
        call: {
          id: 'toolu_01Weather',
          name: 'get_weather',
          input: { city: 'Paris', note: 'café → ok' },
        },
      },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: 'Checking the weather → one moment 🌦️.',
      thinking: 'The user wants the weather in Paris → I should call get_weather. Café é 🙂',
      toolCalls: [
        { id: 'toolu_01Weather', name: 'get_weather', input: { city: 'Paris', note: 'café → ok' } },
      ],
      stopReason: 'tool-calls',
      usage: {
        inputTokens: 200,
        outputTokens: 96,
        cacheReadTokens: 50,
        cacheWriteTokens: 30,
        reasoningTokens: 40,
      },
    })
    // Plain JSON, as the provider sent it: no SDK getters, hidden fields or class instances.
    expect(isPlainJson(turn.items)).toBe(true)
    expect(turn.items).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-5',
      thinkingMode: 'default',
      data: [
        {
          type: 'thinking',
          thinking: 'The user wants the weather in Paris → I should call get_weather. Café é 🙂',
          signature: 'EqQBCkYIAxgCKkBsigThinkingToolFixture+/==',
        },
        { type: 'text', text: 'Checking the weather → one moment 🌦️.' },
        {
          type: 'tool_use',
          id: 'toolu_01Weather',
          name: 'get_weather',
          input: { city: 'Paris', note: 'café → ok' },
          caller: { type: 'direct' },
        },
      ],
    })
  })

  it('shows nothing for an omitted-display thinking block but keeps it, signature and all, in the items', async () => {
    const { events } = await replayOnce(fixture('omitted-thinking.sse'))
    expect(events.filter((e) => e.type === 'thinking')).toEqual([])
    const turn = doneTurn(events)
    expect(turn.thinking).toBeUndefined()
    expect(turn.text).toBe('Paris is 18 °C — mild and dry ☀️.')
    expect(turn.items?.data[0]).toEqual({
      type: 'thinking',
      thinking: '',
      signature: 'EosnCkYICxIMOmittedDisplayFixture==',
    })
    expect(turn.usage).toEqual({
      inputTokens: 24,
      outputTokens: 58,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 31,
      // Sonnet 5: 24 × $2 + 58 × $10 = 628 micro-dollars.
      cost: 0.000628,
    })
  })

  it('keeps redacted thinking in the items, in its place, and shows only the readable thinking', async () => {
    const { events } = await replayOnce(fixture('redacted-thinking.sse'))
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Only part of my reasoning is visible → fine.' },
      { type: 'text', text: 'Voilà: the answer is 42 ✨' },
    ])
    expect(doneTurn(events).items?.data).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pRedactedFixture/+==' },
      {
        type: 'thinking',
        thinking: 'Only part of my reasoning is visible → fine.',
        signature: 'EqQBRedactedNeighbourSig==',
      },
      { type: 'text', text: 'Voilà: the answer is 42 ✨', citations: null },
    ])
  })

  it('keeps server tool blocks and citations in the items without showing them or calling a tool', async () => {
    const { events } = await replayOnce(fixture('server-tool.sse'))
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Résumé: clear skies → 18 °C.' }])
    const turn = doneTurn(events)
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.stopReason).toBe('stop')
    expect(turn.items?.data).toEqual([
      {
        type: 'server_tool_use',
        id: 'srvtoolu_01Search',
        name: 'web_search',
        input: { query: 'Paris météo' },
      },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_01Search',
        content: [
          {
            type: 'web_search_result',
            title: 'Météo Paris',
            url: 'https://example.com/paris',
            encrypted_content: 'ErkeCioICBgCIiSearchResultFixture==',
            page_age: null,
          },
        ],
      },
      {
        type: 'text',
        text: 'Résumé: clear skies → 18 °C.',
        citations: [
          {
            type: 'web_search_result_location',
            cited_text: 'Ciel dégagé, 18 °C',
            url: 'https://example.com/paris',
            title: 'Météo Paris',
            encrypted_index: 'EpABFixture',
          },
        ],
      },
    ])
  })

  it('ends a refused answer with a done whose stop reason is refusal, with its category and explanation', async () => {
    const { events, error } = await replayOnce(fixture('refusal.sse'))
    expect(error).toBeUndefined()
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'cyber',
      explanation: 'Blocked under the usage policy.',
    })
    expect(turn.text).toBe('I can’t help with that — sorry.')
    expect(turn.warnings).toBeUndefined()
  })

  it('gives no stop details for a turn that ended as asked', async () => {
    const { events } = await replayOnce(fixture('thinking-then-tool.sse'))
    expect(doneTurn(events).stopDetails).toBeUndefined()
  })

  it('separates interleaved thinking blocks by a paragraph break streamed as thinking', async () => {
    const { events, error } = await replayOnce(fixture('interleaved-thinking.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: "I should search for Lisbon's weather → " },
      { type: 'thinking', text: 'one query will do.' },
      { type: 'thinking', text: '\n\n' },
      { type: 'thinking', text: 'The first result says 24 °C — sunny ☀.' },
      { type: 'text', text: 'Lisbon: sunny, 24 °C.' },
    ])
    const turn = doneTurn(events)
    expect(turn.thinking).toBe(
      "I should search for Lisbon's weather → one query will do.\n\nThe first result says 24 °C — sunny ☀.",
    )
    // The blocks themselves are kept as sent: the break is only in what is shown.
    const thinking = (turn.items!.data as { type: string; thinking?: string }[]).filter(
      (block) => block.type === 'thinking',
    )
    expect(thinking.map((block) => block.thinking)).toEqual([
      "I should search for Lisbon's weather → one query will do.",
      'The first result says 24 °C — sunny ☀.',
    ])
    expect(turn.usage).toEqual({
      inputTokens: 3410,
      outputTokens: 190,
      cacheReadTokens: 1200,
      cacheWriteTokens: 0,
      reasoningTokens: 61,
      // Sonnet 5: 2,210 × $2 + 1,200 × $0.20 + 190 × $10 = 6,560 micro-dollars.
      cost: 0.00656,
    })
  })

  it('puts no break before the first thinking that shows text, nor after thinking that showed none', async () => {
    const block = (index: number, text: string) => [
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        },
      ],
      ...(text === ''
        ? []
        : [
            [
              'content_block_delta',
              {
                type: 'content_block_delta',
                index,
                delta: { type: 'thinking_delta', thinking: text },
              },
            ],
          ]),
      ['content_block_stop', { type: 'content_block_stop', index }],
    ]
    const body = withBlocks(
      [...block(0, ''), ...block(1, 'First.'), ...block(2, 'Second.')] as [string, unknown][],
      'end_turn',
    )
    const { events } = await replayOnce(body)
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'First.' },
      { type: 'thinking', text: '\n\n' },
      { type: 'thinking', text: 'Second.' },
    ])
  })

  it('keeps a compaction block whole in the items, its summary set by the compaction delta, and shows none of it', async () => {
    const { events, error } = await replayOnce(fixture('compaction.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Next: the hotel in Kraków.' }])
    const turn = doneTurn(events)
    expect(turn.thinking).toBeUndefined()
    expect(turn.items?.data).toEqual([
      {
        type: 'compaction',
        content:
          'Summary → the user is planning a trip to Kraków 🇵🇱; flights booked, hotel pending.',
        encrypted_content: 'EsYDCkYICompactionFixture==',
      },
      { type: 'text', text: 'Next: the hotel in Kraków.' },
    ])
  })

  it('throws a retryable overloaded error and yields no done when an error event arrives mid-stream', async () => {
    const { events, error } = await replayOnce(fixture('mid-stream-error.sse'))
    expect(events).toEqual([{ type: 'text', text: 'Partial answ€r' }])
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, provider: 'anthropic' })
  })

  it('ends a turn cut off inside a tool call with stop reason length and no broken tool call', async () => {
    const body = oneToolCall('{"text": "unfinish', 'max_tokens')
    const { events, error } = await replayOnce(body)
    expect(error).toBeUndefined()
    expect(events.map((e) => e.type)).toEqual(['done'])
    expect(doneTurn(events).stopReason).toBe('length')
    expect(doneTurn(events).toolCalls).toBeUndefined()
    // Nothing is left to send back: without items the turn is left out of later requests.
    expect(doneTurn(events).items).toBeUndefined()
  })

  it('fails when a tool call that was not cut off has input that is not JSON', async () => {
    const body = oneToolCall('{"text": ', 'tool_use')
    const { events, error } = await replayOnce(body)
    expect(events.some((e) => e.type === 'done' || e.type === 'tool-call')).toBe(false)
    expect(error).toMatchObject({ kind: 'server', message: expect.stringContaining("'save'") })
  })

  it('fails when a tool call never ended although the turn was not cut short', async () => {
    const body = oneToolCall('{"text": "done"}', 'tool_use').replace(
      /event: content_block_stop\n[^\n]*\n\n/,
      '',
    )
    expect(body).not.toContain('content_block_stop')
    const { events, error } = await replayOnce(body)
    expect(events.some((e) => e.type === 'done' || e.type === 'tool-call')).toBe(false)
    expect(error).toMatchObject({ kind: 'server', message: expect.stringContaining("'save'") })
  })

  it('streams a tool call once when its block is stopped twice', async () => {
    const stop = 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    const body = oneToolCall('{"text": "hi"}', 'tool_use').replace(stop, stop + stop)
    const { events } = await replayOnce(body)
    expect(events.filter((e) => e.type === 'tool-call')).toHaveLength(1)
  })

  it('ends with done at message_stop when the body stays open after it, and releases the body', async () => {
    const body = fixture('thinking-then-tool.sse')
    const { adapter, replay } = setup([
      { body, stallAfterBytes: new TextEncoder().encode(body).length },
    ])
    const { events, error } = await run(
      adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] }),
    )
    expect(error).toBeUndefined()
    expect(doneTurn(events).stopReason).toBe('tool-calls')
    expect(replay.aborted()).toBe(true)
  })

  it(
    'fails with a server error that names the bound when one event is longer than 32 Mi characters',
    { timeout: 60_000 },
    async () => {
      const start = oneToolCall('{}', 'end_turn').split('event: content_block_start')[0]!
      const huge = sse([
        [
          'content_block_delta',
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: 'a'.repeat(33 * 1024 * 1024) },
          },
        ],
      ])
      // As a network delivers it: in pieces, so the parser has to hold the unfinished event.
      const body = start + huge
      const splitAt = Array.from({ length: 40 }, (_, i) => (i + 1) * 1024 * 1024)
      const { events, error } = await replayOnce(body, splitAt)
      expect(events).toEqual([])
      expect(error).toMatchObject({
        kind: 'server',
        provider: 'anthropic',
        message: 'anthropic: an event of the stream is longer than 33554432 characters',
      })
    },
  )

  for (const name of fixtureNames()) {
    it(`yields the same events for ${name} in one read, an event per read, and cut inside lines and characters`, async () => {
      const body = fixture(name)
      const { cuts, differs } = await cutsThatDiffer(body, (splitAt) => replayOnce(body, splitAt))
      expect(cuts).toEqual(expect.arrayContaining(['an event per read', 'each line cut in two']))
      expect(differs).toEqual([])
    })
  }
})

/** True when `value` is made only of plain objects, arrays and primitives, with no hidden or computed fields. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function'
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== Array.prototype) return false
  return Object.entries(Object.getOwnPropertyDescriptors(value)).every(
    ([key, d]) =>
      (Array.isArray(value) && key === 'length') ||
      (d.enumerable === true && 'value' in d && d.get === undefined && isPlainJson(d.value)),
  )
}

/** A stream whose only block is a `save` tool call with `partialJson` as its input. */
function oneToolCall(partialJson: string, stopReason: string): string {
  return withBlocks(
    [
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'save', input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: partialJson },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ],
    stopReason,
  )
}

/** A whole message stream around the given block events. */
function withBlocks(blocks: [string, unknown][], stopReason: string): string {
  return sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_tool',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
    ],
    ...blocks,
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 16 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])
}
