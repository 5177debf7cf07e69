import initSqlJs, { type Database } from 'sql.js'
import type { ProviderEntry } from '../../src/core/registry.ts'
import { createRegistry } from '../../src/core/registry.ts'
import type { FollowerSocket } from '../../src/relay/conversations/fan-out.ts'
import {
  CLIENT_HEADER,
  ConversationHost,
  type ConversationHostSettings,
  type HostStorage,
} from '../../src/relay/index.ts'

const SQL = await initSqlJs()

/** A {@link HostStorage} in memory: SQLite (sql.js) and one alarm, as a Durable Object has them. */
export type MemoryStorage = HostStorage & {
  /** The pending alarm's time, or null. */
  readonly alarm: number | null
}

export function memoryStorage(): MemoryStorage {
  let db: Database = new SQL.Database()
  let alarm: number | null = null
  const sql: HostStorage['sql'] = {
    exec(query, ...bindings) {
      // The schema is several statements, with no bindings; every other query is one.
      if (bindings.length === 0 && query.includes(';')) {
        db.exec(query)
        return { toArray: () => [], rowsWritten: db.getRowsModified() }
      }
      const statement = db.prepare(query)
      statement.bind(bindings)
      const rows: Record<string, unknown>[] = []
      while (statement.step()) rows.push(statement.getAsObject())
      statement.free()
      const writes = /^\s*(INSERT|UPDATE|DELETE|REPLACE)/i.test(query) ? db.getRowsModified() : 0
      return { toArray: () => rows, rowsWritten: writes }
    },
  }
  return {
    sql,
    get alarm() {
      return alarm
    },
    getAlarm: async () => alarm,
    setAlarm: async (at) => void (alarm = at),
    deleteAlarm: async () => void (alarm = null),
    deleteAll: async () => {
      db.close()
      db = new SQL.Database()
      alarm = null
    },
  }
}

/** The settings a test's hosts start from: every bound off but the sizes. */
export const HOST_SETTINGS: ConversationHostSettings = {
  turns: 100,
  bytes: 1024 * 1024,
  perClient: 0,
  readers: 0,
  ttlMs: 0,
  heartbeatMs: 0,
  idleTimeoutMs: 0,
}

/**
 * Hosts by name, as a Durable Object namespace holds objects: each with its own storage, reaching
 * the others (a conversation its client's index, the index each conversation) as objects do.
 * `restart` starts a host again on what its storage holds, as an eviction does.
 */
export function memoryHosts(options: {
  providers: { readonly [provider: string]: ProviderEntry }
  settings?: Partial<ConversationHostSettings>
}) {
  const registry = createRegistry(options.providers)
  const settings = { ...HOST_SETTINGS, ...options.settings }
  const storages = new Map<string, MemoryStorage>()
  const hosts = new Map<string, ConversationHost>()
  /** The follower sockets each host's runtime holds. */
  const sockets = new Map<string, FollowerSocket[]>()
  let later = 0
  /** Work handed to `waitUntil`, awaited by `settled`. */
  const pending: Promise<unknown>[] = []
  const start = (name: string) => {
    let storage = storages.get(name)
    if (storage === undefined) storages.set(name, (storage = memoryStorage()))
    const host = new ConversationHost({
      storage,
      now: () => Date.now() + later,
      waitUntil: (promise) => void pending.push(promise),
      index: (owner) => async (call) => get(`client:${owner}`).index(call),
      listingOf: async (id) => get(id).listing(),
      registry: () => registry,
      sockets: () => sockets.get(name) ?? [],
      settings,
    })
    hosts.set(name, host)
    return host
  }
  const get = (name: string) => hosts.get(name) ?? start(name)
  return {
    get,
    storage: (name: string) => storages.get(name),
    restart: start,
    /** Moves every host's clock forward. */
    travel(ms: number) {
      later += ms
    },
    settled: () => Promise.all(pending),
    /**
     * A socket follower of `name` with a ticket of `clientId`, as the runtime holds one: what it
     * was sent, message by message, and whether it was closed; or the refusal.
     */
    async follow(name: string, clientId: string, query = '') {
      const issued = await this.request(name, 'ticket', clientId)
      const { ticket } = (await issued.json()) as { ticket: string }
      const url = `https://conversation/socket/${name}?ticket=${ticket}${query}`
      const admitted = get(name).admitSocket(new Request(url))
      if (admitted instanceof Response) return admitted
      const socket = { sent: [] as string[], closed: false }
      const held: FollowerSocket = {
        send: (message) => void socket.sent.push(message),
        close: () => void (socket.closed = true),
      }
      get(name).joinSocket(admitted, () => {
        sockets.set(name, [...(sockets.get(name) ?? []), held])
        return held
      })
      return {
        ticket,
        sent: socket.sent,
        get closed() {
          return socket.closed
        },
        get text() {
          return socket.sent.join('')
        },
      }
    },
    /** A request to the host `name`, as the relay sends it. */
    request(
      name: string,
      op: string,
      clientId: string,
      init: { body?: unknown; headers?: Record<string, string>; search?: string } = {},
    ): Promise<Response> {
      const headers = new Headers({ [CLIENT_HEADER]: clientId, ...init.headers })
      if (init.body !== undefined) headers.set('content-type', 'application/json')
      const url = `https://conversation/${op}/${name}${init.search ?? ''}`
      const method = op === 'get' || op === 'stream' || op === 'list' ? 'GET' : 'POST'
      const body = init.body === undefined ? null : JSON.stringify(init.body)
      return get(name).fetch(new Request(url, { method, headers, body }))
    },
  }
}
