import { countRequest } from '../limit-refusal.ts'
import { resolveLimits, type RelayLimits } from '../options.ts'
import type { RateLimiter } from '../rate-limit.ts'
import { readJsonBody } from '../read-body.ts'
import { errorResponse } from '../responses.ts'
import { matchConversationRoute, newConversationId, type ConversationOp } from './routes.ts'

/** Options of {@link checkConversationRequest}: the relay's own, so that they hold here too. */
export type ConversationCheckOptions = {
  /** The relay's rate limiter: creating or reading a conversation, and a refused body, count. */
  rateLimiter?: RateLimiter | undefined
  /** The relay's `limits`: `bodyBytes` and `bodyTimeoutMs` bound the body. */
  limits?: RelayLimits | undefined
}

/**
 * A request to the conversation routes, checked: what it asks for, of which conversation (a new
 * id for `create`, none for the client's whole list: `list`, `export`, `delete-all`; and the
 * approval an `approve` decides), with its JSON body as it came (`create`, `messages`,
 * `regenerate`, `edit`, `branch`, `rename`, `approve`; `'{}'` for a `create` sent without one),
 * or the refusal to answer it with.
 */
export type ConversationRequest =
  | { ok: true; op: ClientOp; id: undefined; body: undefined }
  | {
      ok: true
      op: Exclude<ConversationOp, ClientOp>
      id: string
      body: string | undefined
      approvalId?: string | undefined
    }
  | { ok: false; response: Response }

/** The operations on a client's whole list of conversations, which its index answers. */
type ClientOp = 'list' | 'export' | 'delete-all'

/** Operations that send a JSON body. */
const READS_BODY: ReadonlySet<ConversationOp> = new Set([
  'create',
  'messages',
  'regenerate',
  'edit',
  'branch',
  'rename',
  'approve',
])

/** Operations that count against the client's request rate here (a message's, where it is answered). */
const COUNTED: ReadonlySet<ConversationOp> = new Set([
  'create',
  'get',
  'approve',
  'export',
  'delete-all',
  'branch',
  'rename',
])

/**
 * Checks a request that `createRelay`'s `conversations` hook got, as the relay checks one to
 * `/v1/chat`, before the host hands it to its conversation: the route and method (a 404 for an id
 * that cannot be one, a 405 naming the methods a route takes), the client's request rate
 * (creating, reading or exporting whole conversations, deleting all, renaming, switching a
 * branch and deciding an approval count; the list and the streams do not, being bounded
 * otherwise; a message, regenerate or edit counts where it is answered), and the body (JSON, within `limits.bodyBytes` and `limits.bodyTimeoutMs`,
 * a refused one counting as a request). Whether the conversation exists
 * and belongs to `clientId` is the host's to say (a 404 for another client's).
 *
 * @example
 * ```ts
 * const relay = createRelay({
 *   providers,
 *   conversations: async (request, clientId) => {
 *     const checked = await checkConversationRequest(request, clientId, { rateLimiter })
 *     if (!checked.ok) return checked.response
 *     return myConversations.handle(checked.op, checked.id, clientId, checked.body)
 *   },
 * })
 * ```
 */
export async function checkConversationRequest(
  request: Request,
  clientId: string,
  options: ConversationCheckOptions = {},
): Promise<ConversationRequest> {
  const { rateLimiter } = options
  const url = new URL(request.url)
  const route = matchConversationRoute(request.method, url.pathname, url.searchParams)
  if (!route.ok) {
    if (route.status === 404) return refuse(404, 'no such conversation')
    const allow = route.allow ?? 'OPTIONS'
    return refuse(405, `${request.method} is not allowed here`, { allow })
  }
  const { op, approvalId } = route
  if (COUNTED.has(op)) {
    const over = await countRequest(rateLimiter, clientId)
    if (over !== undefined) return { ok: false, response: over }
  }
  if (op === 'list' || op === 'export' || op === 'delete-all') {
    return { ok: true, op, id: undefined, body: undefined }
  }
  const id = route.id ?? newConversationId()
  const named = approvalId === undefined ? {} : { approvalId }
  const reads = READS_BODY.has(op)
  const empty = request.body === null || request.headers.get('content-length') === '0'
  if (!reads || (op === 'create' && empty)) {
    return { ok: true, op, id, body: op === 'create' ? '{}' : undefined }
  }
  const limits = resolveLimits(options.limits)
  const read = await readJsonBody(request, limits.bodyBytes, limits.bodyTimeoutMs)
  if (read.ok) return { ok: true, op, id, body: read.text, ...named }
  // As on /v1/chat, a refused body still counts as a request (unless it was counted already).
  const over = COUNTED.has(op) ? undefined : await countRequest(rateLimiter, clientId)
  return over === undefined ? refuse(read.status, read.message) : { ok: false, response: over }
}

function refuse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): ConversationRequest {
  return { ok: false, response: errorResponse(status, 'invalid-request', message, {}, headers) }
}
