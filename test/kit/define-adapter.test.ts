import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../src/core/adapter.ts'
import type { Capabilities } from '../../src/core/capabilities.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { ThinkwireError } from '../../src/core/errors.ts'
import { defineAdapter, type Producer } from '../../src/kit/index.ts'
import { collect, doneTurn, failure } from '../helpers/stream.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Hi' }] }
const capabilities: Capabilities = { thinking: { mode: 'none' }, tools: false, json: false }

/** A producer that says `text` and finishes with 1,000,000 tokens each way. */
const saying = (text: string): Producer =>
  async function* () {
    yield { type: 'text', text }
    return {
      usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 },
      stopReason: 'stop',
      items: [{ said: text }],
    }
  }

describe('defineAdapter', () => {
  it('makes adapters of any model, each with its provider, model and capabilities', () => {
    const described: string[] = []
    const factory = defineAdapter({
      provider: 'acme',
      models: ['a1', 'a2'],
      model(model) {
        described.push(model)
        return {
          capabilities: { ...capabilities, tools: model === 'a2' },
          stream: () => saying(''),
        }
      },
    })
    expect(factory.models).toEqual(['a1', 'a2'])
    const adapter = factory('other-model')
    expect(adapter).toMatchObject({ provider: 'acme', model: 'other-model', capabilities })
    expect(factory('a2').capabilities?.tools).toBe(true)
    expect(described).toEqual(['other-model', 'a2'])
  })

  it('lists no models when the definition names none', () => {
    const factory = defineAdapter({
      provider: 'acme',
      model: () => ({ capabilities, stream: () => saying('') }),
    })
    expect(factory.models).toEqual([])
  })

  it("runs the model's producer under the guard: a done turn with tagged items, priced", async () => {
    const calls: { conversation: Conversation; options: CallOptions }[] = []
    const factory = defineAdapter({
      provider: 'acme',
      model: (model) => ({
        capabilities: { ...capabilities, pricing: { input: 1, output: 2 } },
        stream(conversation, options) {
          calls.push({ conversation, options })
          return saying(`hello from ${model}`)
        },
      }),
    })
    const events = await collect(factory('a1').stream(ask))
    expect(events.map((e) => e.type)).toEqual(['text', 'done'])
    expect(doneTurn(events)).toMatchObject({
      text: 'hello from a1',
      usage: { inputTokens: 1_000_000, outputTokens: 1_000_000, cost: 3 },
      items: { provider: 'acme', model: 'a1', data: [{ said: 'hello from a1' }] },
    })
    // A call without options still hands the producer an options object.
    expect(calls).toEqual([{ conversation: ask, options: {} }])
  })

  it("maps what a producer throws with the provider's mapError", async () => {
    const factory = defineAdapter({
      provider: 'acme',
      mapError: (error) =>
        new ThinkwireError({ kind: 'overloaded', message: `acme: ${String(error)}` }),
      model: () => ({
        capabilities,
        stream: () =>
          async function* () {
            yield { type: 'text', text: 'half' }
            throw 'busy'
          },
      }),
    })
    const { events, error } = await failure(factory('a1').stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'half' }])
    expect(error).toMatchObject({ kind: 'overloaded', message: 'acme: busy' })
  })
})
