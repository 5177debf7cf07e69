import type { Adapter } from '../core/adapter.ts'

/**
 * What a wrapper reports about itself: the `provider`, `model` and `capabilities` of the adapter
 * it wraps. `capabilities` is copied only when the adapter has it, so no `undefined` property
 * appears where there was none.
 */
export function forwardIdentity(
  adapter: Adapter,
): Pick<Adapter, 'provider' | 'model' | 'capabilities'> {
  const { provider, model, capabilities } = adapter
  return capabilities === undefined ? { provider, model } : { provider, model, capabilities }
}
