import type { Turn } from '../../core/conversation.ts'
import { storedFrames, type EventBatch } from './event-log.ts'

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

/** Stored batches read per query when a replay or a fold pages through them. */
const ROWS_PER_READ = 4

/** `json` cut into rows of at most {@link ROW_CHARS}, never between the halves of a surrogate pair. */
function rowsOf(json: string): string[] {
  // Nearly every turn, step and queued message is one row.
  if (json.length <= ROW_CHARS) return [json]
  const rows: string[] = []
  let at = 0
  do {
    let end = Math.min(json.length, at + ROW_CHARS)
    const code = json.charCodeAt(end - 1)
    if (end < json.length && code >= 0xd800 && code <= 0xdbff) end--
    rows.push(json.slice(at, end))
    at = end
  } while (at < json.length)
  return rows
}

/**
 * A conversation's tables: one metadata row, its turns (a large turn over several rows), its
 * event batches (the frames sent, see `EventBatch`; a large batch's text in `event_parts`, its
 * `events` row left empty), its tool loop's step and approvals, and, in a client's index object,
 * the list of its conversations. No secondary index, since each would add a row write to every
 * insert: reads go by the primary keys (batches by their first id, turns in insertion order).
 * Every write is counted in `rowsWritten`, which is what storage is billed by. Nothing read is
 * kept: callers load what a request needs.
 */
export function createConversationStore(sql: SqlHandle) {
  let rowsWritten = 0
  /**
   * This store's tables that exist (the runtime may keep tables of its own), each with the
   * statement that made it: one read as the object starts.
   */
  const tablesMade = () =>
    sql
      .exec(
        `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => '?').join(', ')})`,
        ...TABLES,
      )
      .toArray()
  // The schema is written with the first row, not when the object starts: a request for an id
  // that was never created (a 404) leaves no database behind. Until then every read is empty.
  const made = tablesMade()
  let hasTables = made.length > 0
  // A database written before a table was added gets it now (every table is made if missing), and
  // turns stored before branches get the column of their parent, and before loops were kept with
  // their messages, the column of the loop.
  if (hasTables && made.length < TABLES.length) sql.exec(SCHEMA)
  if (hasTables) {
    const turns = String(made.find((table) => table['name'] === 'turns')?.['sql'] ?? '')
    if (turns !== '' && !/\bparent\b/.test(turns)) {
      sql.exec('ALTER TABLE turns ADD COLUMN parent INTEGER')
    }
    if (turns !== '' && !/\bloop\b/.test(turns)) sql.exec('ALTER TABLE turns ADD COLUMN loop TEXT')
  }
  const write = (query: string, ...bindings: (string | number)[]) => {
    if (!hasTables) {
      sql.exec(SCHEMA)
      hasTables = true
    }
    rowsWritten += sql.exec(query, ...bindings).rowsWritten
  }
  const rows = (query: string, ...bindings: (string | number)[]) =>
    hasTables ? sql.exec(query, ...bindings).toArray() : []

  const batchOf = (row: Record<string, unknown>): EventBatch => {
    const firstId = Number(row['first_id'])
    let text = String(row['frames'])
    if (text === '') {
      const parts = rows('SELECT json FROM event_parts WHERE first_id = ? ORDER BY id', firstId)
      text = parts.map((part) => String(part['json'])).join('')
    }
    return { firstId, lastId: Number(row['last_id']), text: storedFrames(text, firstId) }
  }

  /** A turn from its rows, in order. */
  const turnOf = (parts: readonly Record<string, unknown>[]) =>
    JSON.parse(parts.map((row) => String(row['json'])).join('')) as Turn

  const store = {
    /** Everything was deleted (`deleteAll`): the schema is written again with the next row. */
    deleted(): void {
      hasTables = false
    },

    /** How many tables the database holds: none until the first row is written. */
    tables(): number {
      return tablesMade().length
    },

    /**
     * The metadata JSON (undefined for a conversation never created), and what the newest turn row
     * keeps of its loop, if anything (see `addTurn`), in one read as the object starts: every turn
     * is stored with the metadata or keeps where its loop is, so the newest says what the metadata
     * may not. Its row's other columns are not read.
     */
    meta(): { meta: unknown; loop: unknown } {
      const row = rows(
        'SELECT json, (SELECT loop FROM turns ORDER BY id DESC LIMIT 1) AS loop FROM meta',
      )[0]
      if (row === undefined) return { meta: undefined, loop: undefined }
      const loop = row['loop']
      return {
        meta: JSON.parse(String(row['json'])),
        loop: typeof loop === 'string' ? JSON.parse(loop) : undefined,
      }
    },

    saveMeta(meta: unknown): void {
      write(
        'INSERT INTO meta (id, json) VALUES (0, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
        JSON.stringify(meta),
      )
    },

    /**
     * The turns numbered `seqs`, in the order stored (a path's order: a child is stored after its
     * parent). Read for a model call, and not kept by the store.
     */
    turns(seqs: readonly number[]): Turn[] {
      const turns: Turn[] = []
      let parts: Record<string, unknown>[] = []
      const found = rows(
        `SELECT json, last FROM turns WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY id`,
        JSON.stringify(seqs),
      )
      for (const row of found) {
        parts.push(row)
        if (row['last'] !== 1) continue
        turns.push(turnOf(parts))
        parts = []
      }
      return turns
    },

    /**
     * The turns numbered `seqs` as a browser sees them, each as its JSON, in the order stored: an
     * assistant turn without its items (see `displayTurn`). A turn of one row (nearly all) is
     * stripped by SQLite, so a read of the conversation never parses or encodes the items again in
     * the isolate, which may be megabytes of a provider's encrypted reasoning; a turn of several
     * rows is joined and stripped here.
     */
    shownTurns(seqs: readonly number[], strip: (turn: Turn) => Turn): string[] {
      const shown: string[] = []
      let parts: Record<string, unknown>[] = []
      const found = rows(
        `SELECT last, CASE WHEN whole = 1 THEN json_remove(json, '$.items') END AS shown,
           CASE WHEN whole = 1 THEN NULL ELSE json END AS json
         FROM (SELECT id, last, json,
                 (last = 1 AND COALESCE(LAG(last) OVER (ORDER BY id), 1) = 1) AS whole
               FROM turns WHERE seq IN (SELECT value FROM json_each(?)))
         ORDER BY id`,
        JSON.stringify(seqs),
      )
      for (const row of found) {
        if (row['shown'] !== null) {
          shown.push(String(row['shown']))
          continue
        }
        parts.push(row)
        if (row['last'] !== 1) continue
        shown.push(JSON.stringify(strip(turnOf(parts))))
        parts = []
      }
      return shown
    },

    /** Turn `seq`, from its rows; undefined when none is stored. */
    turn(seq: number): Turn | undefined {
      const parts = rows('SELECT json FROM turns WHERE seq = ? ORDER BY id', seq)
      return parts.length === 0 ? undefined : turnOf(parts)
    },

    /**
     * Every stored turn's number, parent and size in bytes of UTF-8 JSON, in the order stored. A
     * turn stored before turns made a tree (no parent) follows the one before it.
     */
    turnNodes(): { seq: number; parent: number; bytes: number }[] {
      return rows(
        `SELECT seq, COALESCE(MAX(parent), seq - 1) AS parent,
           SUM(LENGTH(CAST(json AS BLOB))) AS bytes
         FROM turns GROUP BY seq ORDER BY seq`,
      ).map((row) => ({
        seq: Number(row['seq']),
        parent: Number(row['parent']),
        bytes: Number(row['bytes']),
      }))
    },

    /** Each parent's active child, where it is not the newest: `[parent, child]`. */
    chosenChildren(): [number, number][] {
      return rows('SELECT parent, child FROM branches').map((row) => [
        Number(row['parent']),
        Number(row['child']),
      ])
    },

    /** Stores `parent`'s active child (undefined: the newest, which needs no row). */
    choose(parent: number, child: number | undefined): void {
      if (child === undefined) {
        if (hasTables) write('DELETE FROM branches WHERE parent = ?', parent)
        return
      }
      write(
        'INSERT INTO branches (parent, child) VALUES (?, ?) ON CONFLICT(parent) DO UPDATE SET child = excluded.child',
        parent,
        child,
      )
    },

    /**
     * Stores turn number `seq` under turn `parent`, given as its JSON, with `loop`, the JSON of the
     * start of the loop a message's turn starts or of the end of the loop an answer ends (kept in
     * its last row); returns its size in bytes.
     */
    addTurn(seq: number, parent: number, json: string, loop?: string): number {
      const parts = rowsOf(json)
      for (let i = 0; i < parts.length; i++) {
        const last = i === parts.length - 1
        // No loop binds '' (no loop's JSON is empty), stored as NULL.
        write(
          "INSERT INTO turns (seq, last, json, parent, loop) VALUES (?, ?, ?, ?, NULLIF(?, ''))",
          seq,
          last ? 1 : 0,
          parts[i]!,
          parent,
          last ? (loop ?? '') : '',
        )
      }
      return utf8Length(json)
    },

    /** Deletes the turns numbered `seqs`, and what was chosen under them. */
    dropTurns(seqs: readonly number[]): void {
      const list = JSON.stringify(seqs)
      write('DELETE FROM turns WHERE seq IN (SELECT value FROM json_each(?))', list)
      write(
        'DELETE FROM branches WHERE parent IN (SELECT value FROM json_each(?)) OR child IN (SELECT value FROM json_each(?))',
        list,
        list,
      )
    },

    /** The queued messages (DESIGN §14), in order: each one's number and JSON. */
    queue(): { item: number; json: string }[] {
      const items: { item: number; json: string }[] = []
      for (const row of rows('SELECT item, json FROM queue ORDER BY id')) {
        const item = Number(row['item'])
        const last = items.at(-1)
        if (last?.item === item) last.json += String(row['json'])
        else items.push({ item, json: String(row['json']) })
      }
      return items
    },

    /** Queues message `item`, given as its JSON. */
    enqueue(item: number, json: string): void {
      for (const part of rowsOf(json))
        write('INSERT INTO queue (item, json) VALUES (?, ?)', item, part)
    },

    /** Takes message `item` out of the queue. */
    dequeue(item: number): void {
      write('DELETE FROM queue WHERE item = ?', item)
    },

    clearQueue(): void {
      if (hasTables) write('DELETE FROM queue')
    },

    addEvents(batch: EventBatch): void {
      const large = batch.text.length > ROW_CHARS
      write(
        'INSERT INTO events (first_id, last_id, frames) VALUES (?, ?, ?)',
        batch.firstId,
        batch.lastId,
        large ? '' : batch.text,
      )
      if (!large) return
      for (const part of rowsOf(batch.text)) {
        write('INSERT INTO event_parts (first_id, json) VALUES (?, ?)', batch.firstId, part)
      }
    },

    /**
     * The ids of the first and the last stored event (`first` undefined and `last` 0 when none
     * is), found by the batches' key: one read as the object starts.
     */
    storedEventIds(): { first: number | undefined; last: number } {
      const row = rows(
        `SELECT MIN(first_id) AS first,
           (SELECT last_id FROM events ORDER BY first_id DESC LIMIT 1) AS last
         FROM events`,
      )[0]
      const first = row?.['first']
      const last = row?.['last']
      return {
        first: typeof first === 'number' ? first : undefined,
        last: typeof last === 'number' ? last : 0,
      }
    },

    /** Deletes the stored events before `id`: every batch that ends before it. */
    dropEventsBefore(id: number): void {
      write(
        'DELETE FROM event_parts WHERE first_id IN (SELECT first_id FROM events WHERE last_id < ?)',
        id,
      )
      write('DELETE FROM events WHERE last_id < ?', id)
    },

    /**
     * Up to `limit` stored batches holding events after `after`, in id order: the one that holds
     * event `after + 1` (if any) and those after it, found by their key.
     */
    batchesAfter(after: number, limit = ROWS_PER_READ): EventBatch[] {
      const found = rows(
        `SELECT first_id, last_id, frames FROM events
         WHERE first_id >= (SELECT COALESCE(MAX(first_id), 0) FROM events WHERE first_id <= ?)
         ORDER BY first_id LIMIT ?`,
        after + 1,
        limit + 1,
      )
      const batches: EventBatch[] = []
      for (const row of found) {
        if (Number(row['last_id']) <= after || batches.length === limit) continue
        batches.push(batchOf(row))
      }
      return batches
    },

    /**
     * The stored batches from the one holding event `id` on, read a few rows at a time, so that
     * folding a long answer never holds all of it at once.
     */
    *batchesFrom(id: number): Generator<EventBatch> {
      let after = id - 1
      for (;;) {
        const page = store.batchesAfter(after)
        for (const batch of page) yield batch
        if (page.length < ROWS_PER_READ) return
        after = page.at(-1)!.lastId
      }
    },

    /**
     * The tool step of the conversation's loop as stored (see `ToolStep`), over several rows when
     * long; undefined when there is none.
     */
    toolStep(): unknown {
      const parts = rows('SELECT json FROM run ORDER BY id')
      return parts.length === 0
        ? undefined
        : JSON.parse(parts.map((r) => String(r['json'])).join(''))
    },

    /** Stores the tool step (undefined: deletes it), replacing the one stored. */
    saveToolStep(step: unknown): void {
      if (hasTables) write('DELETE FROM run')
      if (step === undefined) return
      for (const part of rowsOf(JSON.stringify(step)))
        write('INSERT INTO run (json) VALUES (?)', part)
    },

    /** An approval the conversation issued, by its id; undefined when it issued none such. */
    approval(id: string): unknown {
      const row = rows('SELECT json FROM approvals WHERE id = ?', id)[0]
      return row === undefined ? undefined : JSON.parse(String(row['json']))
    },

    saveApproval(id: string, approval: unknown): void {
      write(
        'INSERT INTO approvals (id, json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
        id,
        JSON.stringify(approval),
      )
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

    /** Index objects: one entry of the list, or undefined. */
    listingOf(id: string): unknown {
      const row = rows('SELECT json FROM listing WHERE id = ?', id)[0]
      return row === undefined ? undefined : JSON.parse(String(row['json']))
    },

    /** Index objects: how many entries the list holds. */
    listingCount(): number {
      return Number(rows('SELECT COUNT(*) AS n FROM listing')[0]?.['n'] ?? 0)
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

/** The store's tables, and what each holds. */
const COLUMNS: Readonly<Record<string, string>> = {
  meta: 'id INTEGER PRIMARY KEY, json TEXT NOT NULL',
  // `parent`: the turn it follows (added with branches, DESIGN §14; null in turns stored before,
  // each of which follows the one before it).
  // `loop`: the start of the loop a message's user turn started (DESIGN §13), or the end of the
  // loop an answer ended, kept with the turn rather than written to the metadata as well (null in
  // other turns, and in those stored before).
  turns:
    'id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, last INTEGER NOT NULL, json TEXT NOT NULL, parent INTEGER, loop TEXT',
  events: 'first_id INTEGER PRIMARY KEY, last_id INTEGER NOT NULL, frames TEXT NOT NULL',
  event_parts: 'id INTEGER PRIMARY KEY, first_id INTEGER NOT NULL, json TEXT NOT NULL',
  listing: 'id TEXT PRIMARY KEY, json TEXT NOT NULL',
  // Added with tool loops (DESIGN §13): the loop's tool step, and the approvals it issued.
  run: 'id INTEGER PRIMARY KEY, json TEXT NOT NULL',
  approvals: 'id TEXT PRIMARY KEY, json TEXT NOT NULL',
  // Added with branches and the queue (DESIGN §14): each parent's active child where it is not
  // the newest, and the messages queued while an answer runs (a long one over several rows).
  branches: 'parent INTEGER PRIMARY KEY, child INTEGER NOT NULL',
  queue: 'id INTEGER PRIMARY KEY, item INTEGER NOT NULL, json TEXT NOT NULL',
}
const TABLES = Object.keys(COLUMNS)
const SCHEMA = Object.entries(COLUMNS)
  .map(([table, columns]) => `CREATE TABLE IF NOT EXISTS ${table} (${columns});`)
  .join('\n')

/** A character of more than one byte in UTF-8. */
const NON_ASCII = /[\u0080-\uffff]/

/** The bytes of `text` in UTF-8, without encoding it (a lone surrogate counts as U+FFFD). */
export function utf8Length(text: string): number {
  // Counted from the first character that is not ASCII, found by a native scan: a turn in English,
  // code or JSON has none, and a loop over its characters costs several times the scan.
  const first = text.search(NON_ASCII)
  if (first === -1) return text.length
  let bytes = text.length
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) {
      bytes += 1
      continue
    }
    // Three bytes; a surrogate pair is four for its two code units.
    bytes += 2
    const next = text.charCodeAt(i + 1)
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++
  }
  return bytes
}

/** A conversation's tables. */
export type ConversationStore = ReturnType<typeof createConversationStore>
