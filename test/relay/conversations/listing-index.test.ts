import { describe, expect, it } from 'vitest'
import {
  createListingIndex,
  type ConversationListing,
} from '../../../src/relay/conversations/listing-index.ts'

/** The index's table, in memory. */
function table() {
  const rows = new Map<string, unknown>()
  return {
    rows,
    putListing: (id: string, entry: unknown) => void rows.set(id, entry),
    listingOf: (id: string) => rows.get(id),
    listing: () => [...rows.values()],
    listingCount: () => rows.size,
    deleteListing: (id: string) => void rows.delete(id),
  }
}

const line = (id: string, updatedAt: string, title: string | null = null): ConversationListing => ({
  id,
  title,
  updatedAt,
  streaming: false,
})

describe('the index of a client’s conversations', () => {
  it('asks a conversation for its line only once it has changed', async () => {
    const store = table()
    const current = new Map([['a', line('a', '2026-01-01T00:00:00.000Z')]])
    const asked: string[] = []
    const index = createListingIndex(store, async (id) => {
      asked.push(id)
      return current.get(id) ?? null
    })
    index.listed(line('a', '2026-01-01T00:00:00.000Z'))
    expect((await index.conversations()).conversations).toEqual([current.get('a')])
    expect(await index.conversations()).toEqual({ conversations: [current.get('a')] })
    expect(asked).toEqual(['a'])

    current.set('a', { ...line('a', '2026-01-02T00:00:00.000Z', 'Hello'), streaming: true })
    index.changed('a')
    index.changed('a')
    expect((await index.conversations()).conversations).toEqual([current.get('a')])
    expect(asked).toEqual(['a', 'a'])
  })

  it('lists no more than its bound of conversations, and replaces a line it holds', () => {
    const store = table()
    const index = createListingIndex(store, async () => null)
    expect(index.listed(line('a', '2026-01-01T00:00:00.000Z'), 2)).toBe(true)
    expect(index.listed(line('b', '2026-01-01T00:00:00.000Z'), 2)).toBe(true)
    expect(index.listed(line('c', '2026-01-01T00:00:00.000Z'), 2)).toBe(false)
    expect([...store.rows.keys()]).toEqual(['a', 'b'])
    // One it holds is replaced, full or not; 0 is no bound.
    expect(index.listed(line('b', '2026-01-02T00:00:00.000Z', 'B'), 2)).toBe(true)
    expect(store.rows.get('b')).toMatchObject({ title: 'B' })
    expect(index.listed(line('c', '2026-01-01T00:00:00.000Z'), 0)).toBe(true)
    index.unlisted('a')
    expect(index.listed(line('d', '2026-01-01T00:00:00.000Z'), 3)).toBe(true)
  })

  it('keeps a line to check when its conversation changes while it is asked', async () => {
    const store = table()
    let answer!: (value: ConversationListing) => void
    const index = createListingIndex(
      store,
      () => new Promise<ConversationListing>((resolve) => (answer = resolve)),
    )
    index.listed(line('a', '2026-01-01T00:00:00.000Z'))
    const listing = index.conversations()
    index.changed('a')
    answer({ ...line('a', '2026-01-01T00:00:00.000Z'), streaming: true })
    expect((await listing).conversations[0]!.streaming).toBe(true)
    expect(store.rows.get('a')).toMatchObject({ check: true })
  })

  it('sorts the newest first, drops a deleted conversation, and lists one it was never told of', async () => {
    const store = table()
    const index = createListingIndex(store, async (id) =>
      id === 'gone'
        ? null
        : line(id, id === 'new' ? '2026-03-01T00:00:00.000Z' : '2026-02-01T00:00:00.000Z'),
    )
    index.listed(line('old', '2026-01-01T00:00:00.000Z'))
    index.listed(line('gone', '2026-01-01T00:00:00.000Z'))
    index.changed('new')
    const { conversations } = await index.conversations()
    expect(conversations.map((c) => c.id)).toEqual(['new', 'old'])
    expect(store.rows.has('gone')).toBe(false)
    index.unlisted('old')
    expect((await index.conversations()).conversations.map((c) => c.id)).toEqual(['new'])
  })

  it('shows the last known line of a conversation it cannot reach, and asks again next time', async () => {
    const store = table()
    let reachable = false
    const index = createListingIndex(store, async (id) => {
      if (!reachable) throw new Error('unreachable')
      return line(id, '2026-01-02T00:00:00.000Z', 'Back')
    })
    index.listed(line('a', '2026-01-01T00:00:00.000Z'))
    expect((await index.conversations()).conversations).toEqual([
      line('a', '2026-01-01T00:00:00.000Z'),
    ])
    reachable = true
    expect((await index.conversations()).conversations[0]!.title).toBe('Back')
  })
})
