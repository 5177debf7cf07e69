/**
 * Who may call the relay: a list of bearer tokens, or a function that names the client of a
 * request (its id keys the rate limit) or returns null to refuse it.
 */
export type RelayAuth =
  | readonly string[]
  | ((request: Request) => string | null | Promise<string | null>)

/** Names the client of a request, or null when it is not allowed in. */
export type Authenticate = (request: Request) => Promise<string | null>

const utf8 = new TextEncoder()

/**
 * Creates the check for `auth`. With no `auth`, every request is the client `'anonymous'`.
 * Tokens are compared by their SHA-256 digests, so the comparison leaks no timing about a token,
 * and a client's id is a digest prefix (`'token:1f2e…'`), never the token.
 */
export function createAuthenticate(auth: RelayAuth | undefined): Authenticate {
  if (auth === undefined) return async () => 'anonymous'
  if (typeof auth === 'function') return async (request) => auth(request)
  if (auth.length === 0 || auth.some((token) => token === '')) {
    throw new TypeError('auth must be a non-empty list of non-empty tokens')
  }
  let clients: Promise<Map<string, string>> | undefined
  const load = () =>
    (clients ??= Promise.all(auth.map(digest)).then(
      (digests) => new Map(digests.map((hex) => [hex, `token:${hex.slice(0, 12)}`])),
    ))
  return async (request) => {
    const header = request.headers.get('authorization')
    const match = header === null ? null : /^bearer\s+(\S+)\s*$/i.exec(header)
    if (match === null) return null
    return (await load()).get(await digest(match[1]!)) ?? null
  }
}

async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(token)))
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}
