import type { ProviderEntry } from '../src/index.ts'
import { MIN_TOKEN_LENGTH } from '../src/relay/auth.ts'
import { matchConversationRoute, newConversationId } from '../src/relay/conversations/routes.ts'
import { readJsonBody } from '../src/relay/read-body.ts'
import { errorResponse, jsonResponse } from '../src/relay/responses.ts'
import {
  createRelay,
  type RateLimiter,
  type Relay,
  type RelayLogEntry,
} from '../src/relay/index.ts'
import { otlpTracing } from '../src/relay/otlp-exporter.ts'
import { CLIENT_HEADER } from './conversation-object.ts'
import { countRefusal, durableRateLimiter, limitsFromEnv } from './rate-limiter.ts'
import { registryFromEnv } from './registry.ts'
import {
  addressClientId,
  count,
  list,
  modelsSetting,
  secret,
  secrets,
  setting,
} from './settings.ts'

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
  const maxTokens = count(env, 'MAX_TOKENS', 0)
  const limits = limitsFromEnv(env)
  const rateLimiter =
    limits === undefined ? undefined : durableRateLimiter(env.RATE_LIMITER, limits)
  const bodyBytes = count(env, 'MAX_BODY_BYTES', 1024 * 1024)
  return createRelay({
    registry: registryFromEnv(env, options.providers),
    models: modelsSetting(env),
    // Without tokens, clients are told apart by address (set by Cloudflare's edge), IPv6 by /64.
    auth:
      tokens.length > 0
        ? tokens
        : (request) => addressClientId(request.headers.get('cf-connecting-ip')),
    // Token client ids are HMACs under this secret (without it, under one derived from the tokens).
    clientIdSecret,
    cors: origins.length === 0 ? undefined : { origins: origins.includes('*') ? '*' : origins },
    sealKeys: sealKeys.length === 0 ? undefined : sealKeys,
    rateLimiter,
    limits: {
      bodyBytes,
      turns: count(env, 'MAX_TURNS', 1000),
      maxTokens: maxTokens > 0 ? maxTokens : undefined,
    },
    heartbeatMs: count(env, 'HEARTBEAT_MS', 15_000),
    idleTimeoutMs: count(env, 'IDLE_TIMEOUT_MS', 60_000),
    conversations: conversationRoutes(env, rateLimiter, bodyBytes),
    log: logLine,
    // Traces to `OTEL_EXPORTER_OTLP_ENDPOINT`, sent after each answer with `waitUntil`; none when
    // it is unset. A conversation's object traces its own answers from the same settings.
    tracing: otlpTracing((name) => setting(env, name)),
  })
}

/** How long a conversation request may take to send its body, as for `/v1/chat`. */
const BODY_TIMEOUT_MS = 10_000

/**
 * The routes of durable conversations (DESIGN §9), after the relay's CORS and auth: each goes to
 * its conversation's Durable Object (`GET /v1/conversations` to the client's index object) with
 * the client's id in a header the object trusts, since only this Worker can reach it, and the
 * caller's `traceparent`, which the answer's span continues. The body is read here, under the
 * same size and time limits as `/v1/chat`, so a body that is not JSON never wakes an object. A
 * message or regenerate is checked against the client's limits by its object, which knows the
 * conversation, the model and its price (see `ConversationObject`).
 */
function conversationRoutes(env: Env, rateLimiter: RateLimiter | undefined, bodyBytes: number) {
  return async (request: Request, clientId: string): Promise<Response> => {
    const arrived = performance.now()
    const url = new URL(request.url)
    const route = matchConversationRoute(request.method, url.pathname)
    if (!route.ok) {
      if (route.status === 404) return errorResponse(404, 'invalid-request', 'no such conversation')
      const allow = route.allow ?? 'OPTIONS'
      return errorResponse(
        405,
        'invalid-request',
        `${request.method} is not allowed here`,
        {},
        {
          allow,
        },
      )
    }
    const namespace = env.CONVERSATIONS
    if (route.op === 'list') {
      const index = namespace.get(namespace.idFromName(`client:${clientId}`))
      return jsonResponse(200, await index.conversations())
    }
    // Only what the object reads: a client-sent copy of the client header never gets through.
    const headers = new Headers({ [CLIENT_HEADER]: clientId })
    const lastEventId = request.headers.get('last-event-id')
    if (lastEventId !== null) headers.set('last-event-id', lastEventId)
    // The answer's span, made in the object, continues the caller's trace.
    const traceparent = request.headers.get('traceparent')
    if (traceparent !== null) headers.set('traceparent', traceparent)
    let body: string | undefined
    const reads = route.op === 'create' || route.op === 'messages' || route.op === 'regenerate'
    const empty = request.body === null || request.headers.get('content-length') === '0'
    if (reads && !(route.op === 'create' && empty)) {
      const read = await readJsonBody(request, bodyBytes, BODY_TIMEOUT_MS)
      if (!read.ok) {
        // As on /v1/chat, a refused message still counts as a request.
        const counted =
          route.op === 'create' ? undefined : await countRefusal(rateLimiter, clientId)
        return counted ?? errorResponse(read.status, 'invalid-request', read.message)
      }
      // Passed on as it came: the object parses it (the Worker checked that it is JSON).
      body = read.text
    } else if (route.op === 'create') {
      body = '{}'
    }
    if (body !== undefined) headers.set('content-type', 'application/json')
    const id = route.id ?? newConversationId()
    const stub = namespace.get(namespace.idFromName(id))
    const answer = await stub.fetch(`https://conversation/${route.op}/${id}${url.search}`, {
      method: route.op === 'get' || route.op === 'stream' ? 'GET' : 'POST',
      headers,
      body: body ?? null,
    })
    // A fetched response's headers are immutable; the relay adds its CORS headers to this copy.
    const copy = new Response(answer.body, answer)
    // The relay's own time (body, limits, the object's checks); a message's model call starts as
    // its stream is answered, so the browser times the model from here to the first event.
    const relayMs = (performance.now() - arrived).toFixed(1)
    copy.headers.set('server-timing', `relay;dur=${relayMs};desc="checks"`)
    return copy
  }
}

/** One JSON line per request, for `wrangler tail` and Workers Logs. */
function logLine(entry: RelayLogEntry): void {
  console.log(JSON.stringify(entry))
}
