import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { Conversation } from '../../../src/core/conversation.ts'
import { collect, doneTurn, event, fixture, geminiWith } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Zähl bis zehn.' }] }
const answer = fixture('conversation-3-answer.sse')

/** Sends one call and returns the request body and the done turn's warnings. */
async function call(options: CallOptions, model?: string) {
  const { adapter, replay } = geminiWith([{ body: answer }], model)
  const turn = doneTurn(await collect(adapter.stream(ask, options)))
  const body = replay.requests[0]?.body as {
    generationConfig?: {
      stopSequences?: string[]
      maxOutputTokens?: number
      thinkingConfig?: unknown
    }
    cachedContent?: string
  }
  return { body, warnings: turn.warnings }
}

describe('gemini stop sequences', () => {
  it('sends stop as generationConfig.stopSequences', async () => {
    const { body, warnings } = await call({ stop: ['\n\n', 'ENDE'] })
    expect(body.generationConfig?.stopSequences).toEqual(['\n\n', 'ENDE'])
    expect(warnings).toBeUndefined()
  })

  it('sends the first five and names the ones it dropped', async () => {
    const { body, warnings } = await call({ stop: ['1', '2', '3', '4', '5', 'sechs', 'sieben'] })
    expect(body.generationConfig?.stopSequences).toEqual(['1', '2', '3', '4', '5'])
    expect(warnings).toEqual([
      'stop: Gemini takes at most 5 stop sequences; dropped "sechs", "sieben"',
    ])
  })

  it('sends nothing for an empty list', async () => {
    const { body } = await call({ stop: [] })
    expect(body.generationConfig).not.toHaveProperty('stopSequences')
  })
})

describe('gemini prompt caching', () => {
  it('takes cache: true silently: Gemini caches on its own', async () => {
    const { body, warnings } = await call({ cache: true })
    expect(body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Zähl bis zehn.' }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    })
    expect(warnings).toBeUndefined()
  })

  it('says a cache key and ttl are not used, and sends neither', async () => {
    const { body, warnings } = await call({ cache: { key: 'user-42', ttl: '1h' } })
    expect(JSON.stringify(body)).not.toContain('user-42')
    expect(JSON.stringify(body)).not.toContain('1h')
    expect(warnings).toEqual([
      'cache.key not used: Gemini caches on its own and takes no key (an explicit cache goes in providerOptions.gemini.cachedContent)',
      'cache.ttl not used: Gemini caches on its own and takes no ttl (an explicit cache goes in providerOptions.gemini.cachedContent)',
    ])
  })

  it('sends an explicit cache given in providerOptions as the request’s cachedContent', async () => {
    const { body, warnings } = await call({
      cache: true,
      providerOptions: { gemini: { cachedContent: 'cachedContents/handbuch-1' } },
    })
    expect(body.cachedContent).toBe('cachedContents/handbuch-1')
    expect(warnings).toBeUndefined()
  })

  it('reports cache reads as part of the input, counted once, and thoughts as part of the output', async () => {
    const body = event({
      candidates: [{ content: { parts: [{ text: 'Eins.' }] }, finishReason: 'STOP' }],
      usageMetadata: {
        promptTokenCount: 1000,
        cachedContentTokenCount: 800,
        candidatesTokenCount: 10,
        thoughtsTokenCount: 5,
        totalTokenCount: 1015,
      },
    })
    const { adapter } = geminiWith([{ body }])
    expect(doneTurn(await collect(adapter.stream(ask))).usage).toEqual({
      inputTokens: 1000,
      outputTokens: 15,
      reasoningTokens: 5,
      cacheReadTokens: 800,
    })
  })
})

describe('gemini thinking budget under maxTokens', () => {
  it.each([
    [
      'shrinks a level’s budget to half the cap',
      'gemini-2.5-flash',
      { thinking: 'high', maxTokens: 2000 },
      { includeThoughts: true, thinkingBudget: 1000 },
      'thinking: budget 24576 does not fit under maxTokens 2000; used 1000, leaving the rest for the answer',
    ],
    [
      'shrinks an explicit budget no lower than the model’s smallest',
      'gemini-2.5-pro',
      { thinking: { budgetTokens: 5000 }, maxTokens: 200 },
      { includeThoughts: true, thinkingBudget: 128 },
      'thinking: budget 5000 does not fit under maxTokens 200; used 128, leaving the rest for the answer',
    ],
    [
      'turns thinking off when even the smallest budget does not fit and the model can',
      'gemini-2.5-flash-lite',
      { thinking: 'low', maxTokens: 300 },
      { thinkingBudget: 0 },
      'thinking: budget 1024 does not fit under maxTokens 300, nor does the smallest, 512; thinking turned off',
    ],
    [
      'sends no budget when even the smallest does not fit and the model cannot stop thinking',
      'gemini-2.5-pro',
      { thinking: 'low', maxTokens: 100 },
      { includeThoughts: true },
      'thinking: budget 1024 does not fit under maxTokens 100, nor does the smallest, 128, and this model cannot turn thinking off; no budget sent',
    ],
    [
      'holds a budget given in providerOptions to the cap on a model that takes levels',
      'gemini-3-flash-preview',
      {
        maxTokens: 1000,
        providerOptions: { gemini: { thinkingConfig: { thinkingBudget: 8000 } } },
      },
      { includeThoughts: true, thinkingBudget: 500 },
      'thinking: budget 8000 does not fit under maxTokens 1000; used 500, leaving the rest for the answer',
    ],
  ] as const)('%s, and never raises maxTokens', async (_, model, options, thinking, warning) => {
    const { body, warnings } = await call(options as CallOptions, model)
    expect(body.generationConfig?.maxOutputTokens).toBe(options.maxTokens)
    expect(body.generationConfig?.thinkingConfig).toEqual(thinking)
    expect(warnings).toEqual([warning])
  })

  it.each([
    ['a budget that fits', 'gemini-2.5-flash', { thinking: 'low', maxTokens: 4096 }, 1024],
    [
      'dynamic thinking',
      'gemini-2.5-flash',
      {
        maxTokens: 100,
        providerOptions: { gemini: { thinkingConfig: { thinkingBudget: -1 } } },
      },
      -1,
    ],
  ] as const)('leaves %s alone', async (_, model, options, budget) => {
    const { body, warnings } = await call(options as CallOptions, model)
    expect(body.generationConfig?.thinkingConfig).toEqual({
      includeThoughts: true,
      thinkingBudget: budget,
    })
    expect(warnings).toBeUndefined()
  })
})
