import type { Turn } from '../../core/conversation.ts'
import type { EventBatch } from './event-log.ts'

/** What the store needs of a SQLite handle: a Durable Object's `ctx.storage.sql` has it. */
export interface SqlHandle {
  exec(
    query: string,
    ...bindings: (string | number)[]
  ): { toArray(): Record<string, unknown>[]; readonly rowsWritten: number }
}

/**
 * JSON longer than this many characters (a long turn, or a batch holding a long `done`) is stored
 * over several rows: a row holds at most 2 MB, and a character takes at most 3 bytes of UTF-8.
 */
const ROW_CHARS = 500_000

const utf8 = new TextEncoder()

/**
 * A conversation's tables: one metadata row, its turns (a large turn over several rows), its
 * event batches (a large batch's frames in `event_parts`, its `events` row left empty), and, in a client's index object, the list of its conversations. No secondary
 * index, since each would add a row write to every insert; every write is counted in
 * `rowsWritten`, which is what storage is billed by.
 */
export function createConversationStore(sql: SqlHandle) {
  let rowsWritten = 0
  const write = (query: string, ...bindings: (string | number)[]) => {
    rowsWritten += sql.exec(query, ...bindings).rowsWritten
  }
  const rows = (query: string, ...bindings: (string | number)[]) =>
    sql.exec(query, ...bindings).toArray()

  const batchOf = (row: Record<string, unknown>): EventBatch => {
    const firstId = Number(row['first_id'])
    let json = String(row['frames'])
    if (json === '') {
      const parts = rows('SELECT json FROM event_parts WHERE first_id = ? ORDER BY id', firstId)
      json = parts.map((part) => String(part['json'])).join('')
    }
    return { firstId, frames: JSON.parse(json) as string[] }
  }

  const store = {
    createTables(): void {
      sql.exec(`
        CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY, json TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, last INTEGER NOT NULL, json TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS events (first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL, frames TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS event_parts (id INTEGER PRIMARY KEY, first_id INTEGER NOT NULL, json TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS listing (id TEXT PRIMARY KEY, json TEXT NOT NULL);
      `)
    },

    /** The metadata JSON, or undefined for a conversation never created. */
    meta(): unknown {
      const row = rows('SELECT json FROM meta')[0]
      return row === undefined ? undefined : JSON.parse(String(row['json']))
    },

    saveMeta(meta: unknown): void {
      write(
        'INSERT INTO meta (id, json) VALUES (0, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
        JSON.stringify(meta),
      )
    },

    /** Every stored turn, in order, with its size in bytes. */
    turns(): { turns: Turn[]; bytes: number[] } {
      const turns: Turn[] = []
      const bytes: number[] = []
      let json = ''
      for (const row of rows('SELECT json, last FROM turns ORDER BY id')) {
        json += String(row['json'])
        if (row['last'] !== 1) continue
        turns.push(JSON.parse(json) as Turn)
        bytes.push(utf8.encode(json).byteLength)
        json = ''
      }
      return { turns, bytes }
    },

    /** Stores turn number `seq`; returns its size in bytes. */
    addTurn(seq: number, turn: Turn): number {
      const json = JSON.stringify(turn)
      for (let at = 0; at === 0 || at < json.length; at += ROW_CHARS) {
        const last = at + ROW_CHARS >= json.length ? 1 : 0
        write(
          'INSERT INTO turns (seq, last, json) VALUES (?, ?, ?)',
          seq,
          last,
          json.slice(at, at + ROW_CHARS),
        )
      }
      return utf8.encode(json).byteLength
    },

    dropTurn(seq: number): void {
      write('DELETE FROM turns WHERE seq = ?', seq)
    },

    addEvents(batch: EventBatch): void {
      const json = JSON.stringify(batch.frames)
      const large = json.length > ROW_CHARS
      write(
        'INSERT INTO events (first_id, last_id, frames) VALUES (?, ?, ?)',
        batch.firstId,
        batch.firstId + batch.frames.length - 1,
        large ? '' : json,
      )
      if (!large) return
      for (let at = 0; at < json.length; at += ROW_CHARS) {
        write(
          'INSERT INTO event_parts (first_id, json) VALUES (?, ?)',
          batch.firstId,
          json.slice(at, at + ROW_CHARS),
        )
      }
    },

    /** The id of the last stored event (0 when none is). */
    lastEventId(): number {
      const last = rows('SELECT MAX(last_id) AS last FROM events')[0]?.['last']
      return typeof last === 'number' ? last : 0
    },

    /** The stored batches holding events after `after`: the one that holds it, and every later one. */
    eventsAfter(after: number): EventBatch[] {
      return rows(
        `SELECT first_id, frames FROM events
         WHERE first_id >= (SELECT COALESCE(MAX(first_id), 0) FROM events WHERE first_id <= ?)
         ORDER BY first_id`,
        after,
      ).map(batchOf)
    },

    /**
     * The stored batches from the one holding event `id` on, read a few rows at a time, so that
     * folding a long answer never holds all of it at once.
     */
    *batchesFrom(id: number, rowsPerRead = 16): Generator<EventBatch> {
      let last = id - 1
      for (;;) {
        const page = rows(
          `SELECT first_id, last_id, frames FROM events WHERE last_id > ? ORDER BY first_id LIMIT ?`,
          last,
          rowsPerRead,
        )
        for (const row of page) {
          last = Number(row['last_id'])
          yield batchOf(row)
        }
        if (page.length < rowsPerRead) return
      }
    },

    /** Index objects: adds or updates one entry of the list. */
    putListing(id: string, entry: unknown): void {
      write(
        'INSERT INTO listing (id, json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
        id,
        JSON.stringify(entry),
      )
    },

    deleteListing(id: string): void {
      write('DELETE FROM listing WHERE id = ?', id)
    },

    listing(): unknown[] {
      return rows('SELECT json FROM listing').map((row) => JSON.parse(String(row['json'])))
    },

    /** An alarm set (billed as a row write). */
    countAlarm(): void {
      rowsWritten++
    },

    get rowsWritten(): number {
      return rowsWritten
    },
  }
  return store
}

/** A conversation's tables. */
export type ConversationStore = ReturnType<typeof createConversationStore>
