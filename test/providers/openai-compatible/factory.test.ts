import { describe, expect, it, vi } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import {
  createOpenAICompatible,
  groq,
  openaiCompatible,
  presets,
} from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import { fixture } from './harness.ts'

// Counts the SDK clients the adapters build.
const sdk = vi.hoisted(() => ({ clients: 0 }))
vi.mock('openai', async (importOriginal) => {
  const actual = await importOriginal<typeof import('openai')>()
  class CountedOpenAI extends actual.OpenAI {
    constructor(...args: ConstructorParameters<typeof actual.OpenAI>) {
      super(...args)
      sdk.clients++
    }
  }
  return { ...actual, default: CountedOpenAI, OpenAI: CountedOpenAI }
})

const ask: Conversation = { turns: [{ role: 'user', content: 'Servus' }] }

describe('openai-compatible factories', () => {
  it('builds one SDK client for every model of a factory, each request sent by it', async () => {
    const replay = replayFetch([{ body: fixture('text-usage.sse') }])
    const before = sdk.clients
    const factory = createOpenAICompatible({
      ...presets.groq,
      apiKey: 'gsk_test_000000000000',
      headers: { 'x-team': 'blue' },
      fetch: replay.fetch,
    })
    const models = ['qwen/qwen3-32b', 'openai/gpt-oss-120b', 'llama-3.3-70b-versatile']
    for (const model of models) {
      const adapter = factory(model)
      expect(adapter).toMatchObject({ provider: 'groq', model })
      doneTurn(await collect(adapter.stream(ask)))
    }
    expect(sdk.clients - before).toBe(1)
    expect(replay.requests.map((request) => (request.body as { model: string }).model)).toEqual(
      models,
    )
    for (const request of replay.requests) {
      expect(request.url).toBe('https://api.groq.com/openai/v1/chat/completions')
      expect(request.headers).toMatchObject({
        authorization: 'Bearer gsk_test_000000000000',
        'x-team': 'blue',
      })
    }
    expect(factory.models).toEqual(presets.groq.modelIds)
  })

  it('makes a preset’s factory with its create, sending what the preset’s adapter sends', async () => {
    const replay = replayFetch([{ body: fixture('text-usage.sse') }])
    const before = sdk.clients
    const factory = groq.create({ apiKey: 'gsk_test_000000000000', fetch: replay.fetch })
    expect(factory.models).toEqual(presets.groq.modelIds)
    await collect(factory('qwen/qwen3-32b').stream(ask, { thinking: 'off' }))
    await collect(factory('openai/gpt-oss-20b').stream(ask))
    expect(sdk.clients - before).toBe(1)
    await collect(
      groq({
        apiKey: 'gsk_test_000000000000',
        model: 'qwen/qwen3-32b',
        fetch: replay.fetch,
      }).stream(ask, { thinking: 'off' }),
    )
    expect(replay.requests[2]).toEqual({
      ...replay.requests[0],
      signal: replay.requests[2]!.signal,
    })
    expect(replay.requests[0]!.body).toMatchObject({ reasoning_effort: 'none' })
  })

  it('builds one client per openaiCompatible() call, as before', () => {
    const before = sdk.clients
    openaiCompatible({ ...presets.ollama, model: 'llama3.2' })
    openaiCompatible({ ...presets.ollama, model: 'qwen3:8b' })
    expect(sdk.clients - before).toBe(2)
  })
})
