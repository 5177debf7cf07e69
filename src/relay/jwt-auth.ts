import {
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
  type RemoteJWKSetOptions,
} from 'jose'
import { bearerToken, type RelayAuth, type RelayRefusal } from './auth.ts'

/** Options of {@link jwtAuth}. */
export type JwtAuthOptions = {
  /**
   * Where the identity provider publishes its public signing keys (a JWKS), such as
   * `https://example.auth0.com/.well-known/jwks.json`: https, or http on a loopback host.
   */
  jwksUrl: string | URL
  /** The `iss` every token must carry: the identity provider's issuer. */
  issuer: string
  /** The `aud` a token must carry (one of them): this relay's identifier at the provider. */
  audience: string | readonly string[]
  /** Seconds of clock difference allowed on `exp`, `nbf` and `iat`. @defaultValue 30 */
  clockToleranceSeconds?: number | undefined
  /** The signature algorithms accepted. @defaultValue the public-key ones: RS*, PS*, ES*, EdDSA, Ed25519 */
  algorithms?: readonly string[] | undefined
  /** The fetch that loads the key set. @defaultValue `globalThis.fetch` */
  fetch?: typeof fetch | undefined
}

/** Public-key signatures only: a key set holds no shared secret, and `none` signs nothing. */
const PUBLIC_KEY_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]

/** Three base64url parts (the last may be empty, as an unsigned token's is). */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/

/** Longest `sub` taken as a client id: ids key Durable Objects and log lines. */
const MAX_SUBJECT_LENGTH = 255

/**
 * End-user tokens as relay auth: a bearer token that is a JWT from the app's identity provider
 * (Auth0, Clerk, Supabase, Firebase, Cognito, ...) admits its subject as the client `jwt:<sub>`,
 * once its signature verifies against the provider's published keys (fetched and cached), and its
 * `iss`, `aud`, `exp` and `nbf` hold. A refused token gets a 401 saying why in general terms
 * (expired, another audience, a bad signature), never the token; a key set that cannot be fetched
 * is a 503. A bearer that is not a JWT is left to the relay's other checks (refused, alone).
 *
 * @example
 * ```ts
 * const relay = createRelay({
 *   providers: { anthropic: createAnthropic({ apiKey }) },
 *   auth: jwtAuth({
 *     jwksUrl: 'https://example.auth0.com/.well-known/jwks.json',
 *     issuer: 'https://example.auth0.com/',
 *     audience: 'https://relay.example.com',
 *   }),
 * })
 * ```
 */
export function jwtAuth(options: JwtAuthOptions): RelayAuth {
  const url = new URL(checkedJwksUrl(options.jwksUrl))
  const issuer = checkedIssuer(options.issuer)
  const audience = checkedAudience(options.audience)
  const clockTolerance = options.clockToleranceSeconds ?? 30
  if (!Number.isFinite(clockTolerance) || clockTolerance < 0) {
    throw new TypeError('jwtAuth: clockToleranceSeconds must be a number of at least 0')
  }
  const algorithms = [...(options.algorithms ?? PUBLIC_KEY_ALGORITHMS)]
  if (algorithms.length === 0 || algorithms.some((alg) => alg.toLowerCase() === 'none')) {
    throw new TypeError("jwtAuth: algorithms must name signature algorithms, never 'none'")
  }
  const jwksOptions: RemoteJWKSetOptions = {}
  if (options.fetch !== undefined) jwksOptions[customFetch] = options.fetch
  const keys = createRemoteJWKSet(url, jwksOptions)
  // A key set that cannot be had is the relay's trouble, not the client's: told apart here.
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await keys(header, token)
    } catch (error) {
      const unknownKey =
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      throw unknownKey ? error : new KeysUnavailable()
    }
  }
  return async (request) => {
    const token = bearerToken(request)
    if (token === undefined || !JWT_SHAPE.test(token)) return null
    try {
      const { payload } = await jwtVerify(token, getKey, {
        issuer,
        audience,
        algorithms,
        clockTolerance,
        requiredClaims: ['exp', 'sub'],
      })
      const { sub } = payload
      if (typeof sub !== 'string' || sub === '' || sub.length > MAX_SUBJECT_LENGTH) {
        return { refuse: `the token's subject (sub) must be 1 to ${MAX_SUBJECT_LENGTH} characters` }
      }
      if (/\p{Cc}/u.test(sub))
        return { refuse: "the token's subject (sub) holds control characters" }
      return `jwt:${sub}`
    } catch (error) {
      return refusalOf(error)
    }
  }
}

/** Whether `url` may serve a key set: https, or http on a loopback host (a local provider). */
export function isJwksUrl(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol === 'https:') return true
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname)
  return parsed.protocol === 'http:' && loopback
}

function checkedJwksUrl(url: string | URL): string {
  const text = String(url)
  if (!isJwksUrl(text)) {
    throw new TypeError('jwtAuth: jwksUrl must be an https URL (http only on localhost)')
  }
  return text
}

function checkedIssuer(issuer: string): string {
  if (typeof issuer !== 'string' || issuer.trim() === '') {
    throw new TypeError('jwtAuth: issuer must be the identity provider’s issuer, not empty')
  }
  return issuer
}

function checkedAudience(audience: string | readonly string[]): string[] {
  const list = typeof audience === 'string' ? [audience] : [...audience]
  if (list.length === 0 || list.some((item) => typeof item !== 'string' || item.trim() === '')) {
    throw new TypeError('jwtAuth: audience must be a non-empty string or list of them')
  }
  return list
}

/** The key set could not be fetched or read. */
class KeysUnavailable extends Error {
  override name = 'KeysUnavailable'
}

/** Why a token was refused, in general terms: never a claim's value, never the token. */
function refusalOf(error: unknown): RelayRefusal {
  if (error instanceof KeysUnavailable) {
    return { refuse: "the identity provider's signing keys could not be fetched", status: 503 }
  }
  if (error instanceof errors.JWTExpired) return { refuse: 'the token has expired' }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return { refuse: CLAIM_REFUSALS[error.claim] ?? "the token's claims are not valid" }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return { refuse: "the token's signature does not verify" }
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return { refuse: 'the token is signed with a key the identity provider does not publish' }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return { refuse: "the token's signature algorithm is not accepted" }
  }
  return { refuse: 'the token is not a well-formed JWT' }
}

/** What each claim that failed means to the client. */
const CLAIM_REFUSALS: Readonly<Record<string, string>> = {
  iss: 'the token is from another issuer',
  aud: 'the token is meant for another audience',
  nbf: 'the token is not valid yet',
  iat: "the token's issue time (iat) is not valid",
  exp: 'the token has no valid expiry (exp)',
  sub: 'the token names no subject (sub)',
}
