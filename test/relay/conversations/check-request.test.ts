import { describe, expect, it } from 'vitest'
import { checkConversationRequest } from '../../../src/relay/conversations/check-request.ts'
import { refuseRequest } from '../../../src/relay/create-relay.ts'
import { memoryRateLimiter } from '../../../src/relay/rate-limit.ts'
import { errorBody } from '../helpers.ts'

const ID = 'AbCdEfGhIjKlMnOpQrStUv'

function request(method: string, path: string, body?: string, type = 'application/json') {
  return new Request(`http://relay.test${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': type } }),
  })
}

describe('checkConversationRequest', () => {
  it('names the operation, the conversation and the body of every route', async () => {
    const check = (method: string, path: string, body?: string) =>
      checkConversationRequest(request(method, path, body), 'client-1')
    expect(await check('GET', '/v1/conversations')).toEqual({
      ok: true,
      op: 'list',
      id: undefined,
      body: undefined,
    })
    expect(await check('GET', `/v1/conversations/${ID}/stream`)).toEqual({
      ok: true,
      op: 'stream',
      id: ID,
      body: undefined,
    })
    expect(await check('POST', `/v1/conversations/${ID}/messages`, '{"model":"m"}')).toEqual({
      ok: true,
      op: 'messages',
      id: ID,
      body: '{"model":"m"}',
    })
    const approval = 'y'.repeat(43)
    expect(
      await check('POST', `/v1/conversations/${ID}/approvals/${approval}`, '{"approve":true}'),
    ).toEqual({
      ok: true,
      op: 'approve',
      id: ID,
      approvalId: approval,
      body: '{"approve":true}',
    })
    // A create makes the id: 128 random bits, and its body may be left out.
    const created = await check('POST', '/v1/conversations')
    expect(created).toMatchObject({ ok: true, op: 'create', body: '{}' })
    expect(created.ok && created.id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(await check('POST', '/v1/conversations', '{"system":"Be brief."}')).toMatchObject({
      op: 'create',
      body: '{"system":"Be brief."}',
    })
  })

  it('refuses an id that cannot be one with a 404, and a method with a 405 naming those taken', async () => {
    const missing = await checkConversationRequest(request('GET', '/v1/conversations/abc'), 'c')
    expect(missing.ok || missing.response.status).toBe(404)
    expect(missing.ok || (await errorBody(missing.response))).toEqual({
      kind: 'invalid-request',
      message: 'no such conversation',
    })
    const wrong = await checkConversationRequest(
      request('POST', `/v1/conversations/${ID}/stream`),
      'c',
    )
    expect(wrong.ok || wrong.response.status).toBe(405)
    expect(wrong.ok || wrong.response.headers.get('allow')).toBe('GET, OPTIONS')
  })

  it('refuses a body that is not JSON or over the limit, as /v1/chat does', async () => {
    const path = `/v1/conversations/${ID}/messages`
    const text = await checkConversationRequest(request('POST', path, 'hi', 'text/plain'), 'c')
    expect(text.ok || text.response.status).toBe(415)
    const large = await checkConversationRequest(
      request('POST', path, `"${'x'.repeat(64)}"`),
      'c',
      {
        limits: { bodyBytes: 32 },
      },
    )
    expect(large.ok || large.response.status).toBe(413)
  })

  it('counts a create, a read, a decision and a refused body against the client rate; a list or a stream not', async () => {
    const count = async (method: string, path: string, body?: string) => {
      const limiter = memoryRateLimiter({ requestsPerMinute: 1 }, () => 0)
      await limiter.check('c', { tokens: 0 })
      const checked = await checkConversationRequest(request(method, path, body), 'c', {
        rateLimiter: limiter,
      })
      return checked.ok ? 'admitted' : checked.response.status
    }
    expect(await count('POST', '/v1/conversations')).toBe(429)
    expect(await count('GET', `/v1/conversations/${ID}`)).toBe(429)
    // A decision on an approval counts, as the work it lets go on does.
    const approval = `/v1/conversations/${ID}/approvals/${'z'.repeat(43)}`
    expect(await count('POST', approval, '{"approve":true}')).toBe(429)
    expect(await count('POST', `/v1/conversations/${ID}/messages`, 'not json')).toBe(429)
    expect(await count('GET', '/v1/conversations')).toBe('admitted')
    expect(await count('GET', `/v1/conversations/${ID}/stream`)).toBe('admitted')
    // A message is counted by the host with its cost, not here.
    expect(await count('POST', `/v1/conversations/${ID}/messages`, '{}')).toBe('admitted')
  })
})

describe('refuseRequest', () => {
  it("answers in the error shape of the request's route, once its body is dropped", async () => {
    const chat = await refuseRequest(request('POST', '/v1/chat', '{}'), 500, 'server', 'X is wrong')
    expect(chat.status).toBe(500)
    expect(await errorBody(chat)).toEqual({ kind: 'server', message: 'X is wrong' })
    const sent = request('POST', '/v1/chat/completions', '{"model":"m"}')
    const completions = await refuseRequest(sent, 500, 'server', 'X is wrong')
    expect(sent.bodyUsed).toBe(true)
    const { error } = (await completions.json()) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ message: 'X is wrong', type: 'server_error' })
  })
})
