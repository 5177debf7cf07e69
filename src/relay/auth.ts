/** What an auth hook answers: the client's id, or anything else to refuse the request. */
export type RelayClient = string | null | undefined | false

/**
 * Who may call the relay: a list of bearer tokens (each at least 16 characters), or a hook that
 * names the client of a request (its id keys the rate limit). A request is admitted only when the
 * hook returns a non-empty string; `null`, `undefined` (a `Map` lookup that missed), `false`, `''`
 * and anything that is not a string refuse it.
 */
export type RelayAuth =
  | readonly string[]
  | ((request: Request) => RelayClient | Promise<RelayClient>)

/** Options of {@link createAuthenticate}. */
export type AuthenticateOptions = {
  /**
   * The HMAC secret that turns a token into its client id. Without it the secret is derived from
   * the token list itself: ids then agree between isolates and processes with the same tokens (as a
   * shared rate limiter needs) and are of no use to anyone who does not hold the tokens, but they
   * change whenever the list does.
   * @defaultValue derived from the tokens
   */
  clientIdSecret?: string | undefined
}

/** Names the client of a request, or null when it is not allowed in. */
export type Authenticate = (request: Request) => Promise<string | null>

/** The shortest bearer token accepted: shorter ones can be guessed. */
export const MIN_TOKEN_LENGTH = 16

const utf8 = new TextEncoder()

/**
 * Creates the check for `auth`. With no `auth`, every request is the client `'anonymous'`.
 * A token is looked up by its HMAC-SHA-256 under `clientIdSecret`, so the comparison leaks no
 * timing about a token, and a client's id is a prefix of that HMAC (`'token:1f2e…'`, 16 hex
 * digits): stable for one secret, never the token, and of no use to guess it without the secret.
 */
export function createAuthenticate(
  auth: RelayAuth | undefined,
  options: AuthenticateOptions = {},
): Authenticate {
  if (auth === undefined) return async () => 'anonymous'
  if (typeof auth === 'function') {
    return async (request) => {
      // Fail closed: a hook typed loosely (or written in JavaScript) admits only by naming a client.
      const client: unknown = await auth(request)
      return typeof client === 'string' && client !== '' ? client : null
    }
  }
  checkTokens(auth)
  const { clientIdSecret } = options
  if (clientIdSecret === '') throw new TypeError('clientIdSecret must not be empty')
  let clients: Promise<{ key: CryptoKey; ids: Map<string, string> }> | undefined
  const load = () =>
    (clients ??= (async () => {
      const secret =
        clientIdSecret === undefined
          ? await crypto.subtle.digest(
              'SHA-256',
              utf8.encode(`thinkwire client ids\n${auth.toSorted().join('\n')}`),
            )
          : utf8.encode(clientIdSecret)
      const key = await crypto.subtle.importKey(
        'raw',
        secret,
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign'],
      )
      const macs = await Promise.all(auth.map((token) => mac(key, token)))
      return { key, ids: new Map(macs.map((hex) => [hex, `token:${hex.slice(0, 16)}`])) }
    })())
  return async (request) => {
    const header = request.headers.get('authorization')
    const match = header === null ? null : /^bearer\s+(\S+)\s*$/i.exec(header)
    if (match === null) return null
    const { key, ids } = await load()
    // Looked up by MAC, not by token: a Map's string compare would leak how much of a token matched.
    return ids.get(await mac(key, match[1]!)) ?? null
  }
}

/** Refuses a token list that could never work or could be guessed; messages never hold a token. */
function checkTokens(tokens: readonly string[]): void {
  if (tokens.length === 0) throw new TypeError('auth must be a non-empty list of tokens')
  tokens.forEach((token, index) => {
    if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH) {
      throw new TypeError(
        `auth[${index}] must be a token of at least ${MIN_TOKEN_LENGTH} characters`,
      )
    }
    if (/\s/.test(token)) {
      throw new TypeError(
        `auth[${index}] must not contain whitespace (a bearer header cannot carry it)`,
      )
    }
  })
}

async function mac(key: CryptoKey, token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(token)))
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}
