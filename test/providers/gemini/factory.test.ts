import { describe, expect, it, vi } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { createGemini, gemini, geminiModels } from '../../../src/providers/gemini/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, doneTurn, fixture, TEST_KEY } from './harness.ts'

// Counts the SDK clients made, without changing what they do.
const made = vi.hoisted(() => ({ clients: 0 }))
vi.mock('@google/genai', async (importOriginal) => {
  const sdk = await importOriginal<typeof import('@google/genai')>()
  class GoogleGenAI extends sdk.GoogleGenAI {
    constructor(...args: ConstructorParameters<typeof sdk.GoogleGenAI>) {
      super(...args)
      made.clients++
    }
  }
  return { ...sdk, GoogleGenAI }
})

const ask: Conversation = { turns: [{ role: 'user', content: 'Hallo?' }] }

describe('createGemini', () => {
  it('makes one SDK client that every adapter it makes shares', async () => {
    const replay = replayFetch([{ body: fixture('conversation-3-answer.sse') }])
    const before = made.clients
    const factory = createGemini({
      apiKey: TEST_KEY,
      baseURL: 'https://gemini.test',
      fetch: replay.fetch,
      headers: { 'x-team': 'thinkwire' },
    })
    const flash = factory('gemini-3-flash-preview')
    const pro = factory('gemini-3.1-pro-preview')
    await collect(flash.stream(ask))
    await collect(pro.stream(ask))
    expect(made.clients - before).toBe(1)
    expect(replay.requests.map((r) => r.url)).toEqual([
      'https://gemini.test/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse',
      'https://gemini.test/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse',
    ])
    for (const request of replay.requests) {
      expect(request.headers['x-goog-api-key']).toBe(TEST_KEY)
      expect(request.headers['x-team']).toBe('thinkwire')
    }
  })

  it('lists the current models and makes adapters of any model id with its capabilities', () => {
    const factory = createGemini({ apiKey: TEST_KEY })
    expect(factory.models).toBe(geminiModels)
    const adapter = factory('gemini-2.5-pro')
    expect(adapter).toMatchObject({ provider: 'gemini', model: 'gemini-2.5-pro' })
    expect(adapter.capabilities?.thinking).toEqual({
      mode: 'budget',
      min: 128,
      max: 32_768,
      canDisable: false,
    })
    expect(factory('gemma-3-27b-it').capabilities?.thinking).toEqual({ mode: 'none' })
  })

  it('keeps gemini({ ...settings, model }) working, one client per call', async () => {
    const replay = replayFetch([{ body: fixture('conversation-3-answer.sse') }])
    const before = made.clients
    const adapter = gemini({ apiKey: TEST_KEY, model: 'gemini-2.5-flash', fetch: replay.fetch })
    expect(made.clients - before).toBe(1)
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('Nimm einen Schirm mit ☂️.')
  })
})
