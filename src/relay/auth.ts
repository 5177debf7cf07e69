/**
 * What an auth hook answers to refuse a request and say why. `refuse` becomes the error's message:
 * say why in general terms (`'the token has expired'`), never echo a credential.
 */
export type RelayRefusal = {
  refuse: string
  /**
   * 401 (no valid credentials), 403 (a known client that may not call) or 503 (the check itself
   * could not run, say the identity provider's keys could not be fetched).
   * @defaultValue 401
   */
  status?: 401 | 403 | 503 | undefined
}

/**
 * What an auth hook answers: the client's id, a {@link RelayRefusal} that says why not, or
 * anything else to refuse the request with the relay's own message.
 */
export type RelayClient = string | RelayRefusal | null | undefined | false

/**
 * Who may call the relay: a list of bearer tokens (each at least 16 characters), or a hook that
 * names the client of a request (its id keys the rate limit, and owns conversations). A request is
 * admitted only when the hook returns a non-empty string; a {@link RelayRefusal} refuses it with
 * its reason, and `null`, `undefined` (a `Map` lookup that missed), `false`, `''` and anything
 * else refuse it too.
 */
export type RelayAuth =
  | readonly string[]
  | ((request: Request) => RelayClient | Promise<RelayClient>)

/** Options of {@link createAuthenticate}. */
export type AuthenticateOptions = {
  /**
   * The HMAC key that turns a token into its client id: a string (its UTF-8 bytes) or the key
   * bytes. Without it the key is derived from the token list itself ({@link deriveClientIdKey}):
   * ids then agree between isolates and processes with the same tokens, but change whenever the
   * list does.
   * @defaultValue derived from the tokens
   */
  clientIdSecret?: string | Uint8Array | undefined
}

/** Names the client of a request; a refusal (with its reason, or null without one) otherwise. */
export type Authenticate = (request: Request) => Promise<string | RelayRefusal | null>

/** The shortest bearer token accepted: shorter ones can be guessed. */
export const MIN_TOKEN_LENGTH = 16

/** The longest reason a refusal may give; a longer one is cut (a hook's text, not the relay's). */
const MAX_REASON_LENGTH = 200

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
      if (typeof client === 'string') return client === '' ? null : client
      return refusalOf(client)
    }
  }
  checkTokens(auth)
  const { clientIdSecret } = options
  if (clientIdSecret !== undefined && clientIdSecret.length === 0) {
    throw new TypeError('clientIdSecret must not be empty')
  }
  let clients: Promise<{ key: CryptoKey; ids: Map<string, string> }> | undefined
  const load = () =>
    (clients ??= (async () => {
      const secret =
        clientIdSecret === undefined
          ? await deriveClientIdKey(auth)
          : typeof clientIdSecret === 'string'
            ? utf8.encode(clientIdSecret)
            : new Uint8Array(clientIdSecret)
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
    const token = bearerToken(request)
    if (token === undefined) return null
    const { key, ids } = await load()
    // Looked up by MAC, not by token: a Map's string compare would leak how much of a token matched.
    return ids.get(await mac(key, token)) ?? null
  }
}

/** Options of {@link anyAuth}. */
export type AnyAuthOptions = {
  /**
   * The HMAC key that turns a token of the token lists into its client id, as `createRelay`'s
   * `clientIdSecret`: a string (its UTF-8 bytes) or the key bytes.
   * @defaultValue derived from each token list
   */
  clientIdSecret?: string | Uint8Array | undefined
}

/**
 * Several ways to admit a client as one `auth`, tried in order: a request is admitted by the first
 * that names its client, and refused otherwise with the first reason one of them gave (a JWT's
 * "the token has expired" says more than "no such token"). Each is what `auth` takes: a token list
 * (checked as `createRelay` checks one: each at least 16 characters, without whitespace) or a hook
 * such as `jwtAuth`'s, held to the same rules (only a non-empty string admits).
 *
 * @example
 * ```ts
 * const relay = createRelay({
 *   providers,
 *   // Tokens for the app's own servers, and its users' JWTs from their browsers.
 *   auth: anyAuth([serverTokens, jwtAuth({ jwksUrl, issuer, audience })], { clientIdSecret }),
 * })
 * ```
 */
export function anyAuth(
  methods: readonly RelayAuth[],
  options: AnyAuthOptions = {},
): (request: Request) => Promise<string | RelayRefusal | null> {
  if (methods.length === 0)
    throw new TypeError('anyAuth: methods must hold at least one token list or hook')
  const checks = methods.map((method) => createAuthenticate(method, options))
  return async (request) => {
    let refusal: RelayRefusal | null = null
    for (const check of checks) {
      const client = await check(request)
      if (typeof client === 'string') return client
      refusal ??= client
    }
    return refusal
  }
}

/**
 * The client-id key a token list gives when no `clientIdSecret` is set: SHA-256 of the sorted
 * tokens under a fixed label. Storing these bytes as the secret keeps every id the list gave,
 * whatever the list becomes later.
 */
export async function deriveClientIdKey(
  tokens: readonly string[],
): Promise<Uint8Array<ArrayBuffer>> {
  const text = `thinkwire client ids\n${tokens.toSorted().join('\n')}`
  return new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(text)))
}

/** The token of an `authorization: Bearer <token>` header (any case of the scheme), if any. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  const match = header === null ? null : /^bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

/**
 * The request as the auth check sees it on a route whose clients may send the relay token in
 * `header` as well (Anthropic's `x-api-key`): when the request has no `authorization` of its own
 * and does have `header`, a copy of its URL, method and headers with `authorization: Bearer
 * <token>` added, so that a token list and any hook (`jwtAuth`, an app's own) read the token as
 * they read a bearer token; else the request itself. The copy has no body: an auth check reads
 * none.
 */
export function credentialsOf(request: Request, header: string | undefined): Request {
  if (header === undefined || request.headers.has('authorization')) return request
  const token = request.headers.get(header)
  if (token === null) return request
  const headers = new Headers(request.headers)
  headers.set('authorization', `Bearer ${token}`)
  return new Request(request.url, { method: request.method, headers })
}

/** A hook's refusal as the relay reads it: its reason when well formed, else none. */
function refusalOf(value: unknown): RelayRefusal | null {
  if (typeof value !== 'object' || value === null) return null
  const reason: unknown = Reflect.get(value, 'refuse')
  const status: unknown = Reflect.get(value, 'status')
  if (typeof reason !== 'string' || reason.trim() === '') return null
  const refuse =
    reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason
  return status === 403 || status === 503 ? { refuse, status } : { refuse }
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
