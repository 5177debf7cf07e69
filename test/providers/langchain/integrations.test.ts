/**
 * `fromLangChain` on the real LangChain integrations for Anthropic and OpenAI, each on its own
 * SDK with a replaying fetch: what the provider signed or encrypted goes back to the same model
 * on the next request, never to another one, and a call cut off by the output limit is never
 * replayed.
 */
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatOpenAI } from '@langchain/openai'
import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { completeJson } from '../../../src/core/complete-json.ts'
import { fromLangChain } from '../../../src/providers/langchain/index.ts'
import { replayFetch, sse, type ReplayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'
import { collect, cutsOf, doneTurn } from '../../helpers/stream.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in Paris?' }] }

const SIGNATURE = 'EqQBCkYIAxgCKkLangChainSigned+/=='
const ENCRYPTED = 'gAAAAABpLangChainEncrypted=='

/**
 * An Anthropic stream: signed thinking, a sentence, then a `get_weather` call, whole when the
 * model stopped for it, else cut off half-way by `stop`.
 */
function anthropicStream(
  stop: 'tool_use' | 'max_tokens' | 'model_context_window_exceeded' = 'tool_use',
): string {
  const input = stop === 'tool_use' ? ['{"city": "Pa', 'ris"}'] : ['{"city": "Pa']
  return sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_lc',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 21, output_tokens: 1 },
        },
      },
    ],
    [
      'content_block_start',
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Wetter → Werkzeug. ' },
      },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: SIGNATURE },
      },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'content_block_start',
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'text_delta', text: 'Einen Moment.' },
      },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    [
      'content_block_start',
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_lc', name: 'get_weather', input: {} },
      },
    ],
    ...input.map((part): [string, unknown] => [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: part },
      },
    ]),
    ...(stop === 'tool_use'
      ? [['content_block_stop', { type: 'content_block_stop', index: 2 }] as [string, unknown]]
      : []),
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 40 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])
}

const anthropicText = (text: string) =>
  sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_lc2',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 30, output_tokens: 1 },
        },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ])

/** ChatAnthropic on a replaying fetch. */
function claude(specs: ReplaySpec[], model = 'claude-sonnet-4-5') {
  const replay = replayFetch(specs)
  const chat = new ChatAnthropic({
    model,
    apiKey: 'sk-ant-test-key-0123456789',
    maxTokens: 4096,
    thinking: { type: 'enabled', budget_tokens: 2048 },
    clientOptions: { fetch: replay.fetch },
  })
  return { adapter: fromLangChain(chat), replay }
}

function body(replay: ReplayFetch, index: number): Record<string, unknown> {
  return replay.requests[index]?.body as Record<string, unknown>
}

describe('fromLangChain on ChatAnthropic', () => {
  it('replays signed thinking to the same model and leaves it out for another', async () => {
    const { adapter, replay } = claude([
      { body: anthropicStream(), splitAt: [97, 400, 401, 902] },
      { body: anthropicText('Sonnig.') },
    ])
    expect(adapter.provider).toBe('langchain-anthropic')
    const events = await collect(adapter.stream(ask))
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Wetter → Werkzeug. ' },
      { type: 'text', text: 'Einen Moment.' },
      {
        type: 'tool-call',
        call: { id: 'toolu_lc', name: 'get_weather', input: { city: 'Paris' } },
      },
    ])
    const first = doneTurn(events)
    expect(first.stopReason).toBe('tool-calls')

    const next: Conversation = {
      turns: [
        ...ask.turns,
        first,
        { role: 'tool', results: [{ callId: 'toolu_lc', name: 'get_weather', output: 'sonnig' }] },
      ],
    }
    // The first turn went through JSON storage, as a saved conversation does.
    const stored = JSON.parse(JSON.stringify(next)) as Conversation
    expect(doneTurn(await collect(adapter.stream(stored))).text).toBe('Sonnig.')
    const messages = body(replay, 1)['messages'] as { role: string; content: unknown }[]
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Wetter → Werkzeug. ', signature: SIGNATURE },
        { type: 'text', text: 'Einen Moment.' },
        expect.objectContaining({
          type: 'tool_use',
          id: 'toolu_lc',
          name: 'get_weather',
          input: { city: 'Paris' },
        }),
      ],
    })
    expect(messages[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_lc', content: 'sonnig' }],
    })

    // Another model gets the turn's text and call, never its signature.
    const other = claude([{ body: anthropicText('Sonnig.') }], 'claude-opus-4-5')
    await collect(other.adapter.stream(stored))
    const sent = JSON.stringify(body(other.replay, 0)['messages'])
    expect(sent).not.toContain(SIGNATURE)
    expect(sent).toContain('toolu_lc')
  })

  it.each(['max_tokens', 'model_context_window_exceeded'] as const)(
    'never runs or replays a tool call that a %s stop cut off',
    async (stop) => {
      const stream = anthropicStream(stop)
      // The same events at every cut: an event per read, mid-line, mid-character.
      const cuts = await Promise.all(
        cutsOf(stream).map(async ({ splitAt }) => {
          const { adapter } = claude([{ body: stream, splitAt }])
          return collect(adapter.stream(ask))
        }),
      )
      const { adapter, replay } = claude([{ body: stream }, { body: anthropicText('Weiter.') }])
      const events = await collect(adapter.stream(ask))
      for (const cut of cuts) expect(cut).toEqual(events)
      expect(events.filter((e) => e.type !== 'done')).toEqual([
        { type: 'thinking', text: 'Wetter → Werkzeug. ' },
        { type: 'text', text: 'Einen Moment.' },
      ])
      const turn = doneTurn(events)
      expect(turn).toMatchObject({ text: 'Einen Moment.', stopReason: 'length' })
      expect(turn.toolCalls).toBeUndefined()
      expect(turn.warnings).toEqual([
        'tool call get_weather: cut off before its arguments were complete; dropped',
      ])
      expect(JSON.stringify(turn.items)).not.toContain('toolu_lc')

      await collect(
        adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Und?' }] }),
      )
      expect(body(replay, 1)['messages']).toEqual([
        { role: 'user', content: 'Wie ist das Wetter in Paris?' },
        { role: 'assistant', content: 'Einen Moment.' },
        { role: 'user', content: 'Und?' },
      ])
    },
  )

  it('asks for JSON by instruction and passes stop sequences', async () => {
    const { adapter, replay } = claude([
      { body: anthropicText('Hier, bitte [siehe unten]: {"city": "Paris", "temp": 21}') },
    ])
    const { value } = await completeJson(adapter, ask, {
      jsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
      stop: ['ENDE'],
    })
    expect(value).toEqual({ city: 'Paris', temp: 21 })
    const sent = body(replay, 0)
    expect(sent['system']).toContain('Answer with one JSON value only')
    expect(sent['system']).toContain('"city"')
    expect(sent['stop_sequences']).toEqual(['ENDE'])
  })
})

/** A Responses API stream: an encrypted reasoning item, then one function call. */
function openaiStream(): string {
  const reasoning = {
    id: 'rs_lc',
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Werkzeug nötig.' }],
    encrypted_content: ENCRYPTED,
  }
  const call = {
    id: 'fc_lc',
    type: 'function_call',
    status: 'completed',
    arguments: '{"city":"Paris"}',
    call_id: 'call_lc',
    name: 'get_weather',
  }
  const response = (status: string, output: unknown[]) => ({
    id: 'resp_lc',
    object: 'response',
    created_at: 1767225600,
    status,
    model: 'gpt-5',
    output,
    usage:
      status === 'completed'
        ? {
            input_tokens: 50,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 12 },
            total_tokens: 70,
          }
        : null,
  })
  const events: [string, unknown][] = [
    ['response.created', { type: 'response.created', response: response('in_progress', []) }],
    [
      'response.output_item.added',
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'rs_lc', type: 'reasoning', summary: [] },
      },
    ],
    [
      'response.reasoning_summary_text.delta',
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_lc',
        output_index: 0,
        summary_index: 0,
        delta: 'Werkzeug nötig.',
      },
    ],
    [
      'response.output_item.done',
      { type: 'response.output_item.done', output_index: 0, item: reasoning },
    ],
    [
      'response.output_item.added',
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: { ...call, status: 'in_progress', arguments: '' },
      },
    ],
    [
      'response.function_call_arguments.delta',
      {
        type: 'response.function_call_arguments.delta',
        item_id: 'fc_lc',
        output_index: 1,
        delta: '{"city":"Paris"}',
      },
    ],
    [
      'response.output_item.done',
      { type: 'response.output_item.done', output_index: 1, item: call },
    ],
    [
      'response.completed',
      { type: 'response.completed', response: response('completed', [reasoning, call]) },
    ],
  ]
  return events
    .map(
      ([event, data], i) =>
        `event: ${event}\ndata: ${JSON.stringify({ ...(data as object), sequence_number: i })}\n\n`,
    )
    .join('')
}

describe('fromLangChain on ChatOpenAI (Responses API)', () => {
  it('replays the encrypted reasoning item ahead of its function call', async () => {
    const replay = replayFetch([
      { body: openaiStream(), splitAt: [64, 333] },
      { body: openaiStream() },
    ])
    const chat = new ChatOpenAI({
      model: 'gpt-5',
      apiKey: 'sk-test-key-0123456789',
      useResponsesApi: true,
      reasoning: { effort: 'high', summary: 'auto' },
      configuration: { fetch: replay.fetch },
    })
    const adapter = fromLangChain(chat)
    expect(adapter.provider).toBe('langchain-openai')
    const events = await collect(adapter.stream(ask))
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Werkzeug nötig.' },
      { type: 'tool-call', call: { id: 'call_lc', name: 'get_weather', input: { city: 'Paris' } } },
    ])
    const first = doneTurn(events)
    const stored = JSON.parse(
      JSON.stringify({
        turns: [
          ...ask.turns,
          first,
          { role: 'tool', results: [{ callId: 'call_lc', name: 'get_weather', output: 'sonnig' }] },
        ],
      }),
    ) as Conversation
    await collect(adapter.stream(stored))
    const input = body(replay, 1)['input'] as Record<string, unknown>[]
    expect(input.map((item) => item['type'])).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ])
    expect(input[1]).toMatchObject({ id: 'rs_lc', encrypted_content: ENCRYPTED })
    expect(input[2]).toMatchObject({ call_id: 'call_lc', name: 'get_weather' })
  })
})
