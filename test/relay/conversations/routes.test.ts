import { describe, expect, it } from 'vitest'
import {
  matchConversationRoute,
  newConversationId,
} from '../../../src/relay/conversations/routes.ts'

const ID = 'AbCdEfGhIjKlMnOpQrStUv'

describe('conversation routes', () => {
  it('matches every route of DESIGN §9 to its operation', () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/conversations', 'list'],
      ['POST', '/v1/conversations', 'create'],
      ['GET', `/v1/conversations/${ID}`, 'get'],
      ['DELETE', `/v1/conversations/${ID}`, 'delete'],
      ['POST', `/v1/conversations/${ID}/messages`, 'messages'],
      ['POST', `/v1/conversations/${ID}/regenerate`, 'regenerate'],
      ['GET', `/v1/conversations/${ID}/stream`, 'stream'],
      ['POST', `/v1/conversations/${ID}/stop`, 'stop'],
    ]
    for (const [method, path, op] of cases) {
      expect(matchConversationRoute(method, path), `${method} ${path}`).toMatchObject({
        ok: true,
        op,
      })
    }
    expect(matchConversationRoute('GET', `/v1/conversations/${ID}`)).toMatchObject({ id: ID })
  })

  it('matches the branches, queue, titles, export and delete-all routes of DESIGN §14', () => {
    const cases: [string, string, string][] = [
      ['POST', `/v1/conversations/${ID}/edit`, 'edit'],
      ['POST', `/v1/conversations/${ID}/branch`, 'branch'],
      ['PATCH', `/v1/conversations/${ID}`, 'rename'],
      ['DELETE', `/v1/conversations/${ID}/queue`, 'clear-queue'],
      ['DELETE', '/v1/conversations', 'delete-all'],
    ]
    for (const [method, path, op] of cases) {
      expect(matchConversationRoute(method, path), `${method} ${path}`).toEqual({
        ok: true,
        op,
        id: path === '/v1/conversations' ? undefined : ID,
      })
    }
    const exported = new URLSearchParams('export=true')
    expect(matchConversationRoute('GET', '/v1/conversations', exported)).toMatchObject({
      op: 'export',
    })
    const other = new URLSearchParams('export=yes')
    expect(matchConversationRoute('GET', '/v1/conversations', other)).toMatchObject({ op: 'list' })
    expect(matchConversationRoute('GET', `/v1/conversations/${ID}/queue`)).toEqual({
      ok: false,
      status: 405,
      allow: 'DELETE, OPTIONS',
    })
    expect(matchConversationRoute('PUT', '/v1/conversations')).toEqual({
      ok: false,
      status: 405,
      allow: 'GET, POST, DELETE, OPTIONS',
    })
  })

  it('answers 404 for a malformed id or an unknown route, and 405 with allow for a method', () => {
    expect(matchConversationRoute('GET', '/v1/conversations/short')).toEqual({
      ok: false,
      status: 404,
    })
    expect(matchConversationRoute('GET', `/v1/conversations/${ID}/other`)).toEqual({
      ok: false,
      status: 404,
    })
    expect(matchConversationRoute('GET', `/v1/conversations/${ID}/stop`)).toEqual({
      ok: false,
      status: 405,
      allow: 'POST, OPTIONS',
    })
    expect(matchConversationRoute('PUT', `/v1/conversations/${ID}`)).toMatchObject({
      status: 405,
      allow: 'GET, DELETE, PATCH, OPTIONS',
    })
  })

  it('answers 405 for a method named like a member of every object', () => {
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(matchConversationRoute(method, `/v1/conversations/${ID}`), method).toEqual({
        ok: false,
        status: 405,
        allow: 'GET, DELETE, PATCH, OPTIONS',
      })
    }
  })

  it('matches a decision on an approval, with its id, and only there', () => {
    const approval = 'x'.repeat(43)
    expect(matchConversationRoute('POST', `/v1/conversations/${ID}/approvals/${approval}`)).toEqual(
      { ok: true, op: 'approve', id: ID, approvalId: approval },
    )
    expect(matchConversationRoute('GET', `/v1/conversations/${ID}/approvals/${approval}`)).toEqual({
      ok: false,
      status: 405,
      allow: 'POST, OPTIONS',
    })
    for (const path of [
      `/v1/conversations/${ID}/approvals`,
      `/v1/conversations/${ID}/stop/${approval}`,
      `/v1/conversations/${ID}/approvals/${'x'.repeat(65)}`,
      `/v1/conversations/${ID}/approvals/a.b`,
    ]) {
      expect(matchConversationRoute('POST', path), path).toEqual({ ok: false, status: 404 })
    }
  })

  it('draws ids of 128 random bits that its own routes accept', () => {
    const ids = new Set(Array.from({ length: 1000 }, newConversationId))
    expect(ids.size).toBe(1000)
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(matchConversationRoute('GET', `/v1/conversations/${id}`)).toMatchObject({ ok: true })
    }
  })
})
