import type { OpaqueItems } from '../core/conversation.ts'

/** Signs and checks the opaque items of assistant turns that cross an untrusted client. */
export type Sealer = {
  /** The seal of `items` (its tag and data), made with the first key. */
  seal(items: OpaqueItems): Promise<string>
  /** True when `items.seal` was made over exactly these items by any of the keys. */
  verify(items: OpaqueItems): Promise<boolean>
}

const utf8 = new TextEncoder()

/**
 * Creates a sealer: HMAC-SHA-256 (WebCrypto) over the canonical JSON of the items' tag and data,
 * as base64url. The first key signs and every key verifies, so keys rotate by putting the new one
 * first and dropping the old one once no turn signed with it can come back.
 */
export function createSealer(secrets: readonly string[]): Sealer {
  if (secrets.length === 0 || secrets.some((secret) => secret === '')) {
    throw new TypeError('sealKeys must be a non-empty list of non-empty strings')
  }
  let keys: Promise<CryptoKey[]> | undefined
  const load = () =>
    (keys ??= Promise.all(
      secrets.map((secret) =>
        crypto.subtle.importKey(
          'raw',
          utf8.encode(secret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['sign', 'verify'],
        ),
      ),
    ))
  return {
    async seal(items) {
      const [key] = await load()
      const mac = await crypto.subtle.sign('HMAC', key!, sealedBytes(items))
      return toBase64Url(new Uint8Array(mac))
    },
    async verify(items) {
      if (typeof items.seal !== 'string') return false
      const mac = fromBase64Url(items.seal)
      if (mac === undefined) return false
      const bytes = sealedBytes(items)
      for (const key of await load()) {
        // verify() compares in constant time.
        if (await crypto.subtle.verify('HMAC', key, mac, bytes)) return true
      }
      return false
    },
  }
}

// The return type is inferred: DOM and Workers type `TextEncoder.encode` and `BufferSource` apart.
function sealedBytes(items: OpaqueItems) {
  const { provider, model, thinkingMode, data } = items
  return utf8.encode(canonicalJson({ provider, model, thinkingMode, data }))
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

function toBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(text)) return undefined
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/')
  try {
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}
