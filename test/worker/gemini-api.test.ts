import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { complete } from '../../src/core/complete.ts'
import { registryFromEnv } from '../../worker/registry.ts'
import { replayFetch } from '../helpers/replay-fetch.ts'

const fixture = (path: string) =>
  readFileSync(resolve(import.meta.dirname, '../fixtures', path), 'utf8')
const ask = { turns: [{ role: 'user' as const, content: 'Hallo' }] }

describe('GEMINI_API: which Gemini API the Worker serves gemini/* on', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('serves gemini/* on generateContent by default, as before', async () => {
    const registry = registryFromEnv({ GEMINI_API_KEY: 'gemini-test' })
    const adapter = registry.resolve('gemini/gemini-2.5-pro')
    expect(adapter.provider).toBe('gemini')
    expect(adapter.capabilities?.thinking.mode).toBe('budget')
    const upstream = replayFetch([{ body: fixture('gemini/thinking-then-text.sse') }])
    vi.stubGlobal('fetch', upstream.fetch)
    const turn = await complete(registry.resolve('gemini/gemini-3-flash-preview'), ask)
    expect(turn.items?.provider).toBe('gemini')
    expect(upstream.requests[0]!.url).toContain(':streamGenerateContent')
  })

  it('serves the same ids through geminiInteractions() with GEMINI_API=interactions', async () => {
    const registry = registryFromEnv({ GEMINI_API_KEY: 'gemini-test', GEMINI_API: 'interactions' })
    expect(registry.models().map((model) => model.id)).toEqual(
      registryFromEnv({ GEMINI_API_KEY: 'gemini-test' })
        .models()
        .map((model) => model.id),
    )
    const adapter = registry.resolve('gemini/gemini-2.5-pro')
    expect(adapter.provider).toBe('gemini-interactions')
    // The Interactions API takes a level on Gemini 2.5 too.
    expect(adapter.capabilities?.thinking).toEqual({
      mode: 'effort',
      levels: ['low', 'medium', 'high'],
      canDisable: false,
    })
    const upstream = replayFetch([{ body: fixture('gemini-interactions/thinking-then-text.sse') }])
    vi.stubGlobal('fetch', upstream.fetch)
    const turn = await complete(registry.resolve('gemini/gemini-3-flash-preview'), ask)
    expect(turn.text).toBe('東京は日本の首都です。 🗼')
    expect(turn.items?.provider).toBe('gemini-interactions')
    expect(upstream.requests[0]!.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/interactions',
    )
    expect(upstream.requests[0]!.body).toMatchObject({ store: false, stream: true })
  })

  it('refuses any other GEMINI_API, naming the setting, with or without a key', () => {
    for (const env of [{ GEMINI_API: 'v2' }, { GEMINI_API: 'v2', GEMINI_API_KEY: 'gemini-test' }])
      expect(() => registryFromEnv(env)).toThrow(
        "GEMINI_API must be 'generate-content' or 'interactions'",
      )
  })
})
