import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import { openaiModels } from '../../../src/providers/openai/index.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import {
  ask,
  awkwardCuts,
  fixture,
  responseOf,
  responseStream,
  sentBody,
  setup,
} from './harness.ts'

/** 1,000 input tokens (800 of them cached) and 500 output tokens (200 of them reasoning). */
const usage = {
  input_tokens: 1000,
  input_tokens_details: { cached_tokens: 800 },
  output_tokens: 500,
  output_tokens_details: { reasoning_tokens: 200 },
  total_tokens: 1500,
}

/** A short answer whose terminal response says which tier served it (`undefined`: says nothing). */
function servedBy(model: string, tier: string | undefined): string {
  const message = {
    id: 'msg_t',
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Ça marche ✓', annotations: [] }],
  }
  const served = tier === undefined ? {} : { service_tier: tier }
  return responseStream([
    {
      type: 'response.created',
      response: responseOf('in_progress', [], { model, service_tier: 'auto' }),
    },
    {
      type: 'response.output_text.delta',
      item_id: 'msg_t',
      output_index: 0,
      content_index: 0,
      delta: 'Ça marche ✓',
    },
    {
      type: 'response.completed',
      response: responseOf('completed', [message], { model, usage, ...served }),
    },
  ])
}

/** The `done` turn of one call to `model` whose response says `tier`, and the request sent. */
async function costOfTier(model: string, tier: string | undefined, options: CallOptions = {}) {
  const body = servedBy(model, tier)
  const { adapter, replay } = setup([{ body, splitAt: awkwardCuts(body) }], { model })
  const { events, error } = await run(adapter.stream(ask, options))
  expect(error).toBeUndefined()
  expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Ça marche ✓' }])
  return { turn: doneTurn(events), body: sentBody(replay) }
}

const priority: CallOptions = { providerOptions: { openai: { service_tier: 'priority' } } }
const flex: CallOptions = { providerOptions: { openai: { service_tier: 'flex' } } }

describe('openai: cost by the service tier that served the call', () => {
  it('prices a call the priority tier served at its priority rates, about twice Standard', async () => {
    const body = fixture('service-tier-priority.sse')
    const { adapter, replay } = setup([{ body, splitAt: awkwardCuts(body) }])
    const { events, error } = await run(adapter.stream(ask, priority))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Kurz → knapp.' },
      { type: 'text', text: 'Schnell ' },
      { type: 'text', text: 'geantwortet ⚡' },
    ])
    expect(sentBody(replay)['service_tier']).toBe('priority')
    expect(doneTurn(events).usage).toEqual({
      inputTokens: 1000,
      outputTokens: 500,
      reasoningTokens: 200,
      cacheReadTokens: 800,
      // gpt-5.4 at Priority: 200 × $5 + 800 × $0.50 + 500 × $30 = 16,400 micro-dollars
      // (Standard: 200 × $2.50 + 800 × $0.25 + 500 × $15 = 8,200).
      cost: 0.0164,
    })
  })

  it('prices a call the flex tier served at its flex rates, half of Standard', async () => {
    const { turn, body } = await costOfTier('gpt-5.4', 'flex', flex)
    expect(body['service_tier']).toBe('flex')
    // 200 × $1.25 + 800 × $0.125 + 500 × $7.50 = 4,100 micro-dollars.
    expect(turn.usage.cost).toBe(0.0041)
    // gpt-5.4-mini at Priority: 200 × $1.50 + 800 × $0.15 + 500 × $9 = 4,920.
    expect((await costOfTier('gpt-5.4-mini', 'priority', priority)).turn.usage.cost).toBe(0.00492)
  })

  it('prices by the tier the response says served it, not the one asked for', async () => {
    const { turn, body } = await costOfTier('gpt-5.4', 'default', priority)
    expect(body['service_tier']).toBe('priority')
    expect(turn.usage.cost).toBe(0.0082)
    // A response that names no tier was served at Standard, as before.
    expect((await costOfTier('gpt-5.4', undefined)).turn.usage.cost).toBe(0.0082)
  })

  it('leaves the cost out where the tier that served the call has no price', async () => {
    const scale = (await costOfTier('gpt-5.4', 'scale')).turn
    expect(scale.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 500,
      reasoningTokens: 200,
      cacheReadTokens: 800,
    })
    expect((await costOfTier('gpt-5.4', 'auto')).turn.usage).not.toHaveProperty('cost')
    // A model OpenAI does not sell at a tier has no price there.
    expect((await costOfTier('gpt-5.4-nano', 'priority', priority)).turn.usage).not.toHaveProperty(
      'cost',
    )
  })

  // The same usage (200 fresh input, 800 cached, 500 output tokens) at each catalog model's
  // published Priority and Flex rates, in dollars; null where OpenAI publishes no price for it.
  const published: Record<string, { priority: number | null; flex: number | null }> = {
    'gpt-5.6-sol': { priority: null, flex: null },
    'gpt-5.6-terra': { priority: null, flex: null },
    // 200 × $5 + 800 × $0.50 + 500 × $30; 200 × $1.25 + 800 × $0.125 + 500 × $7.50
    'gpt-5.4': { priority: 0.0164, flex: 0.0041 },
    // 200 × $1.50 + 800 × $0.15 + 500 × $9; 200 × $0.375 + 800 × $0.0375 + 500 × $2.25
    'gpt-5.4-mini': { priority: 0.00492, flex: 0.00123 },
    'gpt-5.4-nano': { priority: null, flex: null },
    'gpt-5.3-codex': { priority: null, flex: null },
    // 200 × $3.50 + 800 × $0.35 + 500 × $28
    'gpt-5.2': { priority: 0.01498, flex: null },
    // 200 × $2.50 + 800 × $0.25 + 500 × $20
    'gpt-5.1': { priority: 0.0107, flex: null },
    'gpt-5.1-codex-max': { priority: null, flex: null },
    'gpt-5': { priority: 0.0107, flex: null },
    // 200 × $0.45 + 800 × $0.045 + 500 × $3.60
    'gpt-5-mini': { priority: 0.001926, flex: null },
    'gpt-5-nano': { priority: null, flex: null },
    // 200 × $3.50 + 800 × $0.875 + 500 × $14; 200 × $1 + 800 × $0.25 + 500 × $4
    o3: { priority: 0.0084, flex: 0.0024 },
    // 200 × $2 + 800 × $0.50 + 500 × $8; 200 × $0.55 + 800 × $0.1375 + 500 × $2.20
    'o4-mini': { priority: 0.0048, flex: 0.00132 },
    'gpt-4.1': { priority: 0.0084, flex: null },
    // 200 × $0.70 + 800 × $0.175 + 500 × $2.80
    'gpt-4.1-mini': { priority: 0.00168, flex: null },
  }

  it('knows the tier prices of every model of the catalog', () => {
    expect(Object.keys(published).toSorted()).toEqual([...openaiModels].toSorted())
  })

  it.each(Object.entries(published))(
    'prices a call of %s at the Priority and Flex rates OpenAI publishes for it',
    async (model, cost) => {
      for (const [tier, options] of [
        ['priority', priority],
        ['flex', flex],
      ] as const) {
        const { turn } = await costOfTier(model, tier, options)
        expect(turn.usage.cost ?? null, `${model} at ${tier}`).toBe(cost[tier])
      }
    },
  )
})
