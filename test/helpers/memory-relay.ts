import {
  relayConversation,
  type RelayConversation,
  type RelayConversationOptions,
} from '../../src/client/index.ts'
import {
  CLIENT_HEADER,
  checkConversationRequest,
  type ConversationHost,
} from '../../src/relay/index.ts'
import { inProcessRelay, RELAY_URL, type InProcessRelay } from '../client/helpers.ts'

/**
 * A relay whose conversations run in `hosts` (see `memoryHosts`), behind `createRelay` with
 * `token` and routed as the Worker routes them: what `relayConversation()` talks to in Node.
 */
export function memoryRelay(
  hosts: { get(name: string): ConversationHost },
  token: string,
): InProcessRelay {
  return inProcessRelay({
    auth: [token],
    conversations: async (request, clientId) => {
      const checked = await checkConversationRequest(request, clientId)
      if (!checked.ok) return checked.response
      const { op, body } = checked
      const headers = new Headers({ [CLIENT_HEADER]: clientId })
      const lastEventId = request.headers.get('last-event-id')
      if (lastEventId !== null) headers.set('last-event-id', lastEventId)
      if (body !== undefined) headers.set('content-type', 'application/json')
      const id = checked.id ?? ''
      const host = hosts.get(checked.id ?? `client:${clientId}`)
      const reads = ['get', 'stream', 'list', 'export'].includes(op)
      const named =
        checked.id === undefined || checked.approvalId === undefined ? '' : `/${checked.approvalId}`
      const url = `https://conversation/${op}/${id}${named}${new URL(request.url).search}`
      return host.fetch(
        new Request(url, { method: reads ? 'GET' : 'POST', headers, body: body ?? null }),
      )
    },
  })
}

/**
 * Stores on `relay` with `token`, on `model`, following over SSE and told of every change at once
 * (the scheduler flushes each): the pages a test opens; `options` are each store's own.
 */
export function storesOn(relay: InProcessRelay, token: string, model: string) {
  const headers = { authorization: `Bearer ${token}` }
  return (options: Partial<RelayConversationOptions> = {}): RelayConversation =>
    relayConversation({
      url: RELAY_URL,
      model,
      headers,
      fetch: relay.fetch,
      follow: true,
      followOver: 'sse',
      scheduler: (flush) => flush(),
      ...options,
    })
}
