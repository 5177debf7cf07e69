import type { AssistantTurn, OpaqueItems } from '../core/conversation.ts'
import { fromBase64Url, toBase64Url } from './base64url.ts'

/** What a turn's seal says about it. */
export type SealCheck =
  /** Made by one of the keys over exactly this turn. */
  | 'valid'
  /** No seal, or one made by a key the relay no longer holds (or before seals covered the turn). */
  | 'unsealed'
  /** Made by one of the keys, over something else: the turn was changed. */
  | 'tampered'

/** Signs and checks the assistant turns that cross an untrusted client. */
export type Sealer = {
  /** The seal of `turn` (its text, thinking, tool calls, items and their tag), made with the first key. */
  seal(turn: AssistantTurn): Promise<string>
  /** Whether `turn.items.seal` was made by one of the keys over exactly this turn. */
  check(turn: AssistantTurn): Promise<SealCheck>
}

/** Shortest seal key taken: an HMAC key is only as strong as its secret. */
export const MIN_SEAL_KEY_LENGTH = 32

const utf8 = new TextEncoder()
/** Seals made by this version start with it: the format and what it covers are fixed by it. */
const VERSION = 's1'
const SEAL = /^s1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{43})$/

type Key = { id: string; key: CryptoKey }

/**
 * Creates a sealer: HMAC-SHA-256 (WebCrypto) over one canonical encoding of the whole assistant
 * turn as the relay sent it (text, thinking, tool calls, and the items with their tag), so items
 * cannot travel next to text they were not produced with. A seal reads `s1.<key id>.<mac>`: the
 * key id (an HMAC of a fixed label, never the key) tells a seal of a retired key (`unsealed`)
 * from a turn that was changed under a current key (`tampered`). The first key signs and every
 * key verifies, so keys rotate by putting the new one first and dropping the old one later.
 */
export function createSealer(secrets: readonly string[]): Sealer {
  if (secrets.length === 0 || secrets.some((secret) => secret.length < MIN_SEAL_KEY_LENGTH)) {
    throw new TypeError(
      `sealKeys must be a non-empty list of secrets of at least ${MIN_SEAL_KEY_LENGTH} characters`,
    )
  }
  let keys: Promise<Key[]> | undefined
  const load = () => (keys ??= Promise.all(secrets.map(importKey)))
  return {
    async seal(turn) {
      const [first] = await load()
      const mac = await crypto.subtle.sign('HMAC', first!.key, sealedBytes(turn))
      return `${VERSION}.${first!.id}.${toBase64Url(new Uint8Array(mac))}`
    },
    async check(turn) {
      const seal = turn.items?.seal
      const match = typeof seal === 'string' ? SEAL.exec(seal) : null
      if (match === null) return 'unsealed'
      const key = (await load()).find((candidate) => candidate.id === match[1])
      if (key === undefined) return 'unsealed'
      const mac = fromBase64Url(match[2]!)
      // verify() compares in constant time.
      const ok =
        mac !== undefined && (await crypto.subtle.verify('HMAC', key.key, mac, sealedBytes(turn)))
      return ok ? 'valid' : 'tampered'
    },
  }
}

async function importKey(secret: string): Promise<Key> {
  const key = await crypto.subtle.importKey(
    'raw',
    utf8.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )
  const label = await crypto.subtle.sign('HMAC', key, utf8.encode('thinkwire seal key id'))
  return { id: toBase64Url(new Uint8Array(label).subarray(0, 6)), key }
}

// The return type is inferred: DOM and Workers type `TextEncoder.encode` and `BufferSource` apart.
function sealedBytes(turn: AssistantTurn) {
  const { text, thinking, toolCalls } = turn
  const items: Partial<OpaqueItems> = turn.items ?? {}
  const { provider, model, thinkingMode, data } = items
  const covered = { text, thinking, toolCalls, items: { provider, model, thinkingMode, data } }
  return utf8.encode(`${VERSION}\n${canonicalJson(covered)}`)
}

/**
 * JSON with object keys sorted and no whitespace, so equal values give equal text however their
 * keys were ordered. Takes JSON values (what `JSON.parse` returns); `undefined` members are left
 * out as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ','
      out += canonicalJson(value[i])
    }
    return `${out}]`
  }
  const record = value as Record<string, unknown>
  let out = '{'
  for (const key of Object.keys(record).toSorted()) {
    const member = record[key]
    if (member === undefined) continue
    if (out.length > 1) out += ','
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`
  }
  return `${out}}`
}
