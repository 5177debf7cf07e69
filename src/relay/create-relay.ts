import type { ErrorKind } from '../core/errors.ts'
import { createRegistry, type Registry } from '../core/registry.ts'
import { pricingAt } from '../core/pricing.ts'
import { aiSdkDialect } from './ai-sdk/index.ts'
import { messagesDialect } from './anthropic-messages/index.ts'
import { createAuthenticate, credentialsOf, type RelayRefusal } from './auth.ts'
import { chatRoute, type ChatSetup, type Trace } from './chat-route.ts'
import { chatDialect, completionsDialect, type Dialect, type ErrorResponder } from './dialects.ts'
import { createCors } from './cors.ts'
import { responsesDialect } from './openai-responses/index.ts'
import { resolveLimits, type Relay, type RelayContext, type RelayOptions } from './options.ts'
import { discardBody } from './read-body.ts'
import type { RateLimiter } from './rate-limit.ts'
import { errorOf, jsonResponse } from './responses.ts'
import { createSealer } from './seal.ts'
import { modelFilter } from './model-filter.ts'

/** Each route: its methods, and the dialect of its chat body, answers and errors. */
const ROUTES: Readonly<Record<string, { methods: readonly string[]; dialect: Dialect }>> = {
  '/v1/chat': { methods: ['POST'], dialect: chatDialect },
  '/v1/chat/completions': { methods: ['POST'], dialect: completionsDialect },
  '/v1/ai-sdk/chat': { methods: ['POST'], dialect: aiSdkDialect },
  '/v1/responses': { methods: ['POST'], dialect: responsesDialect },
  '/v1/messages': { methods: ['POST'], dialect: messagesDialect },
  '/v1/models': { methods: ['GET'], dialect: chatDialect },
  '/v1/usage': { methods: ['GET'], dialect: chatDialect },
}

/** Every path under it goes to the `conversations` hook, whose routes say their own methods. */
const CONVERSATIONS = '/v1/conversations'
const CONVERSATION_ROUTE = {
  methods: ['GET', 'POST', 'PATCH', 'DELETE'],
  dialect: chatDialect,
} as const

/**
 * Refuses a request as the relay refuses one, for a host that must answer before a relay exists,
 * such as a Worker whose settings are wrong: `status` with `{ "error": { "kind", "message" } }`
 * in the shape of the route the request asks for (OpenAI's on `/v1/chat/completions`), once the
 * body on its way is read and dropped (within the relay's default `limits`), as every refusal of
 * the relay's does, so the client keeps its connection. `message` says what is wrong: never a
 * secret, nor a setting's value.
 *
 * @example
 * ```ts
 * try {
 *   relay ??= createRelay(relayOptions(env))
 * } catch {
 *   return refuseRequest(request, 500, 'server', 'RELAY_TOKENS: a token is too short')
 * }
 * ```
 */
export async function refuseRequest(
  request: Request,
  status: number,
  kind: ErrorKind,
  message: string,
): Promise<Response> {
  const { bodyBytes, bodyTimeoutMs } = resolveLimits()
  await discardBody(request, bodyBytes, bodyTimeoutMs)
  const dialect = routeOf(new URL(request.url).pathname)?.dialect ?? chatDialect
  return dialect.error(status, kind, message)
}

function routeOf(path: string): { methods: readonly string[]; dialect: Dialect } | undefined {
  if (Object.hasOwn(ROUTES, path)) return ROUTES[path]
  if (path === CONVERSATIONS || path.startsWith(`${CONVERSATIONS}/`)) return CONVERSATION_ROUTE
  return undefined
}

/**
 * Creates the relay: a plain Web-standard fetch handler that serves `POST /v1/chat` (SSE) and
 * `GET /v1/models` from a registry of adapters, keeping provider keys on the server. Every refusal
 * is a JSON `{ "error": { "kind", "message" } }` with a 4xx status naming the field at fault.
 *
 * @example
 * ```ts
 * const relay = createRelay({
 *   providers: { anthropic: createAnthropic({ apiKey }) },
 *   auth: [clientToken], // 16 characters or more
 *   cors: { origins: ['https://app.example.com'] },
 *   sealKeys: [sealSecret],
 * })
 * export default { fetch: (request) => relay.fetch(request) }
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const registry = buildRegistry(options)
  const cors = createCors(options.cors)
  const authenticate = createAuthenticate(options.auth, { clientIdSecret: options.clientIdSecret })
  const setup: ChatSetup = {
    registry,
    allows: modelFilter(options.models),
    limits: resolveLimits(options.limits),
    sealer: options.sealKeys === undefined ? undefined : createSealer(options.sealKeys),
    rateLimiter: options.rateLimiter,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    tracing: options.tracing,
  }
  const log = options.log

  async function route(request: Request, url: URL, trace: Trace, context: RelayContext) {
    const preflight = request.method === 'OPTIONS'
    const known = routeOf(url.pathname)
    const errorResponse = known?.dialect.error ?? chatDialect.error
    const origin = cors.decide(request, url, preflight)
    if (!origin.allowed) {
      return errorResponse(403, 'auth', 'this origin is not allowed to call the relay')
    }
    const methods = known?.methods
    const allow = methods === undefined ? '' : [...methods, 'OPTIONS'].join(', ')
    let response: Response
    const conversations = known === CONVERSATION_ROUTE ? options.conversations : undefined
    if (
      known === undefined ||
      methods === undefined ||
      (known === CONVERSATION_ROUTE && conversations === undefined)
    ) {
      response = errorResponse(404, 'invalid-request', `no route for ${clip(url.pathname)}`)
    } else if (preflight) {
      response = new Response(null, { status: 204, headers: { allow } })
    } else if (!methods.includes(request.method)) {
      const message = `${request.method} is not allowed here`
      response = errorResponse(405, 'invalid-request', message, {}, { allow })
    } else {
      const clientId = await authenticate(credentialsOf(request, known.dialect.tokenHeader))
      if (typeof clientId !== 'string') {
        response = refusalResponse(errorResponse, clientId)
      } else {
        trace.entry.clientId = clientId
        if (conversations !== undefined) {
          response = await conversations(request, clientId, context)
        } else {
          response =
            url.pathname === '/v1/models'
              ? modelsResponse(registry, setup.allows)
              : url.pathname === '/v1/usage'
                ? await usageResponse(setup.rateLimiter, clientId)
                : await chatRoute(request, clientId, setup, trace, context, known.dialect)
        }
      }
    }
    for (const [name, value] of Object.entries(origin.headers)) response.headers.set(name, value)
    return response
  }

  return {
    async fetch(request, context = {}) {
      const started = Date.now()
      const url = new URL(request.url)
      // The path a client sent is its own text: only a route the relay serves goes to the log.
      const path = Object.hasOwn(ROUTES, url.pathname)
        ? url.pathname
        : routeOf(url.pathname) === CONVERSATION_ROUTE
          ? CONVERSATIONS
          : 'unknown'
      const trace: Trace = {
        entry: { method: request.method, path, status: 0, durationMs: 0 },
        streaming: false,
        write() {
          trace.entry.durationMs = Date.now() - started
          log?.(trace.entry)
        },
      }
      let response: Response
      try {
        response = await route(request, url, trace, context)
      } catch {
        // Only a fault of the relay's own setup gets here (a factory or auth hook that threw).
        const error = routeOf(url.pathname)?.dialect.error ?? chatDialect.error
        response = error(500, 'server', 'the relay failed to handle the request')
      }
      // The chat route read its body; any other answer lets a body on its way arrive, briefly.
      await discardBody(request, setup.limits.bodyBytes, setup.limits.bodyTimeoutMs)
      trace.entry.status = response.status
      if (!trace.streaming) {
        trace.entry.error ??= errorOf(response)
        trace.write()
      }
      return response
    },
  }
}

/** A refused request's answer in its route's dialect: 401 by default, or the hook's 403 or 503. */
function refusalResponse(errorResponse: ErrorResponder, refusal: RelayRefusal | null): Response {
  const message = refusal?.refuse ?? 'a valid bearer token is required'
  switch (refusal?.status ?? 401) {
    case 401:
      return errorResponse(401, 'auth', message, {}, { 'www-authenticate': 'Bearer' })
    case 403:
      return errorResponse(403, 'auth', message)
    case 503:
      return errorResponse(503, 'overloaded', message, { retryable: true })
  }
}

function buildRegistry(options: RelayOptions): Registry {
  if (options.registry !== undefined && options.providers !== undefined) {
    throw new TypeError('createRelay: give `registry` or `providers`, not both')
  }
  return options.registry ?? createRegistry(options.providers ?? {})
}

/**
 * `GET /v1/models`: the served models with their capabilities (`models`), and the same list in
 * OpenAI's shape (`object: 'list'`, `data`) for OpenAI clients. A relay with no provider says so
 * rather than serving nothing silently.
 */
function modelsResponse(registry: Registry, allows: (id: string) => boolean): Response {
  // Prices as they stand today: a price that changed shows its new rates, not the old ones.
  const now = Date.now()
  const models = registry
    .models()
    .filter((m) => allows(m.id))
    .map((m) => (m.pricing === undefined ? m : { ...m, pricing: pricingAt(m.pricing, now) }))
  const data = models.map((m) => ({
    id: m.id,
    object: 'model',
    created: 0,
    owned_by: m.provider,
  }))
  const body = { object: 'list', data, models }
  if (registry.providers.length > 0) return jsonResponse(200, body)
  return jsonResponse(200, {
    ...body,
    notice: 'this relay has no provider configured: give createRelay a registry or providers',
  })
}

/**
 * `GET /v1/usage`: what the caller has spent today and this month (UTC) in US dollars, and what is
 * left of each budget. A relay whose rate limiter keeps no spend says so with a 404.
 */
async function usageResponse(
  rateLimiter: RateLimiter | undefined,
  clientId: string,
): Promise<Response> {
  if (rateLimiter?.spend === undefined) {
    return chatDialect.error(404, 'invalid-request', 'this relay keeps no record of spend')
  }
  try {
    return jsonResponse(200, await rateLimiter.spend(clientId))
  } catch {
    return chatDialect.error(503, 'overloaded', 'the rate limiter is unavailable', {
      retryable: true,
    })
  }
}

function clip(path: string): string {
  return path.length > 100 ? `${path.slice(0, 100)}…` : path
}
