import type { Adapter } from '../core/adapter.ts'
import { isThinkwireError, toThinkwireError, type ThinkwireError } from '../core/errors.ts'
import type { Registry } from '../core/registry.ts'
import { redactError } from '../kit/redact.ts'
import { errorResponse } from './responses.ts'
import { statusFromKind } from './status.ts'

/**
 * What the relay answers, logs and stores for anything a model call threw: a `ThinkwireError`
 * whose message holds no credential, also from an adapter that is not built on `guardStream`
 * (which redacts its own).
 */
export function relayFailure(
  error: unknown,
  provider: string | undefined,
  signal?: AbortSignal | undefined,
): ThinkwireError {
  return redactError(toThinkwireError(error, provider, signal))
}

/**
 * The adapter the registry gives for `model`, or the relay's answer when it gives none: 404 for a
 * model the relay does not serve (`allows` says no) or the registry does not know, and by kind
 * for anything a provider's factory threw (its message redacted: a factory handles the key).
 */
export function resolveAdapter(
  registry: Registry,
  model: string,
  allows: (model: string) => boolean,
): Adapter | Response {
  if (!allows(model)) {
    return errorResponse(404, 'invalid-request', `model '${model}' is not served by this relay`, {
      field: 'model',
    })
  }
  try {
    return registry.resolve(model)
  } catch (error) {
    if (!isThinkwireError(error)) throw error
    const status = error.status === 404 ? 404 : statusFromKind(error.kind)
    return errorResponse(status, error.kind, redactError(error).message, { field: 'model' })
  }
}
