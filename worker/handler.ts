import { matchConversationRoute, newConversationId } from '../src/relay/conversations/routes.ts'
import { routeErrorResponse } from '../src/relay/create-relay.ts'
import { discardBody, readJsonBody } from '../src/relay/read-body.ts'
import { errorResponse } from '../src/relay/responses.ts'
import {
  createRelay,
  type RateLimiter,
  type Relay,
  type RelayLogEntry,
} from '../src/relay/index.ts'
import { CLIENT_HEADER } from './conversation-object.ts'
import { countRefusal, durableRateLimiter } from './rate-limiter.ts'
import { readRelaySettings, type HandlerOptions } from './relay-settings.ts'

export type { HandlerOptions } from './relay-settings.ts'

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
        // The body goes unread, as on any refusal: dropped first, or workerd resets the connection.
        await discardBody(request, 1024 * 1024, 10_000)
        return routeErrorResponse(request, 500, 'server', message)
      }
      relays.set(env, relay)
    }
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      return followerSocket(request, env)
    }
    return relay.fetch(request, { waitUntil: (promise) => ctx.waitUntil(promise) })
  }
}

/**
 * `GET /v1/conversations/:id/socket` with a WebSocket upgrade: a follower of the conversation, on
 * a socket its object holds while it sleeps. A browser's WebSocket sends no bearer header, so the
 * ticket the object issued to the client (`POST .../ticket`, after the relay's auth) is checked by
 * the object, which alone knows it. Nothing else is upgraded.
 */
async function followerSocket(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url)
  const route = matchConversationRoute(request.method, url.pathname)
  if (!route.ok || route.op !== 'socket' || route.id === undefined) {
    return errorResponse(404, 'invalid-request', 'only a conversation socket is upgraded')
  }
  const namespace = env.CONVERSATIONS
  const stub = namespace.get(namespace.idFromName(route.id))
  return stub.fetch(new Request(`https://conversation/socket/${route.id}${url.search}`, request))
}

function relayFromEnv(env: Env, options: HandlerOptions): Relay {
  const settings = readRelaySettings(env, options)
  const { limits, origins, request } = settings
  const rateLimiter =
    limits === undefined ? undefined : durableRateLimiter(env.RATE_LIMITER, limits)
  return createRelay({
    registry: settings.registry,
    models: settings.models,
    // Tokens (their ids HMACs under CLIENT_ID_SECRET), end-user JWTs, a custom Worker's hook; with
    // none, closed, or open to anyone by address when ALLOW_ANONYMOUS says so.
    auth: settings.auth,
    cors: origins.length === 0 ? undefined : { origins: origins.includes('*') ? '*' : origins },
    sealKeys: settings.sealKeys.length === 0 ? undefined : settings.sealKeys,
    rateLimiter,
    limits: request,
    heartbeatMs: settings.heartbeatMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    conversations: conversationRoutes(env, rateLimiter, request.bodyBytes),
    log: logLine,
    // Traces sent after each answer with `waitUntil`. A conversation's object traces its own
    // answers from the same settings.
    tracing: settings.tracing,
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
    // Creating one, and reading one whole (every turn read and encoded again), count as requests,
    // as a message does. The list and the streams are bounded otherwise (a client's conversations,
    // a conversation's readers).
    if (route.op === 'create' || route.op === 'get') {
      const refused = await countRefusal(rateLimiter, clientId)
      if (refused !== undefined) return refused
    }
    const namespace = env.CONVERSATIONS
    // Only what the object reads: a client-sent copy of the client header never gets through.
    const headers = new Headers({ [CLIENT_HEADER]: clientId })
    const lastEventId = request.headers.get('last-event-id')
    if (lastEventId !== null) headers.set('last-event-id', lastEventId)
    // A read the client holds already is answered 304, without reading a turn.
    const held = request.headers.get('if-none-match')
    if (held !== null && route.op === 'get') headers.set('if-none-match', held)
    // The answer's span, made in the object, continues the caller's trace.
    const traceparent = request.headers.get('traceparent')
    if (traceparent !== null) headers.set('traceparent', traceparent)
    let body: string | undefined
    const reads = route.op === 'create' || route.op === 'messages' || route.op === 'regenerate'
    const empty = request.body === null || request.headers.get('content-length') === '0'
    if (reads && !(route.op === 'create' && empty)) {
      const read = await readJsonBody(request, bodyBytes, BODY_TIMEOUT_MS)
      if (!read.ok) {
        // As on /v1/chat, a refused message still counts as a request (a create was counted).
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
    // The list is its client's index object's; any other route, its conversation's.
    const id = route.op === 'list' ? '' : (route.id ?? newConversationId())
    const stub = namespace.get(namespace.idFromName(id === '' ? `client:${clientId}` : id))
    const answer = await stub.fetch(`https://conversation/${route.op}/${id}${url.search}`, {
      method: route.op === 'get' || route.op === 'stream' ? 'GET' : 'POST',
      headers,
      body: body ?? null,
    })
    // A fetched response's headers are immutable; the relay adds its CORS headers to this copy.
    const copy = new Response(answer.body, answer)
    // The relay's own time (body, limits, the object's checks); a message's model call starts as
    // its `turn` event is sent, so the browser times the model from that event to the first.
    const relayMs = (performance.now() - arrived).toFixed(1)
    copy.headers.set('server-timing', `relay;dur=${relayMs};desc="checks"`)
    return copy
  }
}

/** One JSON line per request, for `wrangler tail` and Workers Logs. */
function logLine(entry: RelayLogEntry): void {
  console.log(JSON.stringify(entry))
}
