/**
 * The Responses encoder's frames: the events of each delta, their sequence numbers and indices,
 * the items the stream ends with, a failure after the first event, and the non-streamed Response.
 */
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import type { StreamDelta } from '../../../src/relay/dialects.ts'
import {
  createResponsesEncoder,
  readSealedContent,
  responseBody,
  responseError,
  responseObject,
  type ResponseMeta,
} from '../../../src/relay/openai-responses/index.ts'
import { parseSse } from '../sse-reader.ts'

const meta: ResponseMeta = {
  id: 'resp_0123456789abcdef01234567',
  createdAt: 1_700_000_000,
  model: 'anthropic/claude-sonnet-4-5',
  echo: {
    instructions: 'Be brief.',
    max_output_tokens: null,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    reasoning: { effort: 'high', summary: null },
    text: { format: { type: 'text' } },
    metadata: {},
  },
}
const id = (prefix: string, index: number) => `${prefix}_0123456789abcdef01234567_${index}`

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'Checking "both"\n— one moment.',
  thinking: 'Weather and time: two tools.',
  toolCalls: [
    { id: 'toolu_01', name: 'weather', input: { city: 'Paris' } },
    { id: 'toolu_02', name: 'time', input: {} },
  ],
  usage: { inputTokens: 120, outputTokens: 80, reasoningTokens: 30, cacheReadTokens: 64 },
  stopReason: 'tool-calls',
  items: {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    thinkingMode: 'high',
    data: [{ type: 'thinking', thinking: 'Weather and time', signature: 'EqQB+/=' }],
    seal: 's1.AAAAAAAA.mac',
  },
}
const deltas: StreamDelta[] = [
  { type: 'thinking', text: 'Weather and time: ' },
  { type: 'thinking', text: '' },
  { type: 'thinking', text: 'two tools.' },
  { type: 'text', text: 'Checking "both"\n' },
  { type: 'text', text: '— one moment.' },
  { type: 'tool-call', call: turn.toolCalls![0]! },
  { type: 'tool-call', call: turn.toolCalls![1]! },
]

type Data = { type: string; sequence_number: number; [key: string]: unknown }

/** The events of a whole stream, checked for framing: one JSON data line, its type as the event. */
function frames(text: string): Data[] {
  const { events } = parseSse(text)
  return events.map((event) => {
    const data = JSON.parse(event.data) as Data
    expect(data.type).toBe(event.event)
    return data
  })
}

function encodeAll(events: Event[]): string {
  const encode = createResponsesEncoder(meta)
  return events
    .map((event) => (event.type === 'done' ? encode.done(event.turn) : encode.delta(event)))
    .join('')
}

describe('createResponsesEncoder', () => {
  it('streams thinking, text and tool calls as items, numbered in order, then the completed Response', () => {
    const events = frames(encodeAll([...deltas, { type: 'done', turn }]))
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events[0]).toMatchObject({
      response: { id: meta.id, status: 'in_progress', output: [], usage: null, store: false },
    })
    expect(events[4]).toEqual({
      type: 'response.reasoning_summary_text.delta',
      sequence_number: 4,
      item_id: id('rs', 0),
      output_index: 0,
      summary_index: 0,
      delta: 'Weather and time: ',
    })
    expect(events[6]).toMatchObject({ text: 'Weather and time: two tools.', output_index: 0 })
    expect(events[11]).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 11,
      item_id: id('msg', 1),
      output_index: 1,
      content_index: 0,
      delta: 'Checking "both"\n',
      logprobs: [],
    })
    expect(events[13]).toMatchObject({ text: turn.text, item_id: id('msg', 1), content_index: 0 })
    expect(events[18]).toEqual({
      type: 'response.function_call_arguments.done',
      sequence_number: 18,
      item_id: id('fc', 2),
      output_index: 2,
      name: 'weather',
      arguments: '{"city":"Paris"}',
    })
    expect(events[22]).toMatchObject({ arguments: '{}', output_index: 3 })

    const completed = events.at(-1)!['response'] as {
      output: unknown[]
      usage: unknown
      status: string
    }
    const doneItems = events
      .filter((e) => e.type === 'response.output_item.done')
      .map((e) => e['item'])
    expect(completed.status).toBe('completed')
    expect(completed.output).toEqual(doneItems)
    expect(completed.output).toEqual([
      {
        id: id('rs', 0),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: turn.thinking }],
        status: 'completed',
      },
      {
        id: id('msg', 1),
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }],
      },
      {
        id: id('fc', 2),
        type: 'function_call',
        call_id: 'toolu_01',
        name: 'weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
      {
        id: id('fc', 3),
        type: 'function_call',
        call_id: 'toolu_02',
        name: 'time',
        arguments: '{}',
        status: 'completed',
      },
      {
        id: id('rs', 4),
        type: 'reasoning',
        summary: [],
        encrypted_content: expect.stringMatching(/^thinkwire-v2\./),
        status: 'completed',
      },
    ])
    expect(completed.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 200,
    })
  })

  it('seals the turn’s items in the last item, and sends its record only once it is done', () => {
    const events = frames(encodeAll([...deltas, { type: 'done', turn }]))
    const sealed = events.at(-2)!['item'] as { encrypted_content: string }
    // The text, thinking and calls are the other items': the record does not say them again.
    expect(readSealedContent(sealed.encrypted_content)).toEqual({
      type: 'items',
      items: turn.items,
    })
    const added = events.at(-3)!
    expect(added).toMatchObject({ type: 'response.output_item.added', output_index: 4 })
    expect(added['item']).not.toHaveProperty('encrypted_content')
  })

  it('writes a text delta as the same JSON as the event object, whatever its characters', () => {
    const encode = createResponsesEncoder(meta)
    encode.delta({ type: 'text', text: 'first' })
    for (const text of ['"quoted"', 'line\r\nbreak', '\u2028 naïve 🎉', '</script>', '\\']) {
      const frame = encode.delta({ type: 'text', text })
      const [head, data] = frame.split('\n')
      expect(head).toBe('event: response.output_text.delta')
      expect(frame.endsWith('\n\n')).toBe(true)
      expect(frame.split('\n')).toHaveLength(4)
      expect(JSON.parse(data!.slice('data: '.length))).toEqual({
        type: 'response.output_text.delta',
        sequence_number: expect.any(Number),
        item_id: id('msg', 0),
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    }
  })

  it('opens a new item, with its own text, when thinking comes back after text', () => {
    const said = { ...turn, text: 'A.B.', thinking: 'First.Second.', toolCalls: undefined }
    const events = frames(
      encodeAll([
        { type: 'thinking', text: 'First.' },
        { type: 'text', text: 'A.' },
        { type: 'thinking', text: 'Second.' },
        { type: 'text', text: 'B.' },
        { type: 'done', turn: { ...said, items: undefined } },
      ]),
    )
    const items = events
      .filter((e) => e.type === 'response.output_item.done')
      .map((e) => e['item'] as { id: string; type: string })
    expect(items.map((item) => [item.id, item.type])).toEqual([
      [id('rs', 0), 'reasoning'],
      [id('msg', 1), 'message'],
      [id('rs', 2), 'reasoning'],
      [id('msg', 3), 'message'],
    ])
    const texts = events
      .filter((e) => e.type.endsWith('_text.done'))
      .map((e) => [e['item_id'], e['text']])
    expect(texts).toEqual([
      [id('rs', 0), 'First.'],
      [id('msg', 1), 'A.'],
      [id('rs', 2), 'Second.'],
      [id('msg', 3), 'B.'],
    ])
  })

  it('sends no sealed item for a turn without a seal, and nothing for an empty delta', () => {
    const encode = createResponsesEncoder(meta)
    expect(encode.delta({ type: 'text', text: '' })).toBe('')
    expect(encode.delta({ type: 'thinking', text: '' })).toBe('')
    const events = frames(
      encode.done({ ...turn, thinking: undefined, toolCalls: undefined, items: undefined }),
    )
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.completed',
    ])
    expect(events[2]!['response']).toMatchObject({ output: [] })
  })

  it.each([
    ['length', 'max_output_tokens'],
    ['refusal', 'content_filter'],
  ] as const)('ends an answer stopped for %s as response.incomplete (%s)', (stopReason, reason) => {
    const events = frames(
      encodeAll([
        { type: 'text', text: 'Cut' },
        { type: 'done', turn: { ...turn, text: 'Cut', stopReason, toolCalls: undefined } },
      ]),
    )
    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason } },
    })
  })

  it('reports usage cost when the turn has one', () => {
    const priced = { ...turn, usage: { ...turn.usage, cost: 0.0123 } }
    const events = frames(encodeAll([{ type: 'done', turn: priced }]))
    expect(events.at(-1)!['response']).toMatchObject({ usage: { cost: 0.0123 } })
  })
})

describe('createResponsesEncoder: the JSON it writes around the values', () => {
  // A surrogate pair split between two deltas, as a stream may cut it.
  const awkward = 'Quotes "x", a \\ and </script>\r\n\u2028 ünï \u0000 🎉 \ud83c'
  const said: StreamDelta[] = [
    { type: 'thinking', text: awkward },
    { type: 'thinking', text: '\udf89 thought' },
    { type: 'text', text: awkward },
    { type: 'text', text: '\udf89' },
    { type: 'tool-call', call: { id: 'call "1"', name: 'wéather\n', input: { q: awkward } } },
    { type: 'text', text: 'More.' },
  ]
  const whole = { ...turn, text: `${awkward}\udf89More.`, thinking: `${awkward}\udf89 thought` }
  const streams: Record<string, () => string> = {
    'a whole answer': () => encodeAll([...said, { type: 'done', turn: whole }]),
    'an answer cut at its token limit': () =>
      encodeAll([...said.slice(0, 3), { type: 'done', turn: { ...whole, stopReason: 'length' } }]),
    'an answer that fails inside an item': () => {
      const encode = createResponsesEncoder(meta)
      return [...said.slice(0, 4).map((delta) => encode.delta(delta)), encode.error(failure)].join(
        '',
      )
    },
  }
  const failure = { kind: 'overloaded', message: 'the "provider" is overloaded' } as const

  it.each(Object.keys(streams))(
    'is for each event of %s what JSON.stringify writes for it',
    (name) => {
      const { events } = parseSse(streams[name]!())
      expect(events.length).toBeGreaterThan(10)
      for (const { data } of events) expect(data).toBe(JSON.stringify(JSON.parse(data)))
    },
  )

  it('writes each Response as responseObject gives it', () => {
    const encode = createResponsesEncoder(meta)
    const opened = frames(encode.delta({ type: 'thinking', text: awkward }))
    for (const created of opened.slice(0, 2)) {
      expect(created['response']).toEqual(
        responseObject(meta, { status: 'in_progress', output: [] }),
      )
    }
    const failed = frames(encode.error(failure)).at(-2)!
    expect(failed['response']).toEqual(
      responseObject(meta, {
        status: 'failed',
        error: responseError(failure),
        output: [
          {
            id: id('rs', 0),
            type: 'reasoning',
            summary: [{ type: 'summary_text', text: awkward }],
            status: 'incomplete',
          },
        ],
      }),
    )
  })
})

describe('createResponsesEncoder: a failure', () => {
  it('after the first event: response.failed with the items so far, then an error event', () => {
    const encode = createResponsesEncoder(meta)
    const text =
      encode.delta({ type: 'thinking', text: 'Hmm.' }) +
      encode.delta({ type: 'text', text: 'Part' }) +
      encode.error({ kind: 'overloaded', message: 'the provider is overloaded' })
    const events = frames(text)
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    const [failed, error] = events.slice(-2)
    expect(failed).toMatchObject({
      type: 'response.failed',
      response: {
        status: 'failed',
        error: { code: 'server_error', message: 'the provider is overloaded' },
        usage: null,
        output: [
          { id: id('rs', 0), type: 'reasoning', status: 'completed' },
          {
            id: id('msg', 1),
            type: 'message',
            status: 'incomplete',
            content: [{ type: 'output_text', text: 'Part' }],
          },
        ],
      },
    })
    expect(error).toEqual({
      type: 'error',
      sequence_number: failed!.sequence_number + 1,
      code: null,
      message: 'the provider is overloaded',
      param: null,
      error: {
        type: 'server_error',
        code: null,
        message: 'the provider is overloaded',
        param: null,
      },
    })
    expect(text).not.toContain('response.completed')
  })

  it('before any delta: the Response is created first, so that clients can read the failure', () => {
    const encode = createResponsesEncoder(meta)
    const events = frames(encode.error({ kind: 'rate-limit', message: 'slow down' }))
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.failed',
      'error',
    ])
    expect(events[2]).toMatchObject({
      response: { error: { code: 'rate_limit_exceeded' }, output: [] },
    })
    expect(events[3]).toMatchObject({
      code: 'rate_limit_exceeded',
      error: { type: 'rate_limit_error' },
    })
  })
})

describe('responseBody', () => {
  it('is the Response a stream of the same turn completes with', () => {
    const streamed = frames(encodeAll([...deltas, { type: 'done', turn }])).at(-1)!['response']
    expect(responseBody(turn, meta)).toEqual(streamed)
  })

  it('is byte for byte the JSON the stream writes around its items, text escaped alike', () => {
    const text = 'Quotes "x", a \\ and </script>\n\u2028 ünï 🎉'
    const said = { ...turn, text, thinking: `${text} thought` }
    const events = parseSse(
      encodeAll([
        { type: 'thinking', text: said.thinking },
        { type: 'text', text },
        ...deltas.filter((delta) => delta.type === 'tool-call'),
        { type: 'done', turn: said },
      ]),
    ).events
    const last = events.at(-1)!
    const { sequence_number } = JSON.parse(last.data) as Data
    expect(last.data).toBe(
      JSON.stringify({
        type: 'response.completed',
        sequence_number,
        response: responseBody(said, meta),
      }),
    )
    // Each item's done event holds the very JSON of its item in that Response.
    const body = responseBody(said, meta)
    const done = events.filter((event) => event.event === 'response.output_item.done')
    expect(done.map((event) => event.data)).toEqual(
      body.output.map((item, index) =>
        JSON.stringify({
          type: 'response.output_item.done',
          sequence_number: (JSON.parse(done[index]!.data) as Data).sequence_number,
          output_index: index,
          item,
        }),
      ),
    )
  })

  it('leaves out the items a turn does not have', () => {
    const body = responseBody({ ...turn, thinking: '', toolCalls: [], items: undefined }, meta)
    expect(body.output.map((item) => item.type)).toEqual(['message'])
    expect(body).toMatchObject({ status: 'completed', instructions: 'Be brief.', store: false })
  })
})
