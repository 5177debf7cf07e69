/**
 * A small model of the relay's rules, independent of its code: the status a fuzzed request must
 * get, and whether it reaches the model. The order is the relay's documented one: origin (403),
 * path (404), preflight (204), method (405), auth (401), content-type (415), size (413), then the
 * body's own verdict.
 */
import { statusFromKind } from '../../src/relay/status.ts'
import type { Case } from './relay-cases.ts'
import { BASE, ORIGIN, TOKENS } from './relay-config.ts'

const ROUTES: Record<string, string> = { '/v1/chat': 'POST', '/v1/models': 'GET' }

/** The status the relay must answer `c` with, and whether the model gets called. */
export function predict(c: Case): { status: number; reaches: boolean; alternative?: number } {
  const url = urlOf(c.path)
  const method = normalizedMethod(c.method)
  if (c.origin !== undefined && c.origin !== BASE && c.origin !== ORIGIN) return no(403)
  const allowed = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname] : undefined
  if (allowed === undefined) return no(404)
  if (method === 'OPTIONS') return no(204)
  if (method !== allowed) return no(405)
  if (!authorized(sentHeader(c, 'authorization', c.authorization))) return no(401)
  if (url.pathname === '/v1/models') return no(200)
  if (!jsonContentType(sentHeader(c, 'content-type', c.contentType))) return no(415)
  const declared = declaredLength(c)
  if (declared.over === true) return no(413)
  const status = c.body.status
  const result =
    status !== 200
      ? no(status)
      : c.body.outcome === 'fail-before'
        ? { status: statusFromKind('auth'), reaches: true }
        : { status: 200, reaches: true }
  // A content-length that is not a number of bytes may be read as one, or ignored.
  return declared.over === 'maybe' ? { ...result, alternative: 413 } : result
}

const no = (status: number) => ({ status, reaches: false })

/** The URL a client would request for `path` (a path such as `//x` is not a host here). */
export function urlOf(path: string): URL {
  return new URL(BASE + (path.startsWith('/') ? path : `/${path}`))
}

/** The value a server sees for `name`: every value sent, joined with ', '. */
function sentHeader(c: Case, name: string, first: string | undefined): string | undefined {
  const values = [first, ...c.extra.filter(([key]) => key === name).map(([, value]) => value)]
  const sent = values.filter((value) => value !== undefined).map((value) => value.trim())
  return sent.length === 0 ? undefined : sent.join(', ')
}

function normalizedMethod(method: string): string {
  // Fetch uppercases only the standard methods it knows.
  const upper = method.toUpperCase()
  return ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].includes(upper) ? upper : method
}

function authorized(header: string | undefined): boolean {
  if (header === undefined) return false
  const match = /^bearer +(\S+)$/i.exec(header.trim())
  return match !== null && (TOKENS as readonly string[]).includes(match[1]!)
}

function jsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  const [type, ...params] = value.split(';')
  if (type!.trim().toLowerCase() !== 'application/json') return false
  return params.every((param) => {
    const [key, val] = param.split('=')
    if (key!.trim().toLowerCase() !== 'charset') return true
    return (val ?? '').trim().replace(/^"|"$/g, '').toLowerCase() === 'utf-8'
  })
}

function declaredLength(c: Case): { over: boolean | 'maybe' } {
  if (c.contentLength === 'over-limit') return { over: true }
  if (c.contentLength !== 'junk') return { over: false }
  return { over: 'maybe' }
}
