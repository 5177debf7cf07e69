import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { isThinkwireError } from '../../../src/core/errors.ts'
import { doneTurn, eventsAtCuts, failure, failureAtCuts, fixture, geminiWith } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Was ist die Hauptstadt Japans?' }] }
const answer = fixture('thinking-then-text.sse')

describe('gemini streaming', () => {
  it('streams thought parts as thinking and other text as text, the same at each kind of cut', async () => {
    const events = await eventsAtCuts(answer, ask)
    const deltas = events.filter((e) => e.type !== 'done')
    expect(deltas).toEqual([
      { type: 'thinking', text: '**Die Hauptstadt prüfen** 🤔\nJapan → Tōkyō.' },
      { type: 'thinking', text: ' Keine Zweifel.' },
      { type: 'text', text: '東京は' },
      { type: 'text', text: '日本の首都です。 🗼' },
    ])
    const turn = doneTurn(events)
    expect(turn.text).toBe('東京は日本の首都です。 🗼')
    expect(turn.thinking).toBe('**Die Hauptstadt prüfen** 🤔\nJapan → Tōkyō. Keine Zweifel.')
    expect(turn.stopReason).toBe('stop')
    expect(turn.usage).toEqual({
      inputTokens: 12,
      outputTokens: 9 + 57,
      reasoningTokens: 57,
      cacheReadTokens: 4,
    })
  })

  it('keeps a signature that arrives on a trailing empty text part as its own part', async () => {
    const turn = doneTurn(await eventsAtCuts(answer, ask))
    expect(turn.items).toEqual({
      provider: 'gemini',
      model: 'gemini-3-flash-preview',
      thinkingMode: 'default',
      data: [
        { text: '**Die Hauptstadt prüfen** 🤔\nJapan → Tōkyō. Keine Zweifel.', thought: true },
        { text: '東京は日本の首都です。 🗼' },
        { text: '', thoughtSignature: 'U0lHLXRleHQtZW5kLTE=' },
      ],
    })
  })

  it('keeps the signature on the function call and gives an id-less call a stable id', async () => {
    const events = await eventsAtCuts(fixture('function-call-signed.sse'), ask)
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        call: { id: 'gemini_1_0', name: 'get_weather', input: { city: 'München' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.text).toBe('')
    expect(turn.items?.data).toEqual([
      { text: 'Das Wetter in München nachsehen…', thought: true },
      {
        functionCall: { name: 'get_weather', args: { city: 'München' } },
        thoughtSignature: 'U0lHLWNhbGwtbXVlbmNoZW4=',
      },
    ])
  })

  it('emits parallel function calls in order with the signature only on the first part', async () => {
    const events = await eventsAtCuts(fixture('parallel-calls.sse'), ask)
    const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.call] : []))
    expect(calls).toEqual([
      { id: 'fc_paris', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'fc_kyoto', name: 'get_weather', input: { city: '京都' } },
    ])
    const turn = doneTurn(events)
    expect(turn.toolCalls).toEqual(calls)
    expect(turn.items?.data).toEqual([
      { text: 'Zwei Städte, zwei Abfragen — parallel.', thought: true },
      {
        functionCall: { id: 'fc_paris', name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: 'U0lHLXBhcmFsbGVsLTE=',
      },
      { functionCall: { id: 'fc_kyoto', name: 'get_weather', args: { city: '京都' } } },
    ])
  })

  it('maps MAX_TOKENS to length and keeps a signature that sits on a text part', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('max-tokens.sse'), ask))
    expect(turn.stopReason).toBe('length')
    expect(turn.items?.data).toEqual([
      { text: 'Es war einmal', thoughtSignature: 'U0lHLWxlbmd0aA==' },
    ])
  })

  it('assembles function-call arguments streamed in pieces into one call and one part', async () => {
    const events = await eventsAtCuts(fixture('streamed-arguments.sse'), ask)
    const input = { stops: [{ city: 'Zürich', nights: 2 }, { city: 'Genève' }], rail: true }
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'gemini_1_0', name: 'plan_trip', input } },
    ])
    expect(doneTurn(events).items?.data).toEqual([
      {
        functionCall: { name: 'plan_trip', args: input },
        thoughtSignature: 'U0lHLXN0cmVhbWVkLWFyZ3M=',
      },
    ])
  })

  it('throws an overloaded error after the first text when the stream carries an error object', async () => {
    const { events, error } = await failureAtCuts(fixture('mid-stream-error.sse'), ask)
    expect(events).toEqual([{ type: 'text', text: 'Ein Anfang … ' }])
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({
      kind: 'overloaded',
      status: 503,
      retryable: true,
      provider: 'gemini',
    })
    expect((error as Error).message).toContain('The model is overloaded')
  })

  it('fails with a network error when the stream ends before a finish reason', async () => {
    const body = answer.slice(0, answer.lastIndexOf('data:'))
    const { adapter } = geminiWith([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events.some((e) => e.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })

  it('fails with a network error when the stream stops in the middle of a chunk', async () => {
    const body = answer.slice(0, answer.length - 20)
    const { adapter } = geminiWith([{ body }])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network' })
  })
})

describe('gemini errors', () => {
  it('maps a 429 with RetryInfo to a retryable rate-limit error that says when to retry', async () => {
    const { adapter } = geminiWith([
      {
        status: 429,
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: fixture('rate-limit-429.json'),
      },
    ])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      status: 429,
      retryAfterMs: 7000,
      provider: 'gemini',
    })
    expect((error as Error).message).toContain('Resource has been exhausted')
    expect((error as Error).message).not.toContain('AIza')
  })

  it.each([
    [400, 'INVALID_ARGUMENT', 'Function call is missing a thought_signature', 'invalid-request'],
    [
      400,
      'INVALID_ARGUMENT',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      'context-length',
    ],
    [403, 'PERMISSION_DENIED', 'Method doesn’t allow unregistered callers.', 'auth'],
    [404, 'NOT_FOUND', 'models/gemini-0 is not found for API version v1beta', 'invalid-request'],
    [500, 'INTERNAL', 'An internal error has occurred.', 'server'],
    [503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.', 'overloaded'],
    [504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.', 'timeout'],
  ])('maps HTTP %i %s to the right kind', async (status, grpc, message, kind) => {
    const { adapter } = geminiWith([
      {
        status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: { code: status, message, status: grpc } }),
      },
    ])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind, status, provider: 'gemini' })
    expect((error as Error).message).toContain(message)
  })

  it('maps an invalid API key, which Gemini answers with 400, to auth', async () => {
    const { adapter } = geminiWith([
      {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
            ],
          },
        }),
      },
    ])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'auth', retryable: false })
  })

  it('maps a refused connection to a retryable network error', async () => {
    const { adapter } = geminiWith([{ body: '', refuse: true }])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })
})
