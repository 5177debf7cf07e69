import type { Adapter } from '../core/adapter.ts'
import { isThinkwireError, toThinkwireError, type ThinkwireError } from '../core/errors.ts'
import type { Registry } from '../core/registry.ts'
import { redactError } from '../kit/redact.ts'
import type { ErrorResponder } from './dialects.ts'
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
 * The adapter the registry gives for `model`, or the relay's answer when it gives none, in the
 * shape of `error` (the route's dialect): 404 for a model the relay does not serve (`allows` says
 * no) or the registry does not know, and by kind for anything a provider's factory threw (its
 * message redacted: a factory handles the key).
 */
export function resolveAdapter(
  registry: Registry,
  model: string,
  allows: (model: string) => boolean,
  error: ErrorResponder = errorResponse,
): Adapter | Response {
  if (!allows(model)) {
    const message = `model '${model}' is not served by this relay`
    return error(404, 'invalid-request', message, { field: 'model' })
  }
  try {
    return registry.resolve(model)
  } catch (thrown) {
    if (!isThinkwireError(thrown)) throw thrown
    const status = thrown.status === 404 ? 404 : statusFromKind(thrown.kind)
    return error(status, thrown.kind, redactError(thrown).message, { field: 'model' })
  }
}
