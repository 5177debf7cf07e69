import { describe, expect, it } from 'vitest'
import {
  APPROVAL_ID,
  createApprovalSigner,
  newApprovalKey,
} from '../../../src/relay/conversations/approval-ids.ts'

const KEY = 'a'.repeat(32)
const SUBJECT = {
  conversationId: 'AAAAAAAAAAAAAAAAAAAAAA',
  step: 3,
  callId: 'call_1_0',
  name: 'save_note',
  input: { text: 'buy milk', tags: ['home', 'shop'] },
}

describe('approval ids', () => {
  it('are an HMAC of the conversation, step, call, tool and input, verified for exactly those', async () => {
    const signer = createApprovalSigner([KEY])
    const id = await signer.sign(SUBJECT)
    expect(id).toMatch(APPROVAL_ID)
    expect(await signer.sign(SUBJECT)).toBe(id)
    expect(await signer.verify(id, SUBJECT)).toBe(true)
    // The input is hashed in canonical form: the order of its keys does not matter.
    const reordered = { ...SUBJECT, input: { tags: ['home', 'shop'], text: 'buy milk' } }
    expect(await signer.verify(id, reordered)).toBe(true)
    const changes = [
      { input: { text: 'buy milk!', tags: ['home', 'shop'] } },
      { input: { text: 'buy milk', tags: ['shop', 'home'] } },
      { conversationId: 'BBBBBBBBBBBBBBBBBBBBBB' },
      { step: 4 },
      { callId: 'call_1_1' },
      { name: 'clock' },
    ]
    for (const change of changes) {
      expect(await signer.verify(id, { ...SUBJECT, ...change }), JSON.stringify(change)).toBe(false)
    }
  })

  it('are refused under another key, kept through a rotation, and never taken malformed', async () => {
    const old = createApprovalSigner([KEY])
    const id = await old.sign(SUBJECT)
    expect(await createApprovalSigner(['b'.repeat(32)]).verify(id, SUBJECT)).toBe(false)
    // The new key signs; the old one still verifies what it signed.
    const rotated = createApprovalSigner(['b'.repeat(32), KEY])
    expect(await rotated.verify(id, SUBJECT)).toBe(true)
    expect(await rotated.sign(SUBJECT)).not.toBe(id)
    for (const bad of ['', 'short', `${id}A`, `${id.slice(0, -1)}*`]) {
      expect(await old.verify(bad, SUBJECT)).toBe(false)
    }
  })

  it('makes conversation keys of 256 random bits', () => {
    const keys = new Set(Array.from({ length: 100 }, newApprovalKey))
    expect(keys.size).toBe(100)
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})
