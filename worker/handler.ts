import {
  checkConversationRequest,
  createRelay,
  refuseRequest,
  type RateLimiter,
  type Relay,
  type RelayLogEntry,
} from 'thinkwire/relay'
import { CLIENT_HEADER } from './conversation-object.ts'
import { durableRateLimiter } from './rate-limiter.ts'
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
        return refuseRequest(request, 500, 'server', message)
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
  // The route only: a socket's request has no body, and counts against nothing (its ticket did).
  const checked = await checkConversationRequest(request, '')
  if (!checked.ok || checked.op !== 'socket') {
    return refuseRequest(request, 404, 'invalid-request', 'only a conversation socket is upgraded')
  }
  const namespace = env.CONVERSATIONS
  const stub = namespace.get(namespace.idFromName(checked.id))
  const search = new URL(request.url).search
  return stub.fetch(new Request(`https://conversation/socket/${checked.id}${search}`, request))
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

/**
 * The routes of durable conversations (DESIGN §9), after the relay's CORS and auth: each goes to
 * its conversation's Durable Object (`GET /v1/conversations` to the client's index object) with
 * the client's id in a header the object trusts, since only this Worker can reach it, and the
 * caller's `traceparent`, which the answer's span continues. The relay's check comes first (the
 * route, the client's request rate, the body under the same size and time limits as `/v1/chat`),
 * so a body that is not JSON never wakes an object. A message or regenerate is checked against
 * the client's limits by its object, which knows the conversation, the model and its price (see
 * `ConversationObject`).
 */
function conversationRoutes(env: Env, rateLimiter: RateLimiter | undefined, bodyBytes: number) {
  return async (request: Request, clientId: string): Promise<Response> => {
    const arrived = performance.now()
    const checked = await checkConversationRequest(request, clientId, {
      rateLimiter,
      limits: { bodyBytes },
    })
    if (!checked.ok) return checked.response
    const namespace = env.CONVERSATIONS
    const { op, body } = checked
    // Only what the object reads: a client-sent copy of the client header never gets through.
    const headers = new Headers({ [CLIENT_HEADER]: clientId })
    const lastEventId = request.headers.get('last-event-id')
    if (lastEventId !== null) headers.set('last-event-id', lastEventId)
    // A read the client holds already is answered 304, without reading a turn.
    const held = request.headers.get('if-none-match')
    if (held !== null && op === 'get') headers.set('if-none-match', held)
    // The answer's span, made in the object, continues the caller's trace.
    const traceparent = request.headers.get('traceparent')
    if (traceparent !== null) headers.set('traceparent', traceparent)
    // Passed on as it came: the object parses it (the relay checked that it is JSON).
    if (body !== undefined) headers.set('content-type', 'application/json')
    // The list (and its export, and deleting all) is its client's index object's; any other
    // route, its conversation's.
    const id = checked.id ?? ''
    const name = checked.id === undefined ? `client:${clientId}` : id
    const stub = namespace.get(namespace.idFromName(name))
    const search = new URL(request.url).search
    const approval =
      checked.id === undefined || checked.approvalId === undefined ? '' : `/${checked.approvalId}`
    const reads = op === 'get' || op === 'stream' || op === 'list' || op === 'export'
    const answer = await stub.fetch(`https://conversation/${op}/${id}${approval}${search}`, {
      method: reads ? 'GET' : 'POST',
      headers,
      body: body ?? null,
    })
    // A fetched response's headers are immutable; the relay adds its CORS headers to this copy.
    const copy = new Response(answer.body, answer)
    // The relay's own time (body, limits, the object's checks); a message's model call starts as
    // its `turn` event is sent, so the browser times the model from that event to the first.
    const relayMs = (performance.now() - arrived).toFixed(1)
    // After the object's own (its server tools' time, once a loop ran them).
    const object = answer.headers.get('server-timing')
    const relay = `relay;dur=${relayMs};desc="checks"`
    copy.headers.set('server-timing', object === null ? relay : `${relay}, ${object}`)
    return copy
  }
}

/** One JSON line per request, for `wrangler tail` and Workers Logs. */
function logLine(entry: RelayLogEntry): void {
  console.log(JSON.stringify(entry))
}
