// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { relayConversation } from '../../src/client/index.ts'
import type { WireApproval } from '../../src/core/wire.ts'
import { useConversation } from '../../src/react/index.ts'
import { eventually } from '../helpers/eventually.ts'

afterEach(cleanup)

const ID = 'c-0123456789abcdef0123'
const APPROVAL: WireApproval = {
  approvalId: 'B'.repeat(43),
  callId: 'call-1',
  name: 'save_note',
  input: { text: 'buy milk' },
  expiresAt: '2026-12-07T19:00:00.000Z',
}
const ASKS = {
  role: 'assistant',
  text: '',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'tool-calls',
  toolCalls: [{ id: 'call-1', name: 'save_note', input: { text: 'buy milk' } }],
} as const

/** A relay whose conversation waits on one approval; a decision is a 202, or `refusal`'s status. */
function relayWaiting(refusal?: number) {
  const decisions: unknown[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input)).pathname
    if (path === `/v1/conversations/${ID}`) {
      const turns = [{ role: 'user', content: 'save_note: buy milk' }, ASKS]
      const pending = { approvals: [APPROVAL], calls: [] }
      return Response.json({
        id: ID,
        conversation: { turns },
        streaming: false,
        lastEventId: 3,
        pending,
      })
    }
    if (path.endsWith('/stream')) return new Response(null, { status: 204 })
    decisions.push(JSON.parse(String(init?.body)))
    if (refusal !== undefined) {
      const error = {
        kind: 'invalid-request',
        message: 'this approval was decided already (denied)',
      }
      return Response.json({ error }, { status: refusal })
    }
    return Response.json({ approvalId: APPROVAL.approvalId, approve: true }, { status: 202 })
  }
  return { fetch, decisions }
}

describe('useConversation on a conversation whose loop waits on an approval', () => {
  it('lists it, and denies it with a reason', async () => {
    const relay = relayWaiting()
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      id: ID,
      fetch: relay.fetch,
    })
    const { result } = renderHook(() => useConversation(store))
    await act(() => store.load())
    expect(result.current.pending).toEqual({ approvals: [APPROVAL], calls: [] })
    await act(async () => result.current.deny(APPROVAL.approvalId, 'not now'))
    expect(relay.decisions).toEqual([{ approve: false, reason: 'not now' }])
    store.dispose()
  })

  it('shows a refusal as its error, with the approval gone', async () => {
    const relay = relayWaiting(409)
    const store = relayConversation({
      url: 'http://relay.test',
      model: 'mock/echo',
      id: ID,
      fetch: relay.fetch,
    })
    const { result } = renderHook(() => useConversation(store))
    await act(() => store.load())
    await act(async () => result.current.approve(APPROVAL.approvalId))
    await eventually(() => result.current.status === 'error', 'the refusal shows')
    expect(result.current.error?.message).toBe('this approval was decided already (denied)')
    expect(result.current.pending?.approvals).toEqual([])
    store.dispose()
  })
})
