import { fromBase64Url, toBase64Url } from '../base64url.ts'
import { canonicalJson } from '../seal.ts'

/** What an approval id is bound to: one call of one tool step of one conversation, and its input. */
export type ApprovalSubject = {
  conversationId: string
  /** The conversation's tool step that made the call (see `ConversationMeta.toolSteps`). */
  step: number
  callId: string
  name: string
  input: unknown
}

/** Makes and checks approval ids. */
export type ApprovalSigner = {
  /** The id of `subject`, made with the first key. */
  sign(subject: ApprovalSubject): Promise<string>
  /** Whether `id` was made by one of the keys for exactly `subject`. */
  verify(id: string, subject: ApprovalSubject): Promise<boolean>
}

/** An approval id: an HMAC-SHA-256, as 43 base64url characters. */
export const APPROVAL_ID = /^[A-Za-z0-9_-]{43}$/

const utf8 = new TextEncoder()
/** Ids made by this version start their MAC input with it: what they cover is fixed by it. */
const LABEL = 'thinkwire approval v1'

/**
 * Approval ids (DESIGN §13): HMAC-SHA-256 (WebCrypto) over the conversation's id, the tool step,
 * the call's id, the tool's name and the SHA-256 of the call's canonical input (keys sorted), so
 * an id approves exactly one call with exactly that input, and nothing a client holds makes one.
 * The first key signs and every key verifies, so keys rotate as seal keys do (new one first).
 */
export function createApprovalSigner(secrets: readonly string[]): ApprovalSigner {
  if (secrets.length === 0) throw new TypeError('an approval signer needs at least one key')
  let keys: Promise<CryptoKey[]> | undefined
  const load = () => (keys ??= Promise.all(secrets.map(importKey)))
  return {
    async sign(subject) {
      const [first] = await load()
      const mac = await crypto.subtle.sign('HMAC', first!, await signedBytes(subject))
      return toBase64Url(new Uint8Array(mac))
    },
    async verify(id, subject) {
      const mac = APPROVAL_ID.test(id) ? fromBase64Url(id) : undefined
      if (mac === undefined) return false
      const bytes = await signedBytes(subject)
      for (const key of await load()) {
        // verify() compares in constant time.
        if (await crypto.subtle.verify('HMAC', key, mac, bytes)) return true
      }
      return false
    },
  }
}

/** A new random key for a conversation's own approval ids: 256 bits, base64url. */
export function newApprovalKey(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)))
}

function importKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    'raw',
    utf8.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )
}

async function signedBytes(subject: ApprovalSubject) {
  const { conversationId, step, callId, name, input } = subject
  const digest = await crypto.subtle.digest('SHA-256', utf8.encode(canonicalJson(input ?? null)))
  const inputHash = toBase64Url(new Uint8Array(digest))
  return utf8.encode(`${LABEL}\n${canonicalJson([conversationId, step, callId, name, inputHash])}`)
}
