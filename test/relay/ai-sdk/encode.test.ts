/**
 * The UI message stream encoder: its frames part by part, and the same text read by the AI SDK's
 * own client (`DefaultChatTransport`, which checks every part against its schema, then
 * `readUIMessageStream`, which folds them into the message `useChat` shows).
 */
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn, StopReason } from '../../../src/core/conversation.ts'
import type { Event } from '../../../src/core/events.ts'
import {
  createUiStreamEncoder,
  finishReason,
  type UiMessageMetadata,
  type UiStep,
} from '../../../src/relay/ai-sdk/index.ts'
import { decodeSealedTurn } from '../../../src/relay/sealed-turn.ts'
import { createSealer } from '../../../src/relay/seal.ts'
import { relayTransport } from './chat.ts'

const sealer = createSealer(['encode-test-seal-key-Hq3Lr7Xw0Ze5Tn9Pb2Kd'])
const MODEL = 'anthropic/claude-sonnet-4-5'

/** A turn with thinking, text, two tool calls and sealed items, and the events that made it. */
async function sealedAnswer(): Promise<{ turn: AssistantTurn; events: Event[] }> {
  const turn: AssistantTurn = {
    role: 'assistant',
    text: 'Checking both — "one" moment.\n',
    thinking: 'Weather and time: two tools.\u2028',
    toolCalls: [
      { id: 'toolu_01', name: 'weather', input: { city: 'Paris', days: [1, 2], units: null } },
      { id: 'toolu_02', name: 'time', input: { zone: 'Europe/Paris', note: 'naïve "q"\n' } },
    ],
    usage: { inputTokens: 120, outputTokens: 80, reasoningTokens: 30, cacheReadTokens: 64 },
    stopReason: 'tool-calls',
    items: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      thinkingMode: 'adaptive',
      data: [{ type: 'thinking', thinking: 'Weather…', signature: 'EqQBCkYIBxgCKkD+/=' }],
    },
  }
  turn.items!.seal = await sealer.seal(turn)
  const events: Event[] = [
    { type: 'thinking', text: 'Weather and time: ' },
    { type: 'thinking', text: 'two tools.\u2028' },
    { type: 'text', text: 'Checking both — ' },
    { type: 'text', text: '"one" moment.\n' },
    { type: 'tool-call', call: turn.toolCalls![0]! },
    { type: 'tool-call', call: turn.toolCalls![1]! },
    { type: 'done', turn },
  ]
  return { turn, events }
}

/** The SSE text the encoder writes for `events`. */
function encode(events: Event[], earlier: readonly (UiStep | null)[] = []): string {
  const encoder = createUiStreamEncoder({ messageId: 'msg_1', model: MODEL, earlier })
  return events
    .map((event) => (event.type === 'done' ? encoder.done(event.turn) : encoder.delta(event)))
    .join('')
}

/** Each `data:` line's payload: the parts as JSON values, and `[DONE]` as it is. */
function frames(text: string): unknown[] {
  expect(text.endsWith('\n\n')).toBe(true)
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true)
      expect(frame.slice(6)).not.toMatch(/[\r\n]/)
      return frame === 'data: [DONE]' ? '[DONE]' : (JSON.parse(frame.slice(6)) as unknown)
    })
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

/** The parts the AI SDK's transport reads from `text`, each checked against its schema. */
async function clientParts(text: string): Promise<UIMessageChunk[]> {
  const transport = relayTransport({
    base: 'http://relay.test',
    body: { model: MODEL },
    fetch: async () =>
      new Response(trickle(text), { headers: { 'content-type': 'text/event-stream' } }),
  })
  const stream = await transport.sendMessages({
    chatId: 'chat_1',
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  })
  const parts: UIMessageChunk[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

/** The message `useChat` would show once every part of `parts` is folded in. */
async function messageOf(
  parts: UIMessageChunk[],
  continued?: UIMessage,
): Promise<{ message: UIMessage | undefined; errors: unknown[] }> {
  const errors: unknown[] = []
  let message: UIMessage | undefined
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
  const read = readUIMessageStream<UIMessage>({
    stream,
    onError: (error) => errors.push(error),
    ...(continued === undefined ? {} : { message: continued }),
  })
  for await (const snapshot of read) message = snapshot
  return { message, errors }
}

describe('createUiStreamEncoder', () => {
  it('writes the message, its step, a reasoning part, a text part, the calls, then finish and [DONE]', async () => {
    const { turn, events } = await sealedAnswer()
    const written = frames(encode(events))
    expect(written.slice(0, -2)).toEqual([
      { type: 'start', messageId: 'msg_1' },
      { type: 'start-step' },
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Weather and time: ' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'two tools.\u2028' },
      { type: 'reasoning-end', id: 'reasoning-0' },
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: 'Checking both — ' },
      { type: 'text-delta', id: 'text-1', delta: '"one" moment.\n' },
      { type: 'text-end', id: 'text-1' },
      {
        type: 'tool-input-available',
        toolCallId: 'toolu_01',
        toolName: 'weather',
        input: turn.toolCalls![0]!.input,
      },
      {
        type: 'tool-input-available',
        toolCallId: 'toolu_02',
        toolName: 'time',
        input: turn.toolCalls![1]!.input,
      },
      { type: 'finish-step' },
    ])
    const [finish, done] = written.slice(-2) as [
      { type: string; finishReason: string; messageMetadata: UiMessageMetadata },
      string,
    ]
    expect(done).toBe('[DONE]')
    expect(finish.type).toBe('finish')
    expect(finish.finishReason).toBe('tool-calls')
    const [step] = finish.messageMetadata.thinkwire.steps
    expect(step).toMatchObject({ model: MODEL, usage: turn.usage })
    // The record is exactly what the seal covers, the seal included.
    const { usage: _usage, stopReason: _stop, role: _role, ...covered } = turn
    expect(decodeSealedTurn(step!.sealed)).toEqual(covered)
  })

  it('is read by the AI SDK’s transport and folded into the message useChat shows', async () => {
    const { turn, events } = await sealedAnswer()
    const parts = await clientParts(encode(events))
    expect(parts.map((part) => part.type)).toContain('finish')
    const { message, errors } = await messageOf(parts)
    expect(errors).toEqual([])
    expect(message?.id).toBe('msg_1')
    expect(message?.parts).toEqual([
      { type: 'step-start' },
      { type: 'reasoning', id: 'reasoning-0', text: turn.thinking, state: 'done' },
      { type: 'text', text: turn.text, state: 'done' },
      expect.objectContaining({
        type: 'tool-weather',
        toolCallId: 'toolu_01',
        state: 'input-available',
        input: turn.toolCalls![0]!.input,
      }),
      expect.objectContaining({
        type: 'tool-time',
        toolCallId: 'toolu_02',
        state: 'input-available',
        input: turn.toolCalls![1]!.input,
      }),
    ])
    const metadata = message!.metadata as UiMessageMetadata
    expect(metadata.thinkwire.steps).toHaveLength(1)
    expect(metadata.thinkwire.steps[0]?.sealed).toEqual(expect.any(String))
  })

  it('writes a delta of the open part as the same JSON as the part, around one stringify of its text', () => {
    const encoder = createUiStreamEncoder({ messageId: 'm', model: MODEL, earlier: [] })
    encoder.delta({ type: 'text', text: 'first' })
    for (const text of ['plain', 'quote " and \\ back', 'line\nbreak\r\n', '\u2028\u2029', '😀']) {
      const frame = encoder.delta({ type: 'text', text })
      expect(frames(frame)).toEqual([{ type: 'text-delta', id: 'text-0', delta: text }])
    }
    expect(encoder.delta({ type: 'text', text: '' })).toBe('')
    expect(encoder.delta({ type: 'thinking', text: '' })).toBe('')
  })

  it('opens a new part each time thinking and text take turns, each with an id of its own', async () => {
    const text = encode([
      { type: 'thinking', text: 'a' },
      { type: 'text', text: 'b' },
      { type: 'thinking', text: 'c' },
      { type: 'text', text: 'd' },
      {
        type: 'done',
        turn: {
          role: 'assistant',
          text: 'bd',
          thinking: 'ac',
          usage: { inputTokens: 1, outputTokens: 1 },
          stopReason: 'stop',
        },
      },
    ])
    const starts = frames(text).filter(
      (frame): frame is { type: string; id: string } =>
        typeof frame === 'object' && String((frame as { type: string }).type).endsWith('-start'),
    )
    expect(starts.map((frame) => `${frame.type} ${frame.id}`)).toEqual([
      'reasoning-start reasoning-0',
      'text-start text-1',
      'reasoning-start reasoning-2',
      'text-start text-3',
    ])
    const { message } = await messageOf(await clientParts(text))
    expect(message?.parts.map((part) => part.type)).toEqual([
      'step-start',
      'reasoning',
      'text',
      'reasoning',
      'text',
    ])
  })

  it('writes an answer with no events as a whole, empty message', async () => {
    const text = encode([
      {
        type: 'done',
        turn: {
          role: 'assistant',
          text: '',
          usage: { inputTokens: 3, outputTokens: 0 },
          stopReason: 'length',
        },
      },
    ])
    expect(frames(text)).toEqual([
      { type: 'start', messageId: 'msg_1' },
      { type: 'start-step' },
      { type: 'finish-step' },
      {
        type: 'finish',
        finishReason: 'length',
        messageMetadata: {
          thinkwire: { steps: [{ model: MODEL, usage: { inputTokens: 3, outputTokens: 0 } }] },
        },
      },
      '[DONE]',
    ])
    const { message } = await messageOf(await clientParts(text))
    expect(message?.parts).toEqual([{ type: 'step-start' }])
  })

  it('keeps the steps before its own in the metadata of a message it goes on with', async () => {
    const earlier: UiStep[] = [{ model: 'mock/echo', usage: { inputTokens: 1, outputTokens: 2 } }]
    const { events } = await sealedAnswer()
    const { message } = await messageOf(await clientParts(encode(events, [earlier[0]!, null])))
    const steps = (message!.metadata as UiMessageMetadata).thinkwire.steps
    expect(steps.slice(0, 2)).toEqual([earlier[0], null])
    expect(steps[2]).toMatchObject({ model: MODEL })
  })

  it('ends a failed stream with an error part, which the AI SDK reports as an Error of its text', async () => {
    const encoder = createUiStreamEncoder({ messageId: 'msg_1', model: MODEL, earlier: [] })
    const text =
      encoder.delta({ type: 'text', text: 'Halb' }) +
      encoder.error({
        kind: 'rate-limit',
        message: 'upstream busy',
        retryable: true,
        retryAfterMs: 2000,
      })
    expect(frames(text).slice(-2)).toEqual([
      {
        type: 'error',
        errorText: 'upstream busy',
        kind: 'rate-limit',
        retryable: true,
        retryAfterMs: 2000,
      },
      '[DONE]',
    ])
    const { message, errors } = await messageOf(await clientParts(text))
    expect(errors).toEqual([new Error('upstream busy')])
    expect(message?.parts).toContainEqual({ type: 'text', text: 'Halb', state: 'streaming' })
  })

  it.each([
    ['stop', 'stop'],
    ['aborted', 'stop'],
    ['length', 'length'],
    ['tool-calls', 'tool-calls'],
    ['refusal', 'content-filter'],
    ['other', 'other'],
  ] as [StopReason, string][])('finishes a %s answer with finishReason %s', (reason, expected) => {
    expect(finishReason(reason)).toBe(expected)
  })
})
