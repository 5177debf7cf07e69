import {
  isThinkwireError,
  ThinkwireError,
  type Adapter,
  type AdapterFactory,
  type Capabilities,
} from 'thinkwire'

/** What a provider's {@link lazyFactory} knows before its SDK is loaded. */
export type LazyProvider = {
  /** The adapters' `provider` name. */
  provider: string
  /** The models the factory lists (a registry advertises them); any other id works too. */
  models: readonly string[]
  /** A model's capabilities, from the provider's tables alone (they must not import its SDK). */
  capabilities(model: string): Capabilities
  /** Imports the provider's entry, and so its SDK, and builds its factory: once, at first use. */
  load(): Promise<AdapterFactory>
}

/**
 * A factory whose adapters load the provider's SDK when one of them first streams, not when the
 * Worker starts: their `provider`, `model` and `capabilities` are known at once (what the registry
 * and `/v1/models` read), and `stream()` awaits `load()`, then hands the call to the real adapter,
 * which maps its errors as it always does. Every model of the provider shares the one load.
 */
export function lazyFactory(lazy: LazyProvider): AdapterFactory {
  const { provider } = lazy
  let loading: Promise<AdapterFactory> | undefined
  const load = () => {
    loading ??= lazy.load().catch((error: unknown) => {
      // The next call tries again rather than fail for the life of the isolate.
      loading = undefined
      if (isThinkwireError(error)) throw error
      const message = `${provider}: its SDK could not be loaded`
      throw new ThinkwireError({ kind: 'server', message, provider, cause: error })
    })
    return loading
  }
  const create = (model: string): Adapter => {
    let adapter: Adapter | undefined
    return {
      provider,
      model,
      capabilities: lazy.capabilities(model),
      async *stream(conversation, options) {
        adapter ??= (await load())(model)
        yield* adapter.stream(conversation, options)
      },
    }
  }
  return Object.assign(create, { models: lazy.models })
}
