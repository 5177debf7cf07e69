import { newConversationId } from './routes.ts'

/** A socket ticket is good for this long, once. */
export const TICKET_MS = 30_000
/** Tickets held at most (the oldest goes first): they are made to be used at once. */
const MAX_TICKETS = 64

/**
 * The tickets of a conversation's socket followers. A browser's WebSocket cannot send a bearer
 * header, so a client asks for a ticket over an authenticated request and opens the socket with
 * it: 128 random bits, good once and for {@link TICKET_MS}, held in memory by the host that issued
 * it (one lost to a restart is asked for again).
 */
export class SocketTickets {
  #tickets = new Map<string, { clientId: string; until: number }>()

  /** A new ticket for `clientId`. */
  issue(clientId: string, now: number): string {
    for (const [key, ticket] of this.#tickets) {
      if (ticket.until < now || this.#tickets.size >= MAX_TICKETS) this.#tickets.delete(key)
    }
    const ticket = newConversationId()
    this.#tickets.set(ticket, { clientId, until: now + TICKET_MS })
    return ticket
  }

  /** The client a ticket was issued to, once; undefined for one not issued, used or expired. */
  take(ticket: string, now: number): string | undefined {
    const found = this.#tickets.get(ticket)
    this.#tickets.delete(ticket)
    return found === undefined || found.until < now ? undefined : found.clientId
  }
}
