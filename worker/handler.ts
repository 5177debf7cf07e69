import type { ProviderEntry } from '../src/index.ts'
import { MIN_TOKEN_LENGTH } from '../src/relay/auth.ts'
import { createRelay, type RateLimits, type Relay, type RelayLogEntry } from '../src/relay/index.ts'
import { durableRateLimiter } from './rate-limiter.ts'
import { registryFromEnv } from './registry.ts'
import { addressClientId, count, list, secret, secrets, setting } from './settings.ts'

/** Options of {@link createHandler}. */
export type HandlerOptions = {
  /** Providers served besides those the settings configure (a test worker adds scripted mocks). */
  providers?: { readonly [provider: string]: ProviderEntry } | undefined
}

/** The shortest seal key or client-id secret accepted (256 bits of a random hex or base64 string). */
const MIN_SECRET_LENGTH = 32

/** The Worker's fetch: builds the relay from `env` once per isolate and hands it each request. */
export function createHandler(options: HandlerOptions = {}) {
  const relays = new WeakMap<Env, Relay>()
  return async (request: Request, env: Env, ctx: ExecutionContext): Promise<Response> => {
    let relay = relays.get(env)
    if (relay === undefined) {
      try {
        relay = relayFromEnv(env, options)
      } catch (error) {
        // A setting is wrong: say which (the message names it, never its value).
        const message = error instanceof TypeError ? error.message : 'the relay could not start'
        console.error(JSON.stringify({ event: 'config-error', message }))
        return Response.json({ error: { kind: 'server', message } }, { status: 500 })
      }
      relays.set(env, relay)
    }
    return relay.fetch(request, { waitUntil: (promise) => ctx.waitUntil(promise) })
  }
}

function relayFromEnv(env: Env, options: HandlerOptions): Relay {
  // Secrets split on commas only, so a passphrase with spaces stays one key.
  const tokens = secrets(env, 'RELAY_TOKENS', { minLength: MIN_TOKEN_LENGTH, spaces: false })
  const sealKeys = secrets(env, 'SEAL_KEYS', { minLength: MIN_SECRET_LENGTH })
  const clientIdSecret = secret(env, 'CLIENT_ID_SECRET', MIN_SECRET_LENGTH)
  const origins = list(setting(env, 'ALLOWED_ORIGINS'))
  const models = list(setting(env, 'MODELS'))
  const maxTokens = count(env, 'MAX_TOKENS', 0)
  const limits: RateLimits = {}
  const rpm = count(env, 'RATE_LIMIT_REQUESTS_PER_MINUTE', 0)
  const tpm = count(env, 'RATE_LIMIT_TOKENS_PER_MINUTE', 0)
  if (rpm > 0) limits.requestsPerMinute = rpm
  if (tpm > 0) limits.tokensPerMinute = tpm
  return createRelay({
    registry: registryFromEnv(env, options.providers),
    models: models.length === 0 ? undefined : models,
    // Without tokens, clients are told apart by address (set by Cloudflare's edge), IPv6 by /64.
    auth:
      tokens.length > 0
        ? tokens
        : (request) => addressClientId(request.headers.get('cf-connecting-ip')),
    // Token client ids are HMACs under this secret (without it, under one derived from the tokens).
    clientIdSecret,
    cors: origins.length === 0 ? undefined : { origins: origins.includes('*') ? '*' : origins },
    sealKeys: sealKeys.length === 0 ? undefined : sealKeys,
    rateLimiter: rpm > 0 || tpm > 0 ? durableRateLimiter(env.RATE_LIMITER, limits) : undefined,
    limits: {
      bodyBytes: count(env, 'MAX_BODY_BYTES', 1024 * 1024),
      turns: count(env, 'MAX_TURNS', 1000),
      maxTokens: maxTokens > 0 ? maxTokens : undefined,
    },
    heartbeatMs: count(env, 'HEARTBEAT_MS', 15_000),
    idleTimeoutMs: count(env, 'IDLE_TIMEOUT_MS', 60_000),
    log: logLine,
  })
}

/** One JSON line per request, for `wrangler tail` and Workers Logs. */
function logLine(entry: RelayLogEntry): void {
  console.log(JSON.stringify(entry))
}
