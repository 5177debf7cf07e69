/**
 * The Messages API encoder: its frames, and `@anthropic-ai/sdk` reading them (the stream helper's
 * `finalMessage()`, raw events, a non-streamed message, heartbeat comments between events, an
 * error after the first event), then the message sent back as the SDK gave it.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { ThinkwireError } from '../../../src/core/errors.ts'
import type { Event } from '../../../src/core/events.ts'
import {
  createMessagesEncoder,
  messageResponse,
  sealedRecordOf,
  stopReasonOf,
  translateMessagesRequest,
  usageOf,
} from '../../../src/relay/anthropic-messages/index.ts'
import { createSealer } from '../../../src/relay/seal.ts'
import { validateChatRequest } from '../../../src/relay/validate-request.ts'
import { parseSse } from '../sse-reader.ts'

const model = 'anthropic/claude-sonnet-4-5'
const meta = { id: 'msg_tw1', model }
const sealer = createSealer(['messages-encode-seal-Hq3Lr7Xw0Ze5Tn9Pb2Kd'])
const limits = { turns: 20, tools: 4, maxTokens: 10_000, depth: 16, toolCalls: 4, toolResults: 4 }

/** A turn with thinking, text, two tool calls and sealed items, and the events that made it. */
async function sealedAnswer(): Promise<{ turn: AssistantTurn; events: Event[] }> {
  const turn: AssistantTurn = {
    role: 'assistant',
    text: 'Checking both — one moment.',
    thinking: 'The user asks for weather and time. I need two tools.',
    toolCalls: [
      { id: 'toolu_01', name: 'weather', input: { city: 'Paris', days: [1, 2], units: null } },
      { id: 'toolu_02', name: 'time', input: { zone: 'Europe/Paris', note: 'naïve "quote"\n' } },
    ],
    usage: {
      inputTokens: 120,
      outputTokens: 80,
      reasoningTokens: 30,
      cacheReadTokens: 64,
      cacheWriteTokens: 6,
    },
    stopReason: 'tool-calls',
    items: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      thinkingMode: 'high',
      data: [
        { type: 'thinking', thinking: 'The user asks…', signature: 'EqQBCkYIBxgCKkD+/=' },
        { type: 'text', text: 'Checking both — one moment.' },
        { type: 'tool_use', id: 'toolu_01', name: 'weather', input: { city: 'Paris' } },
      ],
    },
  }
  turn.items!.seal = await sealer.seal(turn)
  const events: Event[] = [
    { type: 'thinking', text: 'The user asks for weather and time. ' },
    { type: 'thinking', text: 'I need two tools.' },
    { type: 'text', text: 'Checking both — ' },
    { type: 'text', text: '' },
    { type: 'text', text: 'one moment.' },
    { type: 'tool-call', call: turn.toolCalls![0]! },
    { type: 'tool-call', call: turn.toolCalls![1]! },
    { type: 'done', turn },
  ]
  return { turn, events }
}

/** The SSE text the encoder writes for `events`, a `between` written after each. */
function streamText(events: Event[], between = ''): string {
  const encode = createMessagesEncoder(meta)
  return events
    .map(
      (event) => (event.type === 'done' ? encode.done(event.turn) : encode.delta(event)) + between,
    )
    .join('')
}

/** The events of an SSE text, their `data` parsed. */
function framesOf(text: string): { event: string | undefined; data: Record<string, unknown> }[] {
  return parseSse(text).events.map((e) => ({
    event: e.event,
    data: JSON.parse(e.data) as Record<string, unknown>,
  }))
}

/** A body that arrives a few bytes at a time, splitting lines and UTF-8 sequences. */
function trickle(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(at, at + 7))
      at += 7
    },
  })
}

/** An Anthropic client whose every request is answered by `answer`; the bodies it sent are kept. */
function client(answer: () => Response) {
  const sent: unknown[] = []
  const anthropic = new Anthropic({
    apiKey: 'relay-token',
    baseURL: 'https://relay.test',
    maxRetries: 0,
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)))
      return answer()
    },
  })
  return { anthropic, sent }
}

const sse = (text: string) => () =>
  new Response(trickle(text), { headers: { 'content-type': 'text/event-stream' } })

const ask: MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }]
const tools = [
  { name: 'weather', input_schema: { type: 'object' as const } },
  { name: 'time', input_schema: { type: 'object' as const } },
]

describe('createMessagesEncoder', () => {
  it('writes message_start, a block per run of thinking or text, a block per call, the sealed block, then the end', async () => {
    const { turn, events } = await sealedAnswer()
    const frames = framesOf(streamText(events))
    expect(
      frames.map((f) => `${f.event}${'index' in f.data ? ` ${f.data['index']}` : ''}`),
    ).toEqual([
      'message_start',
      'content_block_start 0',
      'content_block_delta 0',
      'content_block_delta 0',
      'content_block_stop 0',
      'content_block_start 1',
      'content_block_delta 1',
      'content_block_delta 1',
      'content_block_stop 1',
      'content_block_start 2',
      'content_block_delta 2',
      'content_block_stop 2',
      'content_block_start 3',
      'content_block_delta 3',
      'content_block_stop 3',
      'content_block_start 4',
      'content_block_delta 4',
      'content_block_stop 4',
      'message_delta',
      'message_stop',
    ])
    // Every event's data says its own type, as Anthropic's do.
    expect(frames.every((f) => f.data['type'] === f.event)).toBe(true)
    expect(frames[0]!.data).toEqual({
      type: 'message_start',
      message: {
        id: 'msg_tw1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    })
    expect(frames[1]!.data['content_block']).toEqual({
      type: 'thinking',
      thinking: '',
      signature: '',
    })
    expect(frames[2]!.data['delta']).toEqual({
      type: 'thinking_delta',
      thinking: 'The user asks for weather and time. ',
    })
    expect(frames[5]!.data['content_block']).toEqual({ type: 'text', text: '' })
    expect(frames[7]!.data['delta']).toEqual({ type: 'text_delta', text: 'one moment.' })
    expect(frames[9]!.data['content_block']).toEqual({
      type: 'tool_use',
      id: 'toolu_01',
      name: 'weather',
      input: {},
    })
    expect(frames[10]!.data['delta']).toEqual({
      type: 'input_json_delta',
      partial_json: JSON.stringify(turn.toolCalls![0]!.input),
    })
    expect(frames[15]!.data['content_block']).toEqual({
      type: 'thinking',
      thinking: '',
      signature: '',
    })
    const signature = frames[16]!.data['delta'] as { type: string; signature: string }
    expect(signature.type).toBe('signature_delta')
    expect(sealedRecordOf(signature.signature)?.items).toEqual(turn.items)
    expect(frames[18]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 50,
        cache_creation_input_tokens: 6,
        cache_read_input_tokens: 64,
        output_tokens: 80,
        output_tokens_details: { thinking_tokens: 30 },
      },
    })
  })

  it('writes nothing for an empty delta, and the start once', () => {
    const encode = createMessagesEncoder(meta)
    expect(encode.delta({ type: 'text', text: '' })).toBe('')
    const first = encode.delta({ type: 'text', text: 'a' })
    const second = encode.delta({ type: 'text', text: 'b\n"c"' })
    expect(first).toContain('event: message_start\n')
    expect(second).toBe(
      `event: content_block_delta\ndata: ${JSON.stringify({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: 'b\n"c"' },
      })}\n\n`,
    )
  })

  it('ends an answer without deltas, and one without a seal, with no sealed block', () => {
    const turn: AssistantTurn = {
      role: 'assistant',
      text: '',
      usage: { inputTokens: 3, outputTokens: 0 },
      stopReason: 'length',
    }
    const frames = framesOf(createMessagesEncoder(meta).done(turn))
    expect(frames.map((f) => f.event)).toEqual(['message_start', 'message_delta', 'message_stop'])
    expect(frames[1]!.data['delta']).toEqual({ stop_reason: 'max_tokens', stop_sequence: null })
  })

  it('writes an error in Anthropic’s shape', () => {
    const encode = createMessagesEncoder(meta)
    expect(framesOf(encode.error({ kind: 'overloaded', message: 'busy' }))).toEqual([
      {
        event: 'error',
        data: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } },
      },
    ])
    expect(framesOf(encode.error({ kind: 'timeout', message: 'slow' }))[0]!.data).toEqual({
      type: 'error',
      error: { type: 'timeout_error', message: 'slow' },
    })
  })

  it('names a failure by its kind, not by the status the provider answered with', () => {
    const upstream = new ThinkwireError({ kind: 'overloaded', message: 'busy', status: 500 })
    expect(framesOf(createMessagesEncoder(meta).error(upstream))[0]!.data).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'busy' },
    })
  })
})

describe('usageOf and stopReasonOf', () => {
  it('counts input apart from the cache, and gives the cost only when known', () => {
    expect(usageOf({ inputTokens: 10, outputTokens: 2 })).toEqual({
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 2,
    })
    expect(
      usageOf({ inputTokens: 1000, outputTokens: 5, cacheReadTokens: 800, cost: 0.001 }),
    ).toEqual({
      input_tokens: 200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 800,
      output_tokens: 5,
      cost: 0.001,
    })
  })

  it.each([
    ['stop', 'end_turn'],
    ['aborted', 'end_turn'],
    ['other', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool-calls', 'tool_use'],
    ['refusal', 'refusal'],
  ] as const)('%s → %s', (reason, expected) => {
    expect(stopReasonOf(reason)).toBe(expected)
  })
})

describe('the @anthropic-ai/sdk reading the encoder', () => {
  it('assembles the final message of messages.stream(), which sent back translates into the sealed turn', async () => {
    const { turn, events } = await sealedAnswer()
    const first = client(sse(streamText(events)))
    const message = await first.anthropic.messages
      .stream({ model, max_tokens: 1024, messages: ask, tools })
      .finalMessage()
    expect(message.id).toBe('msg_tw1')
    expect(message.stop_reason).toBe('tool_use')
    expect(message.usage).toMatchObject({
      input_tokens: 50,
      output_tokens: 80,
      cache_read_input_tokens: 64,
    })
    expect(message.content.slice(0, 4)).toEqual([
      // The shown thinking, with an empty signature: the SDK takes it and sends it back.
      { type: 'thinking', thinking: turn.thinking, signature: '' },
      { type: 'text', text: turn.text },
      { type: 'tool_use', id: 'toolu_01', name: 'weather', input: turn.toolCalls![0]!.input },
      { type: 'tool_use', id: 'toolu_02', name: 'time', input: turn.toolCalls![1]!.input },
    ])
    const sealed = message.content[4]
    expect(sealed).toMatchObject({ type: 'thinking', thinking: '' })
    expect(message.content).toHaveLength(5)

    // The client sends the content back as it got it, with the tool results.
    const second = client(sse(streamText([{ type: 'done', turn: { ...turn, items: undefined } }])))
    await second.anthropic.messages
      .stream({
        model,
        max_tokens: 1024,
        tools,
        messages: [
          ...ask,
          { role: 'assistant', content: message.content },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01', content: 'Sunny, 24°C' },
              { type: 'tool_result', tool_use_id: 'toolu_02', content: '14:05' },
            ],
          },
        ],
      })
      .finalMessage()
    const translated = translateMessagesRequest(second.sent[0])
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.notes).toEqual([])
    expect(translated.request.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: turn.text,
      thinking: turn.thinking,
      toolCalls: turn.toolCalls,
      items: turn.items,
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    })
    // What the route does next: the body passes the relay's checks and the seal still holds.
    const checked = validateChatRequest(translated.request, limits)
    if (!checked.ok) throw new Error(checked.error.message)
    const replayed = checked.value.conversation.turns[1]
    if (replayed?.role !== 'assistant') throw new Error('expected the assistant turn')
    expect(await sealer.check(replayed)).toBe('valid')
  })

  it('reads the raw events of create({ stream: true }), the relay’s heartbeat comments between them', async () => {
    const { turn, events } = await sealedAnswer()
    // `: ping` every heartbeat, and the one-byte probe the relay writes in a silent stream.
    const { anthropic } = client(sse(`: ping\n\n${streamText(events, ':\n: ping\n\n')}`))
    const stream = await anthropic.messages.create({
      model,
      max_tokens: 1024,
      messages: ask,
      stream: true,
    })
    let thinking = ''
    let text = ''
    const types: string[] = []
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta')
        thinking += event.delta.thinking
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        text += event.delta.text
    }
    expect(thinking).toBe(turn.thinking)
    expect(text).toBe(turn.text)
    expect(types[0]).toBe('message_start')
    expect(types.at(-1)).toBe('message_stop')
  })

  it('reads the non-streamed message', async () => {
    const { turn } = await sealedAnswer()
    const { anthropic } = client(() => Response.json(messageResponse(turn, meta)))
    const message = await anthropic.messages.create({ model, max_tokens: 1024, messages: ask })
    expect(message.id).toBe('msg_tw1')
    expect(message.content.map((block) => block.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
      'thinking',
    ])
    expect(message.usage.output_tokens).toBe(80)
    const translated = translateMessagesRequest({
      model,
      max_tokens: 1024,
      messages: [
        ...ask,
        { role: 'assistant', content: message.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01', content: 'x' },
            { type: 'tool_result', tool_use_id: 'toolu_02', content: 'y' },
          ],
        },
      ],
    })
    if (!translated.ok) throw new Error(translated.message)
    expect(translated.request.conversation.turns[1]).toMatchObject({ items: turn.items })
  })

  it('throws the error sent after the first event as its APIError, with its type', async () => {
    const encode = createMessagesEncoder(meta)
    const text =
      encode.delta({ type: 'text', text: 'Partial' }) +
      encode.error({ kind: 'overloaded', message: 'the provider is overloaded' })
    const { anthropic } = client(sse(text))
    const seen: string[] = []
    const stream = anthropic.messages.stream({ model, max_tokens: 1024, messages: ask })
    stream.on('text', (delta) => seen.push(delta))
    const error = await stream.finalMessage().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect(error).toMatchObject({
      type: 'overloaded_error',
      apiMessage: 'the provider is overloaded',
    })
    expect(seen).toEqual(['Partial'])
  })
})
