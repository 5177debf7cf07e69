import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import { presets, type PresetName } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn, failure } from '../../helpers/stream.ts'
import { compatibleWith, fixture, offPeakClock, type CompatibleSetup } from './harness.ts'

const ask = { turns: [{ role: 'user' as const, content: 'x' }] }
const streaming = { stream: true, stream_options: { include_usage: true } }

/** The body sent and the turn's warnings for one call with `options`. */
async function send(setup: CompatibleSetup, options: CallOptions) {
  const { adapter, replay } = compatibleWith([{ body: fixture('text-usage.sse') }], setup)
  const turn = doneTurn(await collect(adapter.stream(ask, options)))
  return { body: replay.requests[0]?.body, warnings: turn.warnings ?? [] }
}

const on = (name: PresetName, model: string): CompatibleSetup => ({
  ...presets[name],
  model,
  apiKey: 'sk-test-0000000000',
  now: offPeakClock,
})

describe('openai-compatible: stop sequences', () => {
  const five = ['###', 'ENDE', '\n\n', 'Frage:', 'Ω']

  it.each([
    [
      'vllm',
      'llama-3.3-70b',
      five,
      five.slice(0, 4),
      ['stop: this model takes at most 4 stop sequences; dropped "Ω"'],
    ],
    ['groq', 'llama-3.3-70b-versatile', ['###'], ['###'], []],
    ['deepseek', 'deepseek-v4-flash', five, five, []],
    ['openai-chat', 'gpt-4.1', five.slice(0, 2), five.slice(0, 2), []],
  ] as const)(
    'sends %s %s the stop sequences it takes and drops the rest with a warning',
    async (name, model, stop, sent, warnings) => {
      const result = await send(on(name, model), { stop: [...stop] })
      expect(result.body).toEqual({
        model,
        messages: ask.turns,
        ...streaming,
        stop: sent,
      })
      expect(result.warnings).toEqual(warnings)
    },
  )

  it.each([
    ['xai', 'grok-4'],
    ['xai', 'grok-3-mini'],
    ['openai-chat', 'gpt-5.4'],
  ] as const)('drops every stop sequence for %s %s, which takes none', async (name, model) => {
    const { body, warnings } = await send(on(name, model), { stop: ['###', 'ENDE'] })
    expect(body).not.toHaveProperty('stop')
    expect(warnings).toEqual(['stop dropped: this model takes no stop sequences ("###", "ENDE")'])
  })

  it('takes a server’s own limit from its model rows', async () => {
    const { body, warnings } = await send(
      {
        provider: 'mine',
        baseURL: 'https://llm.test/v1',
        model: 'm',
        models: { '*': { stopSequences: 1 } },
      },
      { stop: ['a', 'b'] },
    )
    expect(body).toMatchObject({ stop: ['a'] })
    expect(warnings).toEqual(['stop: this model takes at most 1 stop sequences; dropped "b"'])
  })

  it('refuses a stop list that is not of strings, naming the entry', async () => {
    const { adapter, replay } = compatibleWith(
      [{ body: fixture('text-usage.sse') }],
      on('vllm', 'm'),
    )
    const { error } = await failure(adapter.stream(ask, { stop: ['ok', 7] as unknown as string[] }))
    expect(error).toMatchObject({ kind: 'invalid-request', retryable: false, provider: 'vllm' })
    expect((error as Error).message).toBe('vllm: options.stop[1] must be a string, got number')
    expect(replay.requests).toHaveLength(0)
  })
})

describe('openai-compatible: prompt caching', () => {
  it('sends a cache key as prompt_cache_key to OpenAI, and nothing for true', async () => {
    const keyed = await send(on('openai-chat', 'gpt-4.1'), { cache: { key: 'user-42' } })
    expect(keyed.body).toEqual({
      model: 'gpt-4.1',
      messages: ask.turns,
      ...streaming,
      prompt_cache_key: 'user-42',
    })
    expect(keyed.warnings).toEqual([])
    const plain = await send(on('openai-chat', 'gpt-4.1'), { cache: true })
    expect(plain.body).toEqual({ model: 'gpt-4.1', messages: ask.turns, ...streaming })
    expect(plain.warnings).toEqual([])
  })

  it('ignores true silently where the server caches on its own, and drops a key or ttl with a warning', async () => {
    const plain = await send(on('deepseek', 'deepseek-v4-flash'), { cache: true })
    expect(plain.body).toEqual({ model: 'deepseek-v4-flash', messages: ask.turns, ...streaming })
    expect(plain.warnings).toEqual([])
    const keyed = await send(on('deepseek', 'deepseek-v4-flash'), {
      cache: { key: 'user-42', ttl: '1h' },
    })
    expect(keyed.body).toEqual({ model: 'deepseek-v4-flash', messages: ask.turns, ...streaming })
    expect(keyed.warnings).toEqual([
      "cache.ttl '1h' dropped: this server takes no cache lifetime",
      'cache.key dropped: this server takes no cache key',
    ])
  })

  it('refuses an empty cache key, naming it', async () => {
    const { adapter } = compatibleWith(
      [{ body: fixture('text-usage.sse') }],
      on('openai-chat', 'gpt-4.1'),
    )
    const { error } = await failure(adapter.stream(ask, { cache: { key: '' } }))
    expect(error).toMatchObject({ kind: 'invalid-request' })
    expect((error as Error).message).toBe(
      'openai-chat: options.cache.key must be a non-empty string',
    )
  })

  it('reports cache reads and writes from the usage', async () => {
    const turn = doneTurn(
      await collect(
        compatibleWith(
          [{ body: fixture('openrouter-web-search.sse') }],
          on('openrouter', 'openai/gpt-5'),
        ).adapter.stream(ask),
      ),
    )
    expect(turn.usage).toEqual({
      inputTokens: 900,
      outputTokens: 20,
      cacheReadTokens: 600,
      cacheWriteTokens: 250,
    })
  })
})

describe('openai-compatible: maxTokens is the caller’s cap', () => {
  it('sends it as max_completion_tokens to OpenAI and drops temperature for its reasoning models', async () => {
    const { body, warnings } = await send(on('openai-chat', 'gpt-5.4'), {
      maxTokens: 900,
      temperature: 0.2,
      thinking: 'low',
    })
    expect(body).toEqual({
      model: 'gpt-5.4',
      messages: ask.turns,
      ...streaming,
      max_completion_tokens: 900,
      reasoning_effort: 'low',
    })
    expect(warnings).toEqual(['temperature 0.2 dropped: this model takes no temperature'])
  })

  it('lowers it to the most the model takes, never raising it', async () => {
    const capped: CompatibleSetup = {
      ...on('deepseek', 'deepseek-v4-flash'),
      models: { 'deepseek-v4-flash': { maxOutputTokens: 8_192 } },
    }
    const high = await send(capped, { maxTokens: 20_000 })
    expect(high.body).toMatchObject({ max_tokens: 8_192 })
    expect(high.warnings).toEqual([
      'maxTokens lowered from 20000 to 8192, the most this model takes',
    ])
    const low = await send(capped, { maxTokens: 100 })
    expect(low.body).toMatchObject({ max_tokens: 100 })
    expect(low.warnings).toEqual([])
  })

  it.each([
    [{ budgetTokens: 2000 }, 4000, { max_tokens: 2000 }, []],
    [
      { budgetTokens: 8000 },
      4000,
      { max_tokens: 2000 },
      ['thinking: budget 8000 lowered to 2000 to leave room for the answer under maxTokens 4000'],
    ],
    [
      { budgetTokens: 4000 },
      1500,
      { max_tokens: 1024 },
      ['thinking: budget 4000 lowered to 1024 to leave room for the answer under maxTokens 1500'],
    ],
    [
      { budgetTokens: 4000 },
      1000,
      { enabled: false },
      [
        'thinking: turned off, since maxTokens 1000 leaves no room above the smallest budget (1024)',
      ],
    ],
  ] as const)(
    'fits an OpenRouter budget %j under maxTokens %i',
    async (thinking, maxTokens, reasoning, warnings) => {
      const result = await send(on('openrouter', 'anthropic/claude-sonnet-4.5'), {
        thinking,
        maxTokens,
      })
      expect(result.body).toMatchObject({ max_tokens: maxTokens, reasoning })
      expect(result.warnings).toEqual(warnings)
    },
  )
})
