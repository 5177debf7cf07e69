import { describe, expect, it } from 'vitest'
import { ConversationRecord } from '../../../src/relay/conversations/conversation-record.ts'
import { createConversationStore } from '../../../src/relay/conversations/conversation-store.ts'
import { Journal } from '../../../src/relay/conversations/journal.ts'
import { memoryStorage } from '../../helpers/memory-hosts.ts'

// An object starts on its storage whenever it was evicted, which for a chat is nearly every
// message: each statement it runs then is prepared afresh. These count them.

/** A stored conversation's database, and the statements run on it from now on. */
function stored() {
  const storage = memoryStorage()
  const store = createConversationStore(storage.sql)
  store.saveMeta({ id: 'c', owner: 'o', createdAt: '', updatedAt: '', streaming: false })
  store.addTurn(1, 0, JSON.stringify({ role: 'user', content: 'Hi' }))
  // A batch as older code wrote it (each run of names, then each event's data a line).
  store.addEvents({ firstId: 3, lastId: 4, text: '2 text\n\n{"text":"a"}\n{"text":"b"}' })
  const statements: string[] = []
  const exec = storage.sql.exec.bind(storage.sql)
  storage.sql.exec = (query, ...bindings) => {
    statements.push(query.replace(/\s+/g, ' ').trim())
    return exec(query, ...bindings)
  }
  return { storage, statements }
}

describe('a conversation object that starts on its storage', () => {
  it('reads which of its tables exist, and how, in one statement', () => {
    const { storage, statements } = stored()
    createConversationStore(storage.sql)
    expect(statements).toHaveLength(1)
    expect(statements[0]).toMatch(/^SELECT name, sql FROM sqlite_master/)
  })

  it('reads the first and last stored event of its log in one statement', () => {
    const { storage, statements } = stored()
    const store = createConversationStore(storage.sql)
    statements.length = 0
    const journal = new Journal(store, { heartbeatMs: 0, interrupted: false })
    expect(statements).toHaveLength(1)
    expect([journal.firstKept, journal.lastId]).toEqual([3, 4])
  })

  it('reads its metadata, the shape of its turns, their versions and its queue once each', () => {
    const { storage, statements } = stored()
    const store = createConversationStore(storage.sql)
    statements.length = 0
    const record = new ConversationRecord(store)
    expect(statements).toHaveLength(4)
    expect(record.totals.turns).toBe(1)
  })
})
