import type { ConversationStore } from './conversation-store.ts'

/** One line of a client's list of conversations (`GET /v1/conversations`). */
export type ConversationListing = {
  id: string
  title: string | null
  updatedAt: string
  streaming: boolean
}

/**
 * A line as the index stores it: `check` says the conversation has changed since, so the index
 * asks it for a fresh line when it lists (rather than be told on every answer).
 */
type StoredListing = ConversationListing & { check?: boolean | undefined }

/** How many changed conversations the index asks at once when it lists. */
const CHECKS_AT_ONCE = 32

/**
 * A client's list of conversations, kept by its index object. A conversation is not rewritten
 * into it on every answer: it is listed once, marked `changed` when it next changes (once until
 * it is asked again), and asked for a fresh line (`ask`) when the list is read. A change that
 * arrives while it is being asked keeps it marked, so the list never settles on a stale line.
 */
export function createListingIndex(
  store: Pick<
    ConversationStore,
    'putListing' | 'listingOf' | 'listing' | 'listingCount' | 'deleteListing'
  >,
  ask: (id: string) => Promise<ConversationListing | null>,
) {
  /** How often each conversation said it changed (read around an `ask`). */
  const changes = new Map<string, number>()

  /** The fresh line of a conversation that changed, stored; null once it is gone. */
  const check = async (line: StoredListing): Promise<ConversationListing | null> => {
    const before = changes.get(line.id) ?? 0
    let fresh: ConversationListing | null
    try {
      fresh = await ask(line.id)
    } catch {
      // Unreachable now: shown as last known, and asked again next time.
      return line
    }
    if (fresh === null) {
      store.deleteListing(line.id)
      return null
    }
    const again = (changes.get(line.id) ?? 0) !== before
    if (!again) changes.delete(line.id)
    store.putListing(line.id, { ...fresh, check: again } satisfies StoredListing)
    return fresh
  }

  return {
    /**
     * Adds or replaces a conversation, to be checked when listed; false (and nothing added) when
     * a new one would make more than `max` (0: any number).
     */
    listed(entry: ConversationListing, max = 0): boolean {
      const isNew = store.listingOf(entry.id) === undefined
      if (isNew && max > 0 && store.listingCount() >= max) return false
      store.putListing(entry.id, { ...entry, check: true } satisfies StoredListing)
      return true
    },

    /** A conversation changed: its line is refreshed when listed. */
    changed(id: string): void {
      changes.set(id, (changes.get(id) ?? 0) + 1)
      const entry = store.listingOf(id) as StoredListing | undefined
      if (entry?.check === true) return
      // One never listed (its `listed` failed) gets a line for the check to fill.
      const line = entry ?? {
        id,
        title: null,
        updatedAt: new Date(0).toISOString(),
        streaming: false,
      }
      store.putListing(id, { ...line, check: true } satisfies StoredListing)
    },

    /** The ids of the client's conversations, as listed (none asked). */
    ids(): string[] {
      return (store.listing() as StoredListing[]).map(({ id }) => id)
    },

    /** Forgets a deleted conversation. */
    unlisted(id: string): void {
      store.deleteListing(id)
    },

    /** The client's conversations, the most recently updated first, changed ones asked first. */
    async conversations(): Promise<{ conversations: ConversationListing[] }> {
      const lines = store.listing() as StoredListing[]
      const listed: ConversationListing[] = []
      const changed = lines.filter((line) => line.check === true)
      for (const line of lines) if (line.check !== true) listed.push(line)
      for (let i = 0; i < changed.length; i += CHECKS_AT_ONCE) {
        const fresh = await Promise.all(changed.slice(i, i + CHECKS_AT_ONCE).map(check))
        for (const line of fresh) if (line !== null) listed.push(line)
      }
      listed.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
      return {
        conversations: listed.map(({ id, title, updatedAt, streaming }) => ({
          id,
          title,
          updatedAt,
          streaming,
        })),
      }
    },
  }
}

/** A client's list of conversations. */
export type ListingIndex = ReturnType<typeof createListingIndex>
