/**
 * A server that states what a call cost: OpenRouter's `usage.cost` (dollars; with BYOK, plus what
 * the upstream charged) and xAI's `usage.cost_in_usd_ticks` (10^10 a dollar). The stated cost is
 * the turn's `usage.cost`, over any price list.
 */
import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn } from '../../helpers/stream.ts'
import {
  compatibleWith,
  eventsAtCuts,
  fixture,
  sentMessages,
  type CompatibleSetup,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in Zürich?' }] }
const openrouter: CompatibleSetup = {
  ...presets.openrouter,
  model: 'anthropic/claude-sonnet-4.5',
  apiKey: 'sk-or-test-0000',
}
const xai: CompatibleSetup = { ...presets.xai, model: 'grok-4', apiKey: 'xai-test-0000' }

/** The body of the request after `turn`, with the next question. */
async function nextRequest(setup: CompatibleSetup, body: string) {
  const { adapter, replay } = compatibleWith([{ body }, { body: fixture('text-usage.sse') }], setup)
  const turn = doneTurn(await collect(adapter.stream(ask)))
  await collect(
    adapter.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Und morgen?' }] }),
  )
  return { turn, messages: sentMessages(replay, 1) }
}

describe('openai-compatible: the cost a server states', () => {
  it('takes OpenRouter’s usage.cost as the turn’s cost', async () => {
    const body = fixture('openrouter-stated-cost.sse')
    const events = await eventsAtCuts(body, openrouter, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: 'Grüezi – ' },
      { type: 'text', text: 'in Zürich sind es 14 °C ☁️.' },
    ])
    // Without BYOK, cost_details repeats the part of the cost the provider got: not added.
    expect(doneTurn(events).usage).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 1000,
      cost: 0.004812,
    })
    const { turn, messages } = await nextRequest(openrouter, body)
    expect(turn).toEqual(doneTurn(events))
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Grüezi – in Zürich sind es 14 °C ☁️.',
        reasoning_details: [],
      },
      { role: 'user', content: 'Und morgen?' },
    ])
  })

  it('adds what the upstream charged to OpenRouter’s fee on a call on the caller’s own key', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('openrouter-byok-cost.sse'), openrouter, ask))
    expect(turn.usage.cost).toBeCloseTo(0.0002406 + 0.004812, 15)
  })

  it('takes xAI’s cost_in_usd_ticks as the turn’s cost, in dollars', async () => {
    const body = fixture('xai-cost-ticks.sse')
    const events = await eventsAtCuts(body, xai, ask)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Zürich, Dezember: kühl.' },
      { type: 'text', text: 'Kühl, um 4 °C ❄️.' },
    ])
    expect(doneTurn(events).usage).toEqual({
      inputTokens: 700,
      // xAI counts reasoning apart from completion tokens.
      outputTokens: 212,
      reasoningTokens: 200,
      cacheReadTokens: 512,
      cost: 0.0037756,
    })
    const { messages } = await nextRequest(xai, body)
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Kühl, um 4 °C ❄️.' },
      { role: 'user', content: 'Und morgen?' },
    ])
  })

  it('prefers the stated cost to the model’s price list', async () => {
    const priced: CompatibleSetup = {
      ...xai,
      models: { 'grok-4': { pricing: { input: 3, cachedInput: 0.75, output: 15 } } },
    }
    const { adapter } = compatibleWith([{ body: fixture('xai-cost-ticks.sse') }], priced)
    expect(adapter.capabilities?.pricing).toEqual({ input: 3, cachedInput: 0.75, output: 15 })
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.usage.cost).toBe(0.0037756)
  })
})
