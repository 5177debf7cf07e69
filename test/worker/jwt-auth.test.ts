import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWorker, type TestWorker } from './start-worker.ts'

// End-user tokens: the Worker with AUTH_JWKS_URL pointing at a key set this test serves, beside
// RELAY_TOKENS. ALLOW_ANONYMOUS stays "true" (the test default): auth configured closes the relay
// to everyone else all the same.

const ISSUER = 'https://id.example/'
const AUDIENCE = 'https://relay.example'
const TOKEN = 'token-beside-jwts-0123456789'

type Keys = Awaited<ReturnType<typeof generateKeyPair>>
let signing: Keys
let stranger: Keys
let keyServer: Server
let keyRequests = 0
let worker: TestWorker

beforeAll(async () => {
  signing = await generateKeyPair('ES256')
  stranger = await generateKeyPair('ES256')
  const jwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'key-1', alg: 'ES256' }] }
  keyServer = createServer((request, response) => {
    keyRequests++
    if (request.url !== '/.well-known/jwks.json') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks))
  })
  await new Promise<void>((listening) => keyServer.listen(0, '127.0.0.1', listening))
  const { port } = keyServer.address() as AddressInfo
  worker = await startTestWorker({
    AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    AUTH_ISSUER: ISSUER,
    AUTH_AUDIENCE: AUDIENCE,
    RELAY_TOKENS: TOKEN,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
  })
}, 60_000)

afterAll(async () => {
  await worker?.dispose()
  await new Promise((closed) => keyServer?.close(closed))
})

/** A token of the provider's key, valid for 5 minutes, unless the arguments say otherwise. */
function jwt(
  claims: JWTPayload = {},
  {
    key = signing.privateKey,
    kid = 'key-1',
    issuer = ISSUER,
    audience = AUDIENCE,
    subject = true,
  } = {},
): Promise<string> {
  const token = new SignJWT(subject ? { sub: 'alice', ...claims } : claims)
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
  if (!('exp' in claims)) token.setExpirationTime('5m')
  return token.sign(key)
}

const as = (token: string) => ({ authorization: `Bearer ${token}` })

async function create(token: string): Promise<string> {
  const response = await worker.fetch('/v1/conversations', { method: 'POST', headers: as(token) })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

async function listed(token: string): Promise<string[]> {
  const response = await worker.fetch('/v1/conversations', { headers: as(token) })
  expect(response.status).toBe(200)
  const { conversations } = (await response.json()) as { conversations: { id: string }[] }
  return conversations.map((c) => c.id)
}

describe('worker in workerd: end-user tokens (AUTH_JWKS_URL)', () => {
  it('serves a valid token, its chat streaming, as the client jwt:<sub>', async () => {
    const token = await jwt()
    expect((await worker.fetch('/v1/models', { headers: as(token) })).status).toBe(200)
    const response = await worker.fetch('/v1/chat', {
      method: 'POST',
      headers: { ...as(token), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mock/echo',
        conversation: { turns: [{ role: 'user', content: 'Hello' }] },
      }),
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('event: done')
    const logs = worker.logs().join('\n')
    expect(logs).toContain('"clientId":"jwt:alice"')
    expect(logs).not.toContain(token)
    expect(keyRequests).toBeGreaterThan(0)
  })

  it("gives each subject its own conversations: another subject's is 404 and absent from its list", async () => {
    const alice = await jwt({ sub: 'alice' })
    const bob = await jwt({ sub: 'bob' })
    const id = await create(alice)
    expect(await listed(alice)).toContain(id)
    expect(await listed(bob)).not.toContain(id)
    const read = await worker.fetch(`/v1/conversations/${id}`, { headers: as(bob) })
    expect(read.status).toBe(404)
    await read.arrayBuffer()
    // A fresh token of the same subject is the same client.
    expect(await listed(await jwt({ sub: 'alice' }))).toContain(id)
    // A relay token is a client of its own, beside the JWTs.
    expect(await listed(TOKEN)).not.toContain(id)
  })

  it('refuses each bad token with a 401 that says why, never the token', async () => {
    const now = Math.floor(Date.now() / 1000)
    const cases: [reason: string, token: string][] = [
      ['the token has expired', await jwt({ exp: now - 300 })],
      ['the token is from another issuer', await jwt({}, { issuer: 'https://evil.example/' })],
      [
        'the token is meant for another audience',
        await jwt({}, { audience: 'https://other.example' }),
      ],
      ["the token's signature does not verify", await jwt({}, { key: stranger.privateKey })],
      [
        'the token is signed with a key the identity provider does not publish',
        await jwt({}, { key: stranger.privateKey, kid: 'key-2' }),
      ],
      ['the token names no subject (sub)', await jwt({}, { subject: false })],
      [
        "the token's signature algorithm is not accepted",
        new UnsecuredJWT({ sub: 'alice' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .encode(),
      ],
    ]
    for (const [reason, token] of cases) {
      const response = await worker.fetch('/v1/models', { headers: as(token) })
      expect(response.status, reason).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer')
      const text = await response.text()
      expect(JSON.parse(text)).toEqual({ error: { kind: 'auth', message: reason } })
      expect(text).not.toContain(token.split('.')[1])
    }
    const logs = worker.logs().join('\n')
    for (const [, token] of cases) expect(logs).not.toContain(token)
  })

  it('accepts RELAY_TOKENS beside JWTs, and refuses a request with neither', async () => {
    expect((await worker.fetch('/v1/models', { headers: as(TOKEN) })).status).toBe(200)
    const anonymous = await worker.fetch('/v1/models', {
      headers: { 'cf-connecting-ip': '203.0.113.7' },
    })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toEqual({
      error: { kind: 'auth', message: 'a valid bearer token is required' },
    })
  })
})
