import { describe, expect, it, vi } from 'vitest'
import { createRegistry } from '../../../src/core/registry.ts'
import { anthropicModels, createAnthropic } from '../../../src/providers/anthropic/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import { pretendToBeABrowser } from '../../helpers/browser.ts'
import { ask, fixture } from './harness.ts'

const built = vi.hoisted(() => ({ clients: 0 }))

vi.mock('@anthropic-ai/sdk', async (importOriginal) => {
  const sdk = await importOriginal<typeof import('@anthropic-ai/sdk')>()
  class Counted extends sdk.default {
    constructor(...args: ConstructorParameters<typeof sdk.default>) {
      super(...args)
      built.clients++
    }
  }
  return { ...sdk, default: Counted }
})

const KEY = 'sk-ant-test-key-0123456789'

describe('createAnthropic', () => {
  it('builds one SDK client and shares it with every adapter it makes', async () => {
    const replay = replayFetch([{ body: fixture('omitted-thinking.sse') }])
    const before = built.clients
    const factory = createAnthropic({
      apiKey: KEY,
      fetch: replay.fetch,
      headers: { 'anthropic-beta': 'fixture-beta-1' },
    })
    const sonnet = factory('claude-sonnet-5')
    const haiku = factory('claude-haiku-4-5')
    doneTurn(await collect(sonnet.stream(ask)))
    doneTurn(await collect(haiku.stream(ask)))
    doneTurn(await collect(sonnet.stream(ask)))
    expect(built.clients - before).toBe(1)

    const [first, second] = replay.requests
    expect((first!.body as { model: string }).model).toBe('claude-sonnet-5')
    expect((second!.body as { model: string }).model).toBe('claude-haiku-4-5')
    // The same client's settings on every request, whichever model made it.
    const clientHeaders = (headers: Record<string, string>) => ({
      beta: headers['anthropic-beta'],
      version: headers['anthropic-version'],
      auth: headers['authorization'] ?? headers['x-api-key'],
      agent: headers['user-agent'],
    })
    expect(clientHeaders(second!.headers)).toEqual(clientHeaders(first!.headers))
    expect(clientHeaders(first!.headers).beta).toBe('fixture-beta-1')
  })

  it('lists the current models, and makes an adapter for any model id', () => {
    const factory = createAnthropic({ apiKey: KEY })
    expect(factory.models).toBe(anthropicModels)
    const adapter = factory('claude-nova-9')
    expect(adapter).toMatchObject({ provider: 'anthropic', model: 'claude-nova-9' })
    expect(adapter.capabilities?.json).toBe(false)
  })

  it('serves a registry that advertises the current models with their capabilities', () => {
    const before = built.clients
    const registry = createRegistry({ anthropic: createAnthropic({ apiKey: KEY }) })
    const listed = registry.models()
    expect(listed.map((m) => m.model)).toEqual([...anthropicModels])
    expect(listed.find((m) => m.id === 'anthropic/claude-haiku-4-5')).toMatchObject({
      provider: 'anthropic',
      thinking: { mode: 'budget' },
      tools: true,
      maxOutputTokens: 64_000,
    })
    expect(registry.resolve('anthropic/claude-sonnet-4-5').model).toBe('claude-sonnet-4-5')
    expect(built.clients - before).toBe(1)
  })

  it('refuses, as a ThinkwireError when it is made, a browser page that did not allow browser use', () => {
    const restore = pretendToBeABrowser()
    try {
      expect(() => createAnthropic({ apiKey: KEY })).toThrow(
        expect.objectContaining({ kind: 'invalid-request', provider: 'anthropic' }),
      )
      expect(() => createAnthropic({ apiKey: KEY, dangerouslyAllowBrowser: true })).not.toThrow()
    } finally {
      restore()
    }
  })
})
