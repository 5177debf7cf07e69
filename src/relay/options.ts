import type { ProviderEntry, Registry } from '../core/registry.ts'
import type { ErrorKind } from '../core/errors.ts'
import type { RelayAuth } from './auth.ts'
import type { CorsOptions } from './cors.ts'
import type { RateLimiter } from './rate-limit.ts'
import type { TracingOptions } from './tracing.ts'

/** Size and shape bounds of a chat request. */
export type RelayLimits = {
  /** Largest body, in bytes. @defaultValue 1048576 (1 MiB) */
  bodyBytes?: number | undefined
  /** Most turns in a conversation. @defaultValue 1000 */
  turns?: number | undefined
  /** Largest `maxTokens` (and `thinking.budgetTokens`) a client may ask for. @defaultValue 1000000 */
  maxTokens?: number | undefined
  /** Most tools in a request. @defaultValue 128 */
  tools?: number | undefined
  /** Deepest nesting of pass-through JSON (schemas, tool inputs and outputs, items). @defaultValue 64 */
  depth?: number | undefined
  /** Most tool calls in one assistant turn. @defaultValue 128 */
  toolCalls?: number | undefined
  /** Most results in one tool turn. @defaultValue 128 */
  toolResults?: number | undefined
  /** How long a client may take to send its chat body before a 408. @defaultValue 10000 */
  bodyTimeoutMs?: number | undefined
}

/**
 * One line for the relay's log. Holds no key, token, seal secret, request body, client-provided
 * text or upstream message (those echo prompts): only the relay's own names, field paths and counts.
 */
export type RelayLogEntry = {
  method: string
  /** The route (`/v1/chat`, ...), or `'unknown'` for a path the relay does not serve. */
  path: string
  status: number
  /** The client's id (an HMAC of its token, a JWT's `jwt:<sub>`, or its address; never a token). */
  clientId?: string | undefined
  /** The model, once the relay knows it serves it. */
  model?: string | undefined
  /** How a stream ended, or `'cancel'` when the client left before it started. */
  outcome?: 'done' | 'error' | 'cancel' | undefined
  /** What went wrong: its kind, the request field at fault, and the upstream's HTTP status. */
  error?: { kind: ErrorKind; field?: string | undefined; status?: number | undefined } | undefined
  /** The turn's token counts, and its cost in US dollars when the model's price is known. */
  usage?: { inputTokens: number; outputTokens: number; cost?: number | undefined } | undefined
  /** What the relay changed in the request (dropped items, say): field paths and reasons only. */
  notes?: string[] | undefined
  durationMs: number
}

/** Options of `createRelay`. Every one is optional. */
export type RelayOptions = {
  /** The models the relay serves, as a registry (see `createRegistry`). */
  registry?: Registry | undefined
  /**
   * Or the providers to build that registry from. With neither, the relay serves nothing, and
   * `GET /v1/models` says so.
   */
  providers?: { readonly [provider: string]: ProviderEntry } | undefined
  /** Only these `"provider/model"` ids (or `"provider/*"`) are served. @defaultValue all */
  models?: readonly string[] | undefined
  /**
   * Bearer tokens, or a function naming the client (see `jwtAuth` for end-user tokens). A hook may
   * refuse with a reason (`{ refuse: 'the token has expired' }`), which the 401 tells the client.
   * @defaultValue no auth: every request is the client `'anonymous'`
   */
  auth?: RelayAuth | undefined
  /** Browser origins allowed to call. @defaultValue none: cross-origin browser calls are refused */
  cors?: CorsOptions | undefined
  limits?: RelayLimits | undefined
  /** Per-client budget, checked before each call and settled with the real usage after it. */
  rateLimiter?: RateLimiter | undefined
  /**
   * The HMAC key that turns a bearer token of `auth` into the client id the rate limiter, the log
   * and conversations see: a string (its UTF-8 bytes) or the key bytes. Give it whenever ids must
   * outlive a change of the token list (a stored conversation belongs to its client's id).
   * @defaultValue derived from the token list: the same in every process with that list, but every
   * id changes when a token is added or removed
   */
  clientIdSecret?: string | Uint8Array | undefined
  /** HMAC secrets that seal the `done` turns: the first signs, all verify. */
  sealKeys?: readonly string[] | undefined
  /** A comment goes out after this much silence. @defaultValue 15000 */
  heartbeatMs?: number | undefined
  /** Passed upstream as `CallOptions.idleTimeoutMs`; 0 turns it off. @defaultValue 60000 */
  idleTimeoutMs?: number | undefined
  /**
   * Serves every path under `/v1/conversations` (durable conversations, DESIGN §9), after the
   * same CORS and auth as `/v1/chat`: it gets the request and the client's id. Without it those
   * paths are 404.
   */
  conversations?:
    | ((request: Request, clientId: string, context: RelayContext) => Promise<Response>)
    | undefined
  /** Receives one entry per request. */
  log?: ((entry: RelayLogEntry) => void) | undefined
  /**
   * Traces: one span per model call with the OpenTelemetry GenAI attributes, continuing the
   * request's `traceparent`, handed to `tracing.exporter` after the answer (see `otlpExporter`).
   * No prompt or answer text unless `captureContent`. @defaultValue no traces
   */
  tracing?: TracingOptions | undefined
}

/** Extra hooks of one request, from the runtime (e.g. a Worker's `ctx`). */
export type RelayContext = {
  /** Keeps work alive after the response (usage settlement after a client leaves). */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
}

/** The relay: a Web-standard fetch handler. */
export type Relay = {
  fetch(request: Request, context?: RelayContext): Promise<Response>
}

/** `limits` with every default filled in. */
export type ResolvedLimits = Required<{ [K in keyof RelayLimits]: number }>

export function resolveLimits(limits: RelayLimits = {}): ResolvedLimits {
  return {
    bodyBytes: limits.bodyBytes ?? 1024 * 1024,
    turns: limits.turns ?? 1000,
    maxTokens: limits.maxTokens ?? 1_000_000,
    tools: limits.tools ?? 128,
    depth: limits.depth ?? 64,
    toolCalls: limits.toolCalls ?? 128,
    toolResults: limits.toolResults ?? 128,
    bodyTimeoutMs: limits.bodyTimeoutMs ?? 10_000,
  }
}
