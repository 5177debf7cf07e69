import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWorker, type TestWorker } from './start-worker.ts'

// The Worker as deployed with no auth configured: it serves no one, and says what to set. Test
// Workers are open unless told otherwise, so these set ALLOW_ANONYMOUS as wrangler.toml does.

const ORIGIN = 'https://app.example'
const TOKEN = 'token-closed-relay-0123456789'

/** Every route of the relay, with a request it would serve on an open relay. */
const ROUTES: [method: string, path: string][] = [
  ['GET', '/v1/models'],
  ['GET', '/v1/usage'],
  ['POST', '/v1/chat'],
  ['POST', '/v1/conversations'],
  ['GET', '/v1/conversations'],
  ['GET', '/v1/conversations/abc'],
  ['POST', '/v1/conversations/abc/messages'],
  ['POST', '/v1/conversations/abc/stop'],
  ['DELETE', '/v1/conversations/abc'],
]

const body = (method: string) =>
  method === 'POST'
    ? JSON.stringify({
        model: 'mock/echo',
        conversation: { turns: [{ role: 'user', content: 'Hi' }] },
      })
    : null

let closed: TestWorker

/** Settings that stop the Worker, each with the start of the message that must name the setting. */
const BAD: [Record<string, string>, RegExp][] = [
  [{ ALLOW_ANONYMOUS: 'yes' }, /^ALLOW_ANONYMOUS must be "true", "false" or empty$/],
  [
    { RELAY_TOKENS: TOKEN, CLIENT_ID_SECRET: '' },
    /^CLIENT_ID_SECRET is required with RELAY_TOKENS/,
  ],
  [
    { AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json', AUTH_AUDIENCE: 'relay' },
    /^AUTH_ISSUER is required with AUTH_JWKS_URL/,
  ],
  [{ CLIENT_ID_SECRET: 'base64:tooshort' }, /^CLIENT_ID_SECRET must hold at least 32 bytes/],
]

beforeAll(async () => {
  closed = await startTestWorker({
    ALLOW_ANONYMOUS: 'false',
    MOCK_MODELS: 'on',
    ALLOWED_ORIGINS: ORIGIN,
  })
})

afterAll(async () => {
  await closed?.dispose()
})

describe('worker in workerd: a relay with no auth is closed', () => {
  it('ships closed: wrangler.toml sets ALLOW_ANONYMOUS to "false"', () => {
    expect(closed.configVars['ALLOW_ANONYMOUS']).toBe('false')
  })

  it('answers every /v1/* route 401 naming RELAY_TOKENS and the alternatives', async () => {
    for (const [method, path] of ROUTES) {
      const response = await closed.fetch(path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body(method),
      })
      expect(response.status, `${method} ${path}`).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer')
      const { error } = (await response.json()) as { error: { kind: string; message: string } }
      expect(error.kind).toBe('auth')
      expect(error.message).toMatch(/RELAY_TOKENS/)
      expect(error.message).toMatch(/AUTH_JWKS_URL/)
      expect(error.message).toMatch(/ALLOW_ANONYMOUS="true"/)
    }
  })

  it("answers /v1/chat/completions in OpenAI's error shape, so OpenAI clients show the reason", async () => {
    const response = await closed.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'Hi' }] }),
    })
    expect(response.status).toBe(401)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(Object.keys(error).toSorted()).toEqual(['code', 'message', 'param', 'type'])
    expect(error['message']).toMatch(/RELAY_TOKENS/)
    expect(error['code']).toBe('invalid_api_key')
  })

  it('still answers CORS preflights for an allowed origin', async () => {
    const response = await closed.fetch('/v1/chat', {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    // And the 401 itself carries the CORS headers, so a browser app can read why.
    const refused = await closed.fetch('/v1/models', { headers: { origin: ORIGIN } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    await refused.arrayBuffer()
  })
})

describe('worker in workerd: bad auth settings', () => {
  it('answers every /v1/* route with a JSON 500 naming the setting, never its value', async () => {
    for (const [vars, message] of BAD) {
      // The Worker answering as one started with these settings would (see `withSettings`).
      const worker = closed.withSettings(vars)
      for (const [method, path] of [...ROUTES, ['POST', '/v1/chat/completions'] as const]) {
        const response = await worker.fetch(path, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body(method),
        })
        expect(response.status, `${JSON.stringify(vars)}: ${method} ${path}`).toBe(500)
        const text = await response.text()
        const { error } = JSON.parse(text) as {
          error: { kind?: string; type?: string; message: string }
        }
        // Each route in its own shape: OpenAI's on /v1/chat/completions, the relay's elsewhere.
        if (path === '/v1/chat/completions') expect(error.type).toBe('server_error')
        else expect(error.kind).toBe('server')
        expect(error.message).toMatch(message)
        for (const value of Object.values(vars)) {
          if (value.length > 8) expect(text).not.toContain(value)
        }
      }
      expect(worker.logs().join('\n')).not.toContain(TOKEN)
    }
  })
})
