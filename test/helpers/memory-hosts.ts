import initSqlJs, { type Database } from 'sql.js'
import type { ProviderEntry } from '../../src/core/registry.ts'
import { createRegistry } from '../../src/core/registry.ts'
import type { FollowerSocket } from '../../src/relay/conversations/fan-out.ts'
import {
  CLIENT_HEADER,
  ConversationHost,
  type ConversationHostSettings,
  type HostStorage,
  type ServerTools,
} from '../../src/relay/index.ts'

const SQL = await initSqlJs()

/** A {@link HostStorage} in memory: SQLite (sql.js) and one alarm, as a Durable Object has them. */
export type MemoryStorage = HostStorage & {
  /** The pending alarm's time, or null. */
  readonly alarm: number | null
  /**
   * The same database and alarm for a host started again, and this handle dead: what the host
   * that held it writes from now on is lost, as a process that was evicted writes nothing more.
   */
  reopen(): MemoryStorage
}

export function memoryStorage(): MemoryStorage {
  const state = { db: new SQL.Database() as Database, alarm: null as number | null }
  return storageOn(state)
}

function storageOn(state: { db: Database; alarm: number | null }): MemoryStorage {
  let dead = false
  const sql: HostStorage['sql'] = {
    exec(query, ...bindings) {
      if (dead) return { toArray: () => [], rowsWritten: 0 }
      const { db } = state
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
      return state.alarm
    },
    getAlarm: async () => state.alarm,
    setAlarm: async (at) => void (dead || (state.alarm = at)),
    deleteAlarm: async () => void (dead || (state.alarm = null)),
    deleteAll: async () => {
      if (dead) return
      state.db.close()
      state.db = new SQL.Database()
      state.alarm = null
    },
    reopen() {
      dead = true
      return storageOn(state)
    },
  }
}

/** One table of a database dump: how it was made, and its rows. */
export type StoredTable = { name: string; sql: string; rows: Record<string, unknown>[] }

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
  settings?: Partial<ConversationHostSettings> | undefined
  tools?: ServerTools | undefined
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
  const start = (name: string, again = false) => {
    let storage = storages.get(name)
    if (storage === undefined) storage = memoryStorage()
    else if (again) storage = storage.reopen()
    storages.set(name, storage)
    const host = new ConversationHost({
      storage,
      now: () => Date.now() + later,
      waitUntil: (promise) => void pending.push(promise),
      index: (owner) => async (call) => get(`client:${owner}`).index(call),
      listingOf: async (id) => get(id).listing(),
      exportOf: async (id) => get(id).exported(),
      deleteOf: (id) => get(id).erase(),
      registry: () => registry,
      sockets: () => sockets.get(name) ?? [],
      tools: options.tools,
      settings,
    })
    hosts.set(name, host)
    return host
  }
  const get = (name: string) => hosts.get(name) ?? start(name)
  return {
    get,
    storage: (name: string) => storages.get(name),
    /** Starts the host `name` again on its storage; the one before writes nothing more to it. */
    restart: (name: string) => start(name, true),
    /**
     * Writes `tables` (each table's `CREATE` statement and rows, as a database dump gives them:
     * what earlier code stored) as the storage of `name`, and starts its host on them.
     */
    load(name: string, tables: readonly StoredTable[]) {
      const storage = memoryStorage()
      for (const table of tables) {
        storage.sql.exec(`${table.sql};`)
        for (const row of table.rows) {
          const names = Object.keys(row)
          const marks = names.map(() => '?').join(', ')
          const values = names.map((column) => row[column] as string | number)
          storage.sql.exec(
            `INSERT INTO "${table.name}" (${names.join(', ')}) VALUES (${marks})`,
            ...values,
          )
        }
      }
      storages.set(name, storage)
      return start(name)
    },
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
      init: {
        body?: unknown
        headers?: Record<string, string>
        search?: string
        /** What the route names after the conversation (`/<approvalId>`). */
        path?: string
      } = {},
    ): Promise<Response> {
      const headers = new Headers({ [CLIENT_HEADER]: clientId, ...init.headers })
      if (init.body !== undefined) headers.set('content-type', 'application/json')
      const url = `https://conversation/${op}/${name}${init.path ?? ''}${init.search ?? ''}`
      const method = op === 'get' || op === 'stream' || op === 'list' ? 'GET' : 'POST'
      const body = init.body === undefined ? null : JSON.stringify(init.body)
      return get(name).fetch(new Request(url, { method, headers, body }))
    },
  }
}
