import { describe, expect, it } from 'vitest'
import { createRelay } from '../../../src/relay/create-relay.ts'
import type { RelayLogEntry } from '../../../src/relay/options.ts'
import { errorBody, offline } from '../helpers.ts'

const TOKEN = 'token-conversations-0123'
const ORIGIN = 'https://app.example'

function request(path: string, init: RequestInit = {}) {
  return new Request(`http://relay.test${path}`, init)
}

describe('the conversations hook of createRelay', () => {
  it('answers 404 in the relay error shape when no hook is given', async () => {
    const relay = createRelay({ providers: offline })
    for (const path of ['/v1/conversations', '/v1/conversations/abc/stream']) {
      const response = await relay.fetch(request(path))
      expect(response.status).toBe(404)
      expect(await errorBody(response)).toMatchObject({ kind: 'invalid-request' })
    }
  })

  it('hands every path under /v1/conversations to the hook after auth, with the client id', async () => {
    const seen: { path: string; clientId: string }[] = []
    const log: RelayLogEntry[] = []
    const relay = createRelay({
      providers: offline,
      auth: [TOKEN],
      cors: { origins: [ORIGIN] },
      log: (entry) => log.push(entry),
      conversations: async (hooked, clientId) => {
        seen.push({ path: new URL(hooked.url).pathname, clientId })
        return Response.json({ ok: true }, { status: 201 })
      },
    })
    const refused = await relay.fetch(request('/v1/conversations', { method: 'POST' }))
    expect(refused.status).toBe(401)
    const foreign = await relay.fetch(
      request('/v1/conversations', { headers: { origin: 'https://evil.example' } }),
    )
    expect(foreign.status).toBe(403)
    expect(seen).toEqual([])

    const headers = { authorization: `Bearer ${TOKEN}`, origin: ORIGIN }
    const created = await relay.fetch(request('/v1/conversations', { method: 'POST', headers }))
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    await relay.fetch(
      request('/v1/conversations/AbCdEfGhIjKlMnOpQrStUv/stop', { method: 'POST', headers }),
    )
    expect(seen.map((s) => s.path)).toEqual([
      '/v1/conversations',
      '/v1/conversations/AbCdEfGhIjKlMnOpQrStUv/stop',
    ])
    expect(seen[0]!.clientId).toMatch(/^token:[0-9a-f]{16}$/)
    expect(seen[1]!.clientId).toBe(seen[0]!.clientId)
    // The log names the route, never the conversation's id.
    expect(log.slice(-2).map((entry) => [entry.path, entry.status])).toEqual([
      ['/v1/conversations', 201],
      ['/v1/conversations', 201],
    ])
    expect(JSON.stringify(log)).not.toContain('AbCdEfGhIjKlMnOpQrStUv')
  })

  it('answers a preflight for a conversation route without calling the hook', async () => {
    let calls = 0
    const relay = createRelay({
      cors: { origins: [ORIGIN] },
      conversations: async () => {
        calls++
        return new Response(null, { status: 204 })
      },
    })
    const response = await relay.fetch(
      request('/v1/conversations/AbCdEfGhIjKlMnOpQrStUv', {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH' },
      }),
    )
    expect(response.status).toBe(204)
    expect(response.headers.get('allow')).toBe('GET, POST, PATCH, DELETE, OPTIONS')
    expect(response.headers.get('access-control-allow-methods')).toBe(
      'GET, POST, PATCH, DELETE, OPTIONS',
    )
    expect(calls).toBe(0)
  })
})
