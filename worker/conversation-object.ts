import { DurableObject } from 'cloudflare:workers'
import type { ProviderEntry, Registry, Turn } from 'thinkwire'
import {
  ConversationHost,
  type ConversationHostSettings,
  type ConversationListing,
  type HostStats,
  type IndexCall,
  type ServerTools,
} from 'thinkwire/relay'
import { durableRateLimiter } from './rate-limiter.ts'
import { registryFromEnv } from './registry.ts'
import { conversationSettings } from './relay-settings.ts'
import { serverTools } from './tools.ts'

export { CLIENT_HEADER } from 'thinkwire/relay'
export type { ConversationListing }

/** Registries by the providers a class serves and the Worker's settings: one per isolate. */
const registries = new WeakMap<object, WeakMap<object, Registry>>()
const NO_PROVIDERS: { readonly [provider: string]: ProviderEntry } = Object.freeze({})

/**
 * One conversation (DESIGN §9), or, keyed `client:<id>`, one client's list of conversations: a
 * `ConversationHost` on this object's SQLite storage and alarm. The Worker reaches it one way,
 * by `fetch` (`https://conversation/<op>/<id>`, see `ConversationHost.fetch`); conversations and
 * their client's index reach each other by RPC (`index`, `listing`, `exported`, `erase`).
 */
export class ConversationObject extends DurableObject<Env> {
  #host: ConversationHost

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    const namespace = env.CONVERSATIONS
    const object = (name: string) => namespace.get(namespace.idFromName(name))
    this.#host = new ConversationHost({
      storage: ctx.storage,
      now: () => this.now(),
      waitUntil: (promise) => ctx.waitUntil(promise),
      index: (owner) => (call) => object(`client:${owner}`).index(call),
      listingOf: (id) => object(id).listing(),
      exportOf: (id) => object(id).exported(),
      deleteOf: (id) => object(id).erase(),
      registry: () => this.registry(),
      sockets: () => ctx.getWebSockets(),
      tools: this.serverTools(),
      settings: settingsOf(env),
    })
    // A follower's keep-alive is answered by the runtime, without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'))
  }

  /** Providers served besides those the settings configure (a test Worker adds scripted models). */
  protected providers(): { readonly [provider: string]: ProviderEntry } {
    return NO_PROVIDERS
  }

  /** The server tools a message may name (a test Worker adds its own). */
  protected serverTools(): ServerTools {
    return serverTools
  }

  /** The time dates, alarms and retention are judged by (a test moves it forward). */
  protected now(): number {
    return Date.now()
  }

  /** What the object holds and has written (see `HostStats`): for tests and benchmarks. */
  stats(): HostStats {
    return this.#host.stats()
  }

  /** The stored turns, items included (for the Worker's own checks; never sent to a browser). */
  storedTurns(): Turn[] {
    return this.#host.storedTurns()
  }

  /** This conversation's line in its client's list, for the index that asks (null once deleted). */
  listing(): ConversationListing | null {
    return this.#host.listing()
  }

  /** This conversation whole, as JSON, for its client's export (null once deleted). */
  exported(): string | null {
    return this.#host.exported()
  }

  /** Deletes this conversation, for its client's index (deleting them all). */
  erase(): Promise<void> {
    return this.#host.erase()
  }

  /** Index objects: what a conversation of this client says (see `IndexCall`). */
  index(call: IndexCall): boolean {
    return this.#host.index(call)
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return this.#host.fetch(request)
    }
    // A follower's socket, held with the hibernation API: the object may sleep while it is open.
    const admitted = this.#host.admitSocket(request)
    if (admitted instanceof Response) return admitted
    const { 0: client, 1: server } = new WebSocketPair()
    this.#host.joinSocket(admitted, () => {
      this.ctx.acceptWebSocket(server)
      return server
    })
    return new Response(null, { status: 101, webSocket: client })
  }

  /** A follower sends nothing but its keep-alive (answered by the runtime). */
  override webSocketMessage(): void {}

  override webSocketClose(socket: WebSocket, code: number): void {
    this.#host.socketClosed()
    try {
      // The client's close, answered (1005 and 1006 say it sent no code: they may not be sent).
      socket.close(code === 1005 || code === 1006 ? 1000 : code, 'closed')
    } catch {
      // Closed from here first: the client's close was its answer.
    }
  }

  override webSocketError(): void {
    this.#host.socketClosed()
  }

  override alarm(): Promise<void> {
    return this.#host.alarm()
  }

  /** The models this object serves: the settings' and `providers()`, one registry per isolate. */
  protected registry(): Registry {
    const providers = this.providers()
    let byEnv = registries.get(providers)
    if (byEnv === undefined) registries.set(providers, (byEnv = new WeakMap()))
    let registry = byEnv.get(this.env)
    if (registry === undefined)
      byEnv.set(this.env, (registry = registryFromEnv(this.env, providers)))
    return registry
  }
}

/** What a conversation's object reads of the Worker's settings, once (see `conversationSettings`). */
function settingsOf(env: Env): ConversationHostSettings {
  const { rateLimits, ...settings } = conversationSettings(env)
  const rateLimiter = rateLimits && durableRateLimiter(env.RATE_LIMITER, rateLimits)
  return { ...settings, rateLimiter }
}
