import { describe, expect, it } from 'vitest'
import {
  anyAuth,
  createAuthenticate,
  deriveClientIdKey,
  type RelayAuth,
  type RelayRefusal,
} from '../../src/relay/auth.ts'
import { createRelay } from '../../src/relay/create-relay.ts'
import { errorBody, offline } from './helpers.ts'

const TOKENS = ['token-one-abcdef0123', 'token-two-abcdef4567']
const SECRET = 'client-id-secret-0123456789abcdef'

const request = (headers: Record<string, string> = {}) =>
  new Request('http://relay.test/v1/chat', { headers })
const bearer = (token: string) => request({ authorization: `Bearer ${token}` })

/** An auth hook as a JavaScript caller may write it, returning whatever it likes. */
function looseHook(value: unknown): RelayAuth {
  return (() => value) as RelayAuth
}

async function hmacHex(secret: string, token: string): Promise<string> {
  const utf8 = new TextEncoder()
  const key = await crypto.subtle.importKey(
    'raw',
    utf8.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(token)))
  return [...mac].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

describe('createAuthenticate: a hook fails closed', () => {
  it('admits a request only when the hook names a client with a non-empty string', async () => {
    const authenticate = createAuthenticate((r) => r.headers.get('x-user'))
    expect(await authenticate(request({ 'x-user': 'alice' }))).toBe('alice')
    expect(await authenticate(request())).toBeNull()
    expect(await authenticate(request({ 'x-user': '' }))).toBeNull()
  })

  it('refuses a request when the common Map lookup misses and returns undefined', async () => {
    const clients = new Map([['key-of-alice-0001', 'alice']])
    const authenticate = createAuthenticate((r) => clients.get(r.headers.get('x-key') ?? ''))
    expect(await authenticate(request({ 'x-key': 'key-of-alice-0001' }))).toBe('alice')
    expect(await authenticate(request({ 'x-key': 'key-of-mallory-01' }))).toBeNull()
    expect(await authenticate(request())).toBeNull()
  })

  it('refuses undefined, false, an empty string, numbers, objects and true, also from async hooks', async () => {
    const refused: unknown[] = [undefined, null, false, '', 0, 1, true, {}, ['alice'], () => 'x']
    for (const value of refused) {
      expect(await createAuthenticate(looseHook(value))(request())).toBeNull()
      expect(await createAuthenticate(looseHook(Promise.resolve(value)))(request())).toBeNull()
    }
    const asyncHook = createAuthenticate(async () => 'bob')
    expect(await asyncHook(request())).toBe('bob')
  })
})

describe('createAuthenticate: tokens', () => {
  it('admits each listed token, case-insensitive in the scheme, and refuses every other header', async () => {
    const authenticate = createAuthenticate(TOKENS, { clientIdSecret: SECRET })
    expect(await authenticate(bearer(TOKENS[0]!))).toMatch(/^token:[0-9a-f]{16}$/)
    expect(await authenticate(request({ authorization: `bearer ${TOKENS[1]!}` }))).toMatch(
      /^token:[0-9a-f]{16}$/,
    )
    const refused = [
      request(),
      bearer('token-three-abcdef01'),
      bearer(`${TOKENS[0]!}x`),
      bearer(TOKENS[0]!.slice(0, -1)),
      request({ authorization: `Basic ${TOKENS[0]!}` }),
      request({ authorization: TOKENS[0]! }),
    ]
    for (const r of refused) expect(await authenticate(r)).toBeNull()
  })

  it('names a token client by an HMAC of the token under clientIdSecret, 16 hex digits long', async () => {
    const authenticate = createAuthenticate(TOKENS, { clientIdSecret: SECRET })
    const expected = `token:${(await hmacHex(SECRET, TOKENS[0]!)).slice(0, 16)}`
    expect(await authenticate(bearer(TOKENS[0]!))).toBe(expected)
    const plainDigest = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(TOKENS[0]!)),
    )
    const sha = [...plainDigest].map((byte) => byte.toString(16).padStart(2, '0')).join('')
    expect(expected).not.toContain(sha.slice(0, 12))
  })

  it('gives one token the same id in every relay that shares the secret, and another under another secret', async () => {
    const first = createAuthenticate(TOKENS, { clientIdSecret: SECRET })
    const second = createAuthenticate(TOKENS.toReversed(), { clientIdSecret: SECRET })
    const other = createAuthenticate(TOKENS, { clientIdSecret: `${SECRET}-rotated` })
    const id = await first(bearer(TOKENS[1]!))
    expect(await second(bearer(TOKENS[1]!))).toBe(id)
    expect(await other(bearer(TOKENS[1]!))).not.toBe(id)
    expect(await first(bearer(TOKENS[0]!))).not.toBe(id)
  })

  it('derives the secret from the tokens when none is given: the same ids in every relay with those tokens', async () => {
    const first = createAuthenticate(TOKENS)
    const second = createAuthenticate(TOKENS.toReversed())
    const other = createAuthenticate([...TOKENS, 'another-token-0123456789'])
    const id = await first(bearer(TOKENS[0]!))
    expect(id).toMatch(/^token:[0-9a-f]{16}$/)
    expect(await second(bearer(TOKENS[0]!))).toBe(id)
    expect(await other(bearer(TOKENS[0]!))).not.toBe(id)
    expect(await first(bearer(TOKENS[1]!))).not.toBe(id)
  })

  it('refuses at creation a token shorter than 16 characters, naming auth and never the token', () => {
    const short = 'short-token-15c'
    expect(short).toHaveLength(15)
    let message = ''
    try {
      createAuthenticate(['long-enough-token-0001', short])
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError)
      message = (error as TypeError).message
    }
    expect(message).toBe('auth[1] must be a token of at least 16 characters')
    expect(message).not.toContain(short)
    expect(() => createAuthenticate(['exactly-16-chars'])).not.toThrow()
  })

  it('refuses at creation an empty list, a token with whitespace and an empty clientIdSecret', () => {
    expect(() => createAuthenticate([])).toThrow(/^auth must be a non-empty list of tokens$/)
    expect(() => createAuthenticate(['token with a space in it'])).toThrow(
      /^auth\[0\] must not contain whitespace/,
    )
    expect(() => createAuthenticate(TOKENS, { clientIdSecret: '' })).toThrow(
      /^clientIdSecret must not be empty$/,
    )
  })

  it('names every request the anonymous client when there is no auth', async () => {
    expect(await createAuthenticate(undefined)(request())).toBe('anonymous')
  })
})

describe('createAuthenticate: client-id keys', () => {
  it('takes the key as bytes: a string secret and its UTF-8 bytes give the same ids', async () => {
    const asText = createAuthenticate(TOKENS, { clientIdSecret: SECRET })
    const asBytes = createAuthenticate(TOKENS, {
      clientIdSecret: new TextEncoder().encode(SECRET),
    })
    expect(await asBytes(bearer(TOKENS[0]!))).toBe(await asText(bearer(TOKENS[0]!)))
    expect(() => createAuthenticate(TOKENS, { clientIdSecret: new Uint8Array() })).toThrow(
      /^clientIdSecret must not be empty$/,
    )
  })

  it('keeps every id a token list gave without a secret when its derived key becomes the secret, also after a token is added', async () => {
    const before = createAuthenticate(TOKENS)
    const key = await deriveClientIdKey(TOKENS)
    const after = createAuthenticate([...TOKENS, 'token-three-abcdef89'], { clientIdSecret: key })
    for (const token of TOKENS) {
      expect(await after(bearer(token))).toBe(await before(bearer(token)))
    }
    // Without the key, the grown list moves every id.
    const moved = createAuthenticate([...TOKENS, 'token-three-abcdef89'])
    expect(await moved(bearer(TOKENS[0]!))).not.toBe(await before(bearer(TOKENS[0]!)))
  })

  it('derives the key from the sorted tokens as the relay always has: SHA-256 of a label and the list', async () => {
    const expected = new Uint8Array(
      await crypto.subtle.digest(
        'SHA-256',
        new TextEncoder().encode(`thinkwire client ids\n${TOKENS.toSorted().join('\n')}`),
      ),
    )
    expect(await deriveClientIdKey(TOKENS.toReversed())).toEqual(expected)
  })
})

describe('createAuthenticate: refusals with a reason', () => {
  it('keeps the reason and status a hook refuses with, and drops a malformed refusal', async () => {
    const refusing = (value: unknown) => createAuthenticate(looseHook(value))(request())
    expect(await refusing({ refuse: 'the token has expired' })).toEqual({
      refuse: 'the token has expired',
    })
    expect(await refusing({ refuse: 'banned', status: 403 })).toEqual({
      refuse: 'banned',
      status: 403,
    })
    expect(await refusing({ refuse: 'keys down', status: 503 })).toEqual({
      refuse: 'keys down',
      status: 503,
    })
    // Any other status is a 401, and a refusal without a reason is a plain one.
    expect(await refusing({ refuse: 'odd', status: 200 })).toEqual({ refuse: 'odd' })
    for (const malformed of [
      {},
      { refuse: '' },
      { refuse: '  ' },
      { refuse: 42 },
      { status: 403 },
    ]) {
      expect(await refusing(malformed)).toBeNull()
    }
    const long = (await refusing({ refuse: 'x'.repeat(500) })) as RelayRefusal
    expect(long.refuse).toHaveLength(201)
  })
})

describe('anyAuth', () => {
  const session = (r: Request) =>
    r.headers.get('x-session') === 'ok' ? 'session:1' : { refuse: 'the session has ended' }

  it('admits by the first method that names the client, tokens under clientIdSecret', async () => {
    const auth = anyAuth([TOKENS, session], { clientIdSecret: SECRET })
    expect(await auth(bearer(TOKENS[1]!))).toBe(
      `token:${(await hmacHex(SECRET, TOKENS[1]!)).slice(0, 16)}`,
    )
    expect(await auth(request({ 'x-session': 'ok' }))).toBe('session:1')
  })

  it('refuses with the first reason a method gave, or with none when none gave one', async () => {
    const expired = () => ({ refuse: 'the token has expired' })
    expect(await anyAuth([TOKENS, session, expired])(bearer('not-a-known-token-0000'))).toEqual({
      refuse: 'the session has ended',
    })
    expect(await anyAuth([TOKENS, looseHook(''), looseHook({ refuse: 42 })])(request())).toBeNull()
  })

  it('holds every method to the rules of auth: token lists checked, hooks failing closed', async () => {
    expect(() => anyAuth([TOKENS, ['short']])).toThrow(/at least 16 characters/)
    expect(() => anyAuth([])).toThrow(/^anyAuth: methods must hold at least one/)
    expect(await anyAuth([looseHook(''), looseHook(false)])(request())).toBeNull()
  })
})

describe('createRelay: what a refused request is told', () => {
  const relayWith = (auth: RelayAuth) => createRelay({ providers: offline, auth })
  const call = (path: string) =>
    new Request(`http://relay.test${path}`, {
      method: path === '/v1/models' ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: path === '/v1/models' ? null : '{}',
    })

  it("answers a hook's refusal as a 401 with its reason, in /v1/chat's shape", async () => {
    const relay = relayWith(() => ({ refuse: 'the token has expired' }))
    const response = await relay.fetch(call('/v1/chat'))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer')
    expect(await errorBody(response)).toEqual({ kind: 'auth', message: 'the token has expired' })
  })

  it("answers it in OpenAI's error shape on /v1/chat/completions", async () => {
    const relay = relayWith(() => ({ refuse: 'the token has expired' }))
    const response = await relay.fetch(call('/v1/chat/completions'))
    expect(response.status).toBe(401)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error['message']).toBe('the token has expired')
    expect(Object.keys(error).toSorted()).toEqual(['code', 'message', 'param', 'type'])
  })

  it('answers 403 and a retryable 503 when the hook says so, and the plain 401 without a reason', async () => {
    const forbidden = await relayWith(() => ({ refuse: 'banned', status: 403 })).fetch(
      call('/v1/models'),
    )
    expect(forbidden.status).toBe(403)
    expect(await errorBody(forbidden)).toEqual({ kind: 'auth', message: 'banned' })
    const down = await relayWith(() => ({ refuse: 'keys down', status: 503 })).fetch(
      call('/v1/models'),
    )
    expect(down.status).toBe(503)
    expect(await errorBody(down)).toEqual({
      kind: 'overloaded',
      message: 'keys down',
      retryable: true,
    })
    const plain = await relayWith(() => null).fetch(call('/v1/models'))
    expect(plain.status).toBe(401)
    expect(await errorBody(plain)).toEqual({
      kind: 'auth',
      message: 'a valid bearer token is required',
    })
  })
})
