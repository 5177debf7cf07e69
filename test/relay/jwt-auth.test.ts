import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { jwtAuth, type JwtAuthOptions } from '../../src/relay/jwt-auth.ts'

const ISSUER = 'https://id.example/'
const AUDIENCE = 'https://relay.example'
const JWKS_URL = 'https://id.example/.well-known/jwks.json'

type Keys = Awaited<ReturnType<typeof generateKeyPair>>
let signing: Keys
let stranger: Keys
let jwks: { keys: object[] }

beforeAll(async () => {
  signing = await generateKeyPair('ES256')
  stranger = await generateKeyPair('ES256')
  jwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'key-1', alg: 'ES256' }] }
})

/** A fetch that serves the key set and counts its calls. */
function keySetFetch(answer: () => Response | Promise<Response> = () => Response.json(jwks)) {
  const calls: string[] = []
  const fetcher = (async (input: RequestInfo | URL) => {
    calls.push(String(input))
    return answer()
  }) as typeof fetch
  return { fetcher, calls }
}

function hook(options: Partial<JwtAuthOptions> = {}) {
  const { fetcher } = keySetFetch()
  const auth = jwtAuth({
    jwksUrl: JWKS_URL,
    issuer: ISSUER,
    audience: AUDIENCE,
    fetch: fetcher,
    ...options,
  })
  if (typeof auth !== 'function') throw new Error('jwtAuth returns a hook')
  return auth
}

/** A token signed with `key` (the provider's by default), valid for 5 minutes unless `claims` say otherwise. */
function token(
  claims: JWTPayload = {},
  {
    key = signing.privateKey,
    kid = 'key-1',
    issuer = ISSUER,
    audience = AUDIENCE,
    subject = true,
  } = {},
): Promise<string> {
  const jwt = new SignJWT(subject ? { sub: 'user-1', ...claims } : claims)
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
  if (!('exp' in claims)) jwt.setExpirationTime('5m')
  return jwt.sign(key)
}

const bearer = (value: string) =>
  new Request('https://relay.example/v1/chat', { headers: { authorization: `Bearer ${value}` } })

describe('jwtAuth', () => {
  it('admits a valid token as the client jwt:<sub>, and fetches the key set once for many tokens', async () => {
    const { fetcher, calls } = keySetFetch()
    const auth = jwtAuth({ jwksUrl: JWKS_URL, issuer: ISSUER, audience: AUDIENCE, fetch: fetcher })
    if (typeof auth !== 'function') throw new Error('jwtAuth returns a hook')
    expect(await auth(bearer(await token()))).toBe('jwt:user-1')
    expect(await auth(bearer(await token({ sub: 'token:abc' })))).toBe('jwt:token:abc')
    expect(calls).toEqual([JWKS_URL])
  })

  it('accepts a token that expired within the clock tolerance, and one for any of several audiences', async () => {
    const now = Math.floor(Date.now() / 1000)
    expect(await hook()(bearer(await token({ exp: now - 10 })))).toBe('jwt:user-1')
    const several = hook({ audience: ['https://other.example', AUDIENCE] })
    expect(await several(bearer(await token()))).toBe('jwt:user-1')
  })

  it('refuses each bad token with a reason in general terms, never the token', async () => {
    const now = Math.floor(Date.now() / 1000)
    const cases: [string, Promise<string> | string][] = [
      ['the token has expired', token({ exp: now - 120 })],
      ['the token is not valid yet', token({ nbf: now + 120 })],
      ['the token is from another issuer', token({}, { issuer: 'https://evil.example/' })],
      ['the token is meant for another audience', token({}, { audience: 'https://other.example' })],
      ["the token's signature does not verify", token({}, { key: stranger.privateKey })],
      [
        'the token is signed with a key the identity provider does not publish',
        token({}, { key: stranger.privateKey, kid: 'key-2' }),
      ],
      ['the token names no subject (sub)', token({}, { subject: false })],
      [
        "the token's signature algorithm is not accepted",
        new UnsecuredJWT({ sub: 'user-1' }).setIssuer(ISSUER).setAudience(AUDIENCE).encode(),
      ],
      [
        "the token's signature algorithm is not accepted",
        new SignJWT({ sub: 'user-1' })
          .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('a shared secret of 32 characters!')),
      ],
    ]
    const auth = hook()
    for (const [reason, made] of cases) {
      const value = await made
      const refusal = await auth(bearer(value))
      expect(refusal, reason).toEqual({ refuse: reason })
      expect(JSON.stringify(refusal)).not.toContain(value.split('.')[1])
    }
  })

  it('refuses a token without an expiry, and a subject too long or holding control characters', async () => {
    const auth = hook()
    const lasting = await new SignJWT({ sub: 'user-1' })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .sign(signing.privateKey)
    expect(await auth(bearer(lasting))).toEqual({ refuse: 'the token has no valid expiry (exp)' })
    expect(await auth(bearer(await token({ sub: 'x'.repeat(256) })))).toEqual({
      refuse: "the token's subject (sub) must be 1 to 255 characters",
    })
    expect(await auth(bearer(await token({ sub: 'user\n1' })))).toEqual({
      refuse: "the token's subject (sub) holds control characters",
    })
  })

  it('leaves a request without a bearer JWT to the relay (no reason), and calls no key server for it', async () => {
    const { fetcher, calls } = keySetFetch()
    const auth = jwtAuth({ jwksUrl: JWKS_URL, issuer: ISSUER, audience: AUDIENCE, fetch: fetcher })
    if (typeof auth !== 'function') throw new Error('jwtAuth returns a hook')
    expect(await auth(new Request('https://relay.example/v1/chat'))).toBeNull()
    expect(await auth(bearer('token-one-abcdef0123'))).toBeNull()
    expect(calls).toEqual([])
  })

  it('answers 503 when the key set cannot be fetched or read', async () => {
    const failures: (() => Response | Promise<Response>)[] = [
      () => Promise.reject(new TypeError('fetch failed')),
      () => new Response('down', { status: 502 }),
      () => new Response('not json'),
      () => Response.json({ keys: 'none' }),
    ]
    for (const answer of failures) {
      const { fetcher } = keySetFetch(answer)
      const auth = jwtAuth({
        jwksUrl: JWKS_URL,
        issuer: ISSUER,
        audience: AUDIENCE,
        fetch: fetcher,
      })
      if (typeof auth !== 'function') throw new Error('jwtAuth returns a hook')
      expect(await auth(bearer(await token()))).toEqual({
        refuse: "the identity provider's signing keys could not be fetched",
        status: 503,
      })
    }
  })

  it('refuses options that could never verify a token, naming the option', () => {
    const base = { jwksUrl: JWKS_URL, issuer: ISSUER, audience: AUDIENCE }
    const cases: [Partial<JwtAuthOptions>, RegExp][] = [
      [{ jwksUrl: 'http://id.example/jwks.json' }, /^jwtAuth: jwksUrl must be an https URL/],
      [{ jwksUrl: 'not a url' }, /^jwtAuth: jwksUrl must be an https URL/],
      [{ issuer: ' ' }, /^jwtAuth: issuer must be/],
      [{ audience: [] }, /^jwtAuth: audience must be/],
      [{ audience: '' }, /^jwtAuth: audience must be/],
      [{ clockToleranceSeconds: -1 }, /^jwtAuth: clockToleranceSeconds must be/],
      [{ algorithms: ['ES256', 'none'] }, /^jwtAuth: algorithms must name/],
    ]
    for (const [options, message] of cases) {
      expect(() => jwtAuth({ ...base, ...options })).toThrow(message)
    }
    expect(() => jwtAuth({ ...base, jwksUrl: 'http://127.0.0.1:8080/jwks.json' })).not.toThrow()
    expect(() => jwtAuth({ ...base, jwksUrl: new URL('http://localhost/jwks') })).not.toThrow()
  })
})
