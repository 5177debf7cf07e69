import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
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
    // A model without prices has none at any tier.
    expect((await costOfTier('gpt-5.2', 'priority', priority)).turn.usage).not.toHaveProperty(
      'cost',
    )
  })
})
