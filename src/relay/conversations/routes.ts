import { toBase64Url } from '../base64url.ts'

/** What a conversation request asks for. */
export type ConversationOp =
  | 'list'
  | 'export'
  | 'delete-all'
  | 'create'
  | 'get'
  | 'delete'
  | 'messages'
  | 'regenerate'
  | 'stream'
  | 'stop'
  | 'ticket'
  | 'socket'
  | 'approve'
  | 'edit'
  | 'branch'
  | 'rename'
  | 'clear-queue'

/**
 * A matched route: its operation and, but for `list`, `export`, `delete-all` and `create`, the
 * conversation's id (and for `approve`, the approval's).
 */
export type ConversationRoute =
  | { ok: true; op: ConversationOp; id: string | undefined; approvalId?: string | undefined }
  | { ok: false; status: 404 | 405; allow?: string | undefined }

/** A conversation id: 128 random bits as 22 base64url characters. */
const ID = /^[A-Za-z0-9_-]{22}$/

/** An approval id as a path segment: the host tells a well-formed one it did not issue (404). */
const APPROVAL_SEGMENT = /^[A-Za-z0-9_-]{1,64}$/

/**
 * The operations under a conversation, by path suffix and method: the routes of DESIGN §9, the
 * approvals of §13, and the branches, queue and titles of §14.
 */
const ROUTES: Readonly<Record<string, Readonly<Record<string, ConversationOp>>>> = {
  '': { GET: 'get', DELETE: 'delete', PATCH: 'rename' },
  '/edit': { POST: 'edit' },
  '/branch': { POST: 'branch' },
  '/queue': { DELETE: 'clear-queue' },
  '/messages': { POST: 'messages' },
  '/regenerate': { POST: 'regenerate' },
  '/stream': { GET: 'stream' },
  '/stop': { POST: 'stop' },
  '/ticket': { POST: 'ticket' },
  '/socket': { GET: 'socket' },
  '/approvals': { POST: 'approve' },
}

/**
 * Matches a path under `/v1/conversations` (and its query: `?export=true` on the list). A path
 * that names no well-formed id is 404, as is one that names a conversation of another client
 * (decided by its object).
 */
export function matchConversationRoute(
  method: string,
  path: string,
  query = new URLSearchParams(),
): ConversationRoute {
  if (path === '/v1/conversations') {
    if (method === 'GET') {
      const op = query.get('export') === 'true' ? 'export' : 'list'
      return { ok: true, op, id: undefined }
    }
    if (method === 'POST') return { ok: true, op: 'create', id: undefined }
    if (method === 'DELETE') return { ok: true, op: 'delete-all', id: undefined }
    return { ok: false, status: 405, allow: 'GET, POST, DELETE, OPTIONS' }
  }
  const match = /^\/v1\/conversations\/([^/]+)(\/[a-z]+)?(?:\/([^/]+))?$/.exec(path)
  if (match === null || !ID.test(match[1]!)) return { ok: false, status: 404 }
  const suffix = match[2] ?? ''
  // Only the approvals route names something under it: `/approvals/:approvalId`.
  const approvalId = match[3]
  if ((suffix === '/approvals') !== (approvalId !== undefined)) return { ok: false, status: 404 }
  if (approvalId !== undefined && !APPROVAL_SEGMENT.test(approvalId)) {
    return { ok: false, status: 404 }
  }
  if (!Object.hasOwn(ROUTES, suffix)) return { ok: false, status: 404 }
  const methods = ROUTES[suffix]!
  // An own member only: the method is any token the client sends, `constructor` too.
  if (!Object.hasOwn(methods, method)) {
    return { ok: false, status: 405, allow: [...Object.keys(methods), 'OPTIONS'].join(', ') }
  }
  const op = methods[method]!
  return approvalId === undefined
    ? { ok: true, op, id: match[1] }
    : { ok: true, op, id: match[1], approvalId }
}

/** A new conversation id: 128 bits from the platform's CSPRNG, base64url. */
export function newConversationId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(16)))
}
