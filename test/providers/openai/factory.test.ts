import { describe, expect, it, vi } from 'vitest'
import { createRegistry } from '../../../src/core/registry.ts'
import { createOpenAI, openai, openaiModels } from '../../../src/providers/openai/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { ask, fixture } from './harness.ts'

// Counts the SDK clients the adapter builds, without changing what they do.
const clients = vi.hoisted(() => ({ built: 0 }))
vi.mock('openai', async (importOriginal) => {
  const sdk = await importOriginal<typeof import('openai')>()
  class CountedOpenAI extends sdk.OpenAI {
    constructor(...args: ConstructorParameters<typeof sdk.OpenAI>) {
      super(...args)
      clients.built++
    }
  }
  return { ...sdk, default: CountedOpenAI, OpenAI: CountedOpenAI }
})

const KEY = 'sk-test-key-0123456789'

describe('createOpenAI', () => {
  it('builds one SDK client and shares it with every adapter it makes', async () => {
    const replay = replayFetch([{ body: fixture('refusal.sse') }])
    const before = clients.built
    const create = createOpenAI({ apiKey: KEY, fetch: replay.fetch, organization: 'org-shared' })
    const adapters = ['gpt-5.4', 'gpt-5-mini', 'gpt-4.1'].map((model) => create(model))
    for (const adapter of adapters) expect((await run(adapter.stream(ask))).error).toBeUndefined()
    expect(clients.built - before).toBe(1)
    expect(replay.requests.map((r) => (r.body as { model: string }).model)).toEqual([
      'gpt-5.4',
      'gpt-5-mini',
      'gpt-4.1',
    ])
    for (const request of replay.requests) {
      expect(request.headers['authorization']).toBe(`Bearer ${KEY}`)
      expect(request.headers['openai-organization']).toBe('org-shared')
    }
  })

  it('makes adapters of the model asked for, with that model’s capabilities', () => {
    const create = createOpenAI({ apiKey: KEY })
    const adapter = create('gpt-4.1')
    expect(adapter).toMatchObject({ provider: 'openai', model: 'gpt-4.1' })
    expect(adapter.capabilities?.thinking).toEqual({ mode: 'none' })
    expect(create('gpt-5.4').capabilities?.thinking.mode).toBe('effort')
  })

  it('lists the current models, which a registry advertises with their capabilities', () => {
    const create = createOpenAI({ apiKey: KEY })
    expect(create.models).toBe(openaiModels)
    const listed = createRegistry({ openai: create }).models()
    expect(listed.map((m) => m.id)).toEqual(openaiModels.map((m) => `openai/${m}`))
    expect(listed.find((m) => m.model === 'gpt-5.4')).toMatchObject({
      tools: true,
      json: true,
      contextTokens: 400_000,
    })
  })

  it('keeps openai() working: one adapter, one client of its own', async () => {
    const before = clients.built
    const replay = replayFetch([{ body: fixture('refusal.sse') }])
    const adapter = openai({ apiKey: KEY, model: 'gpt-5.4', fetch: replay.fetch })
    expect(clients.built - before).toBe(1)
    expect(doneTurn((await run(adapter.stream(ask))).events).stopReason).toBe('refusal')
  })
})
