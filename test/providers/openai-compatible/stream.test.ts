import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, cutsThatDiffer, doneTurn, failure, run } from '../../helpers/stream.ts'
import { compatibleWith, eventsAtCuts, fixture, offPeakClock } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wie ist das Wetter in Zürich?' }] }
const deepseek = {
  ...presets.deepseek,
  model: 'deepseek-v4-flash',
  apiKey: 'sk-test-000000000000',
  now: offPeakClock,
}
const openrouter = {
  ...presets.openrouter,
  model: 'anthropic/claude-sonnet-4.5',
  apiKey: 'sk-or-test-0000',
}
const groq = { ...presets.groq, model: 'qwen/qwen3-32b', apiKey: 'gsk_test_000000000000' }

const toolCall = fixture('deepseek-tool-call.sse')
const details = fixture('openrouter-reasoning-details.sse')

describe('openai-compatible streaming', () => {
  it('splits <think> tags cut across chunks into thinking and text, at each kind of cut', async () => {
    const events = await eventsAtCuts(fixture('think-tags.sse'), groq)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Überlegen: 2 + 2' },
      { type: 'thinking', text: ' = 4 ✓' },
      { type: 'text', text: 'Die Antwort ist ' },
      { type: 'text', text: '4 🎉' },
    ])
    const turn = doneTurn(events)
    expect(turn.thinking).toBe('Überlegen: 2 + 2 = 4 ✓')
    expect(turn.text).toBe('Die Antwort ist 4 🎉')
    expect(turn.usage).toEqual({ inputTokens: 14, outputTokens: 22, cacheReadTokens: 8 })
    // The stored message is the answer alone: reasoning in tags is not sent back.
    expect(turn.items?.data).toEqual([{ role: 'assistant', content: 'Die Antwort ist 4 🎉' }])
  })

  it('takes text before a lone </think> as reasoning on a server whose template opened the tag', async () => {
    const events = await eventsAtCuts(fixture('implicit-think-open.sse'), {
      provider: 'ollama',
      baseURL: 'http://localhost:11434/v1',
      model: 'deepseek-r1-distill-qwen-7b',
      reasoning: { thinkTags: 'starts-inside' },
    })
    const turn = doneTurn(events)
    expect(turn.thinking).toBe('Erst überlegen 🤔\n')
    expect(turn.text).toBe('Fertig.')
  })

  it('streams reasoning_content, then one complete tool call, and keeps the reasoning for replay', async () => {
    const events = await eventsAtCuts(toolCall, deepseek)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Das Wetter in Zürich ' },
      { type: 'thinking', text: 'braucht ein Werkzeug — get_weather.' },
      {
        type: 'tool-call',
        call: { id: 'call_ds_01', name: 'get_weather', input: { city: 'Zürich' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    // Off-peak, half of (56 × $0.30 + 64 × $0.006 + 40 × $1.20) per million: see deepseek.test.ts.
    expect(turn.usage).toEqual({
      inputTokens: 120,
      outputTokens: 40,
      reasoningTokens: 25,
      cacheReadTokens: 64,
      cost: 0.000032592,
    })
    expect(turn.items?.data).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_ds_01',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Zürich"}' },
          },
        ],
        reasoning_content: 'Das Wetter in Zürich braucht ein Werkzeug — get_weather.',
      },
    ])
  })

  it('does not keep DeepSeek reasoning on a turn without tool calls, which DeepSeek ignores', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('deepseek-answer.sse'), deepseek))
    expect(turn.thinking).toBe('14 °C, leicht bewölkt.')
    expect(turn.items?.data).toEqual([
      { role: 'assistant', content: 'In Zürich sind es 14 °C ⛅.' },
    ])
  })

  it('merges OpenRouter reasoning_details by index and shows their text once', async () => {
    const events = await eventsAtCuts(details, openrouter)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Vergleiche' },
      { type: 'thinking', text: ' 9,11 und 9,8 …' },
      { type: 'text', text: '9,8 ist größer.' },
    ])
    const turn = doneTurn(events)
    // OpenRouter states what the call cost.
    expect(turn.usage).toEqual({
      inputTokens: 30,
      outputTokens: 50,
      reasoningTokens: 35,
      cost: 0.00031,
    })
    expect(turn.items?.data).toEqual([
      {
        role: 'assistant',
        content: '9,8 ist größer.',
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: 'Vergleiche 9,11 und 9,8 …',
            signature: 'RXBzaWctb3BlbnJvdXRlcg==',
            format: 'anthropic-claude-v1',
            index: 0,
          },
          {
            type: 'reasoning.encrypted',
            data: 'ZW5jcnlwdGVkLWJsb2I=',
            format: 'anthropic-claude-v1',
            index: 1,
          },
        ],
      },
    ])
  })

  it('takes usage from the final chunk with empty choices', async () => {
    const turn = doneTurn(
      await eventsAtCuts(fixture('text-usage.sse'), {
        ...presets.vllm,
        model: 'llama-3.3-70b',
      }),
    )
    expect(turn.text).toBe('Grüß Gott aus Wien 🇦🇹')
    expect(turn.stopReason).toBe('stop')
    expect(turn.usage).toEqual({ inputTokens: 9, outputTokens: 6 })
  })

  it('assembles parallel tool calls by index, ignoring empty ids on continuations', async () => {
    const events = await eventsAtCuts(fixture('parallel-tool-calls.sse'), {
      ...presets.vllm,
      model: 'qwen3-max',
    })
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.call] : []))).toEqual([
      { id: 'call_a', name: 'get_weather', input: { city: 'Paris' } },
      { id: 'call_b', name: 'get_weather', input: { city: '東京' } },
      { id: 'call_c', name: 'list_cities', input: {} },
    ])
  })

  it('passes arguments that are not JSON on as the raw string, with a warning', async () => {
    const turn = doneTurn(
      await collect(
        compatibleWith([{ body: fixture('bad-arguments.sse') }], {
          ...presets.groq,
          model: 'llama-3.3-70b',
        }).adapter.stream(ask),
      ),
    )
    expect(turn.toolCalls).toEqual([
      { id: 'call_bad', name: 'get_weather', input: '{"city": "Par' },
    ])
    expect(turn.warnings).toEqual([
      'tool call call_bad (get_weather): its arguments are not valid JSON; passed on as a string',
    ])
  })

  it('reads reasoning from thinking blocks of a content list (Mistral)', async () => {
    const events = await eventsAtCuts(fixture('mistral-thinking.sse'), {
      ...presets.mistral,
      model: 'magistral-medium-latest',
    })
    const turn = doneTurn(events)
    expect(turn.thinking).toBe('Zwei plus zwei ergibt vier.')
    expect(turn.text).toBe('2 + 2 = 4')
  })

  it('ends a content_filter stop as a refusal', async () => {
    const turn = doneTurn(
      await eventsAtCuts(fixture('content-filter.sse'), {
        provider: 'azure',
        baseURL: 'https://azure.test/openai/v1',
        model: 'gpt-4.1-mini',
      }),
    )
    expect(turn.stopReason).toBe('refusal')
    expect(turn.text).toBe('Dazu kann ich ')
  })

  it('fails with a network error when the stream ends before a finish reason', async () => {
    const body = toolCall.slice(0, toolCall.lastIndexOf('data:', toolCall.indexOf('"tool_calls"}')))
    const { error, events } = await failure(
      compatibleWith([{ body }], deepseek).adapter.stream(ask),
    )
    expect(events.some((e) => e.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })
})

describe('openai-compatible errors', () => {
  it('throws a server error from an error object in the stream, after the text before it, however it is cut', async () => {
    const body = fixture('mid-stream-error.sse')
    const replay = (splitAt?: number[] | 'bytes') =>
      run(compatibleWith([{ body, splitAt }], openrouter).adapter.stream(ask))
    const { events, error } = await failure(
      compatibleWith([{ body }], openrouter).adapter.stream(ask),
    )
    expect(events).toEqual([{ type: 'text', text: 'Ein Anfang … ' }])
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true })
    expect((error as Error).message).toContain('Upstream provider returned an error')
    // Cut mid-line, mid-character, an event or a byte per read, it fails the same way.
    const { cuts, differs } = await cutsThatDiffer(body, replay)
    expect(cuts).toContain('a byte per read')
    expect(differs).toEqual([])
  })

  it('maps a 429 to a retryable rate-limit error with the retry-after wait', async () => {
    const { adapter } = compatibleWith(
      [
        {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '7' },
          body: JSON.stringify({
            error: {
              message: 'Rate limit reached',
              type: 'rate_limit_error',
              code: 'rate_limit_exceeded',
            },
          }),
        },
      ],
      groq,
    )
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      status: 429,
      retryAfterMs: 7000,
      provider: 'groq',
    })
    expect((error as Error).message).not.toContain('gsk_test')
  })

  it('does not retry a 429 that means the quota ran out', async () => {
    const { adapter } = compatibleWith(
      [
        {
          status: 429,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            error: { message: 'You exceeded your quota', code: 'insufficient_quota' },
          }),
        },
      ],
      groq,
    )
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'rate-limit', retryable: false })
  })

  it.each([
    [
      400,
      "This model's maximum context length is 8192 tokens. However, you requested 9000",
      'context-length',
    ],
    [
      400,
      'Missing reasoning_content field in the assistant message at message index 2',
      'invalid-request',
    ],
    [401, 'Authentication Fails, Your api key is invalid', 'auth'],
    [402, 'Insufficient Balance', 'invalid-request'],
    [404, 'model not found', 'invalid-request'],
    [500, 'Internal error', 'server'],
    [503, 'Server overloaded', 'overloaded'],
  ])('maps HTTP %i to the right kind', async (status, message, kind) => {
    const { adapter } = compatibleWith(
      [
        {
          status,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: { message, type: 'error' } }),
        },
      ],
      deepseek,
    )
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind, status, provider: 'deepseek' })
    expect((error as Error).message).toContain(message)
  })

  it('maps a refused connection to a retryable network error', async () => {
    const { adapter } = compatibleWith([{ body: '', refuse: true }], deepseek)
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network', retryable: true })
  })
})
