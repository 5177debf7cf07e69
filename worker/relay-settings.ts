import type { ProviderEntry, Registry } from 'thinkwire'
import {
  otlpTracing,
  type ConversationHostSettings,
  type MemoryLimits,
  type RelayAuth,
  type TracingOptions,
} from 'thinkwire/relay'
import { hasAuth, readAuthSettings, workerAuth } from './client-auth.ts'
import { registryFromEnv } from './registry.ts'
import {
  conversationBounds,
  limitsFromEnv,
  list,
  MIN_SECRET_LENGTH,
  modelsSetting,
  requestBounds,
  secrets,
  setting,
  streamTimes,
  type ConversationBounds,
} from './settings.ts'

/** Options of the Worker's handler (`createHandler`), for a custom Worker built on it. */
export type HandlerOptions = {
  /** Providers served besides those the settings configure (a test worker adds scripted mocks). */
  providers?: { readonly [provider: string]: ProviderEntry } | undefined
  /**
   * Admits clients besides `RELAY_TOKENS` and `AUTH_JWKS_URL` (a custom Worker's session check,
   * say): a hook, or tokens that join `RELAY_TOKENS`. Any of the three closes the relay to
   * everyone else, whatever `ALLOW_ANONYMOUS` says.
   */
  auth?: RelayAuth | undefined
}

/** Everything the Worker reads of its settings, checked. */
export type RelaySettings = {
  registry: Registry
  /** `MODELS`: the served ids, or undefined for every model of the registry. */
  models: string[] | undefined
  auth: RelayAuth
  /** Whether the relay admits anyone: no auth is set and `ALLOW_ANONYMOUS` is "true". */
  open: boolean
  /** `ALLOWED_ORIGINS`. */
  origins: string[]
  /** `SEAL_KEYS`. */
  sealKeys: string[]
  /** The per-client rate limits and budgets, or undefined for none. */
  limits: MemoryLimits | undefined
  /** `MAX_BODY_BYTES`, `MAX_TURNS` and `MAX_TOKENS` (undefined: the relay's default). */
  request: { bodyBytes: number; turns: number; maxTokens: number | undefined }
  heartbeatMs: number
  idleTimeoutMs: number
  tracing: TracingOptions | undefined
  /** What each conversation's object reads: checked here, so a bad one is seen at once. */
  conversations: ConversationBounds
}

/**
 * Reads every setting of the Worker from `env` (its `Env`, or the values `npm start` is about to
 * pass to `wrangler dev`), and throws a `TypeError` naming the first that is wrong, never its
 * value. Runs in Node as well as in workerd: nothing here imports `cloudflare:*`.
 */
export function readRelaySettings(env: object, options: HandlerOptions = {}): RelaySettings {
  // Auth first: the settings a deployment must get right before any other.
  const authSettings = readAuthSettings(env)
  const auth = workerAuth(authSettings, options.auth)
  // Secrets split on commas only, so a passphrase with spaces stays one key.
  const sealKeys = secrets(env, 'SEAL_KEYS', { minLength: MIN_SECRET_LENGTH })
  return {
    registry: registryFromEnv(env, options.providers),
    models: modelsSetting(env),
    auth,
    open: authSettings.allowAnonymous && !hasAuth(authSettings, options.auth),
    origins: list(setting(env, 'ALLOWED_ORIGINS')),
    sealKeys,
    limits: limitsFromEnv(env),
    request: requestBounds(env),
    ...streamTimes(env),
    // Traces to `OTEL_EXPORTER_OTLP_ENDPOINT`; none when it is unset.
    tracing: otlpTracing((name) => setting(env, name)),
    conversations: conversationBounds(env),
  }
}

const HOUR_MS = 60 * 60 * 1000
const DAY_MS = 24 * HOUR_MS

/**
 * What a conversation's object reads of the Worker's settings, for its host: every setting but the
 * rate limiter, whose per-client limits (`rateLimits`, undefined for none) the object backs with
 * its own Durable Objects. The Worker checks them all at its start (`readRelaySettings`); seal keys
 * or a tracing endpoint it would refuse turn approvals' shared keys or tracing off here.
 */
export function conversationSettings(
  env: object,
): Omit<ConversationHostSettings, 'rateLimiter'> & { rateLimits: MemoryLimits | undefined } {
  const bounds = conversationBounds(env)
  return {
    models: modelsSetting(env),
    limits: requestBounds(env),
    turns: bounds.turns,
    bytes: bounds.bytes,
    perClient: bounds.perClient,
    readers: bounds.readers,
    rateLimits: limitsFromEnv(env),
    ...streamTimes(env),
    ttlMs: bounds.ttlDays * DAY_MS,
    tracing: tracingOf(env),
    approvalKeys: approvalKeysOf(env),
    approvalMs: bounds.approvalHours * HOUR_MS,
  }
}

/**
 * The keys of approval ids: `SEAL_KEYS`, the relay's keys for what crosses a browser and must come
 * back unchanged, which rotate (the first signs, all verify). Not `CLIENT_ID_SECRET`: it names the
 * clients and can never rotate. Without `SEAL_KEYS` (or with a wrong one, which stops the Worker
 * before any request reaches an object), each conversation makes its own key.
 */
function approvalKeysOf(env: object): string[] {
  try {
    return secrets(env, 'SEAL_KEYS', { minLength: MIN_SECRET_LENGTH })
  } catch {
    return []
  }
}

/**
 * The answers' spans, from the settings the Worker traces `/v1/chat` with. A wrong endpoint stops
 * the Worker before any request reaches an object (it answers 500 naming the setting), so here it
 * only turns tracing off.
 */
function tracingOf(env: object): TracingOptions | undefined {
  try {
    return otlpTracing((name) => setting(env, name))
  } catch {
    return undefined
  }
}
