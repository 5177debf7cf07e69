import type { Adapter, CallOptions } from '../core/adapter.ts'
import type { Capabilities } from '../core/capabilities.ts'
import type { Conversation } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import type { AdapterFactory } from '../core/registry.ts'
import { guardStream, type Producer } from './guard-stream.ts'

/** One model of a provider, as {@link AdapterDefinition.model} describes it. */
export type ModelDefinition = {
  /** What the model supports; its `pricing`, when set, prices each `done` turn (`usage.cost`). */
  capabilities: Capabilities
  /** The producer of one call, which {@link guardStream} runs (see {@link Producer}). */
  stream(conversation: Conversation, options: CallOptions): Producer
}

/** What {@link defineAdapter} needs to know of a provider. */
export type AdapterDefinition = {
  /** The adapters' `provider`: it tags their turns for replay and keys their `providerOptions`. */
  provider: string
  /**
   * The models the factory lists (a registry advertises them); any other id works too.
   * @defaultValue none
   */
  models?: readonly string[] | undefined
  /** Maps what a producer throws to a `ThinkwireError`. @defaultValue `toThinkwireError` */
  mapError?: ((error: unknown) => ThinkwireError) | undefined
  /** One model's capabilities and producer. Called once per adapter the factory makes. */
  model(model: string): ModelDefinition
}

/**
 * A provider's adapter factory, `createX(settings)(model)`. Each adapter it makes is
 * `{ provider, model, capabilities, stream }`, and its `stream()` runs the model's producer under
 * {@link guardStream} with the call's options, the provider's `mapError` and the model's pricing.
 * Build the SDK client before, once, and let the models share it (as the built-in providers do).
 *
 * @example
 * ```ts
 * export function createAcme(settings: { apiKey: string }): AdapterFactory {
 *   const client = buildClient('acme', () => new AcmeClient({ ...settings, maxRetries: 0 }))
 *   return defineAdapter({
 *     provider: 'acme',
 *     models: ['acme-1'],
 *     mapError: mapAcmeError,
 *     model: (model) => ({
 *       capabilities: { thinking: { mode: 'none' }, tools: true, json: false },
 *       stream: (conversation, options) => streamAcme(client, model, conversation, options),
 *     }),
 *   })
 * }
 * ```
 */
export function defineAdapter(definition: AdapterDefinition): AdapterFactory {
  const { provider, mapError } = definition
  const create = (model: string): Adapter => {
    const { capabilities, stream } = definition.model(model)
    const { pricing } = capabilities
    return {
      provider,
      model,
      capabilities,
      stream: (conversation, options = {}) =>
        guardStream({ provider, model, options, mapError, pricing }, stream(conversation, options)),
    }
  }
  return Object.assign(create, { models: definition.models ?? [] })
}
