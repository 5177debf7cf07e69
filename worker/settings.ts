import type { MemoryLimits } from 'thinkwire/relay'

/**
 * Reads the Worker's string settings (vars and secrets). Messages name the setting, never its value.
 * `env` is any object (the Worker's `Env`, or a plain one in a unit test or `npm start`'s check).
 */

/** The shortest seal key or client-id secret accepted (256 bits of a random hex or base64 string). */
export const MIN_SECRET_LENGTH = 32

/** A comma- or whitespace-separated list, without empty entries. */
export function list(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((item) => item !== '')
}

/**
 * The `MODELS` setting: the `"provider/model"` ids (or `"provider/*"`) the relay serves, or
 * undefined when it is empty or unset (every model the registry holds is served).
 */
export function modelsSetting(env: object): string[] | undefined {
  const models = list(setting(env, 'MODELS'))
  return models.length === 0 ? undefined : models
}

/** Rules for the entries of a {@link secrets} setting. */
export type SecretRules = {
  /** The shortest entry accepted. */
  minLength: number
  /** Whether an entry may hold spaces (a passphrase may; a bearer token cannot). @defaultValue true */
  spaces?: boolean | undefined
}

/**
 * A comma-separated list of secrets, each trimmed, without empty entries. Spaces inside an entry
 * stay (a passphrase is one key). An entry that breaks `rules` is refused by the setting's name
 * and its position, never its value.
 */
export function secrets(env: object, name: string, rules: SecretRules): string[] {
  const values = (setting(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  values.forEach((value, index) => {
    if (value.length < rules.minLength) {
      throw new TypeError(
        `${name} entry ${index + 1} is shorter than ${rules.minLength} characters: use a long random secret`,
      )
    }
    if (rules.spaces === false && /\s/.test(value)) {
      throw new TypeError(`${name} entry ${index + 1} must not contain whitespace`)
    }
  })
  return values
}

/** One secret, trimmed, or undefined when unset or empty; refused by name when shorter than `minLength`. */
export function secret(env: object, name: string, minLength: number): string | undefined {
  const value = setting(env, name)?.trim() ?? ''
  if (value === '') return undefined
  if (value.length < minLength) {
    throw new TypeError(`${name} is shorter than ${minLength} characters: use a long random secret`)
  }
  return value
}

/**
 * A secret HMAC key: a plain secret of at least `minLength` characters (its UTF-8 bytes are the
 * key), or `base64:` and the key bytes themselves, at least `minLength` of them (what
 * `npm run client-id-secret` prints). Undefined when unset or empty; refused by name otherwise.
 */
export function keySecret(
  env: object,
  name: string,
  minLength: number,
): string | Uint8Array | undefined {
  const value = setting(env, name)?.trim() ?? ''
  if (!value.startsWith(BASE64_PREFIX)) return secret(env, name, minLength)
  const bytes = base64Bytes(value.slice(BASE64_PREFIX.length))
  if (bytes === undefined) {
    throw new TypeError(`${name} must be base64 after '${BASE64_PREFIX}'`)
  }
  if (bytes.length < minLength) {
    throw new TypeError(`${name} must hold at least ${minLength} bytes after '${BASE64_PREFIX}'`)
  }
  return bytes
}

/** The prefix of a key given as its bytes. */
export const BASE64_PREFIX = 'base64:'

/** Bytes of standard or URL-safe base64 (padding optional), or undefined when it is not base64. */
function base64Bytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    return undefined
  }
  const standard = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/')
  const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

/** `"true"` or `"false"` (or unset or empty: `fallback`); anything else is refused by name. */
export function flag(env: object, name: string, fallback: boolean): boolean {
  const value = setting(env, name)?.trim() ?? ''
  if (value === '') return fallback
  if (value === 'true' || value === 'false') return value === 'true'
  throw new TypeError(`${name} must be "true", "false" or empty`)
}

/** A whole number of at least 0, or `fallback` when unset. */
export function count(env: object, name: string, fallback: number): number {
  const value = setting(env, name)
  if (value === undefined || value.trim() === '') return fallback
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    throw new TypeError(`${name} must be a whole number of at least 0`)
  }
  return parsed
}

/** `MAX_BODY_BYTES`, `MAX_TURNS` and `MAX_TOKENS`: what one request may send, checked. */
export function requestBounds(env: object): {
  bodyBytes: number
  turns: number
  /** Undefined: the relay's default (none). */
  maxTokens: number | undefined
} {
  const maxTokens = count(env, 'MAX_TOKENS', 0)
  return {
    bodyBytes: count(env, 'MAX_BODY_BYTES', 1024 * 1024),
    turns: count(env, 'MAX_TURNS', 1000),
    maxTokens: maxTokens > 0 ? maxTokens : undefined,
  }
}

/** `HEARTBEAT_MS` and `IDLE_TIMEOUT_MS`: a stream's heartbeat, and how long an upstream may be silent. */
export function streamTimes(env: object): { heartbeatMs: number; idleTimeoutMs: number } {
  return {
    heartbeatMs: count(env, 'HEARTBEAT_MS', 15_000),
    idleTimeoutMs: count(env, 'IDLE_TIMEOUT_MS', 60_000),
  }
}

/** How durable conversations are bounded, as `CONVERSATION_*` settings say. */
export type ConversationBounds = {
  /** Turns and bytes of stored turns in one conversation. */
  turns: number
  bytes: number
  /** Conversations one client may hold at once (0: any number). */
  perClient: number
  /** Streams of one conversation open at once, besides a message's own (0: any number). */
  readers: number
  /** Days after its last update that a conversation is deleted (0 keeps it). */
  ttlDays: number
  /** Hours a server tool's call waits for a person's approval before it is answered as not run. */
  approvalHours: number
}

/** The `CONVERSATION_*` settings, checked (a bad one throws naming it), with their defaults. */
export function conversationBounds(env: object): ConversationBounds {
  return {
    turns: count(env, 'CONVERSATION_MAX_TURNS', 1000),
    bytes: count(env, 'CONVERSATION_MAX_BYTES', 8 * 1024 * 1024),
    perClient: count(env, 'CONVERSATION_MAX_PER_CLIENT', 1000),
    readers: count(env, 'CONVERSATION_MAX_READERS', 64),
    ttlDays: count(env, 'CONVERSATION_TTL_DAYS', 90),
    approvalHours: atLeastOne(env, 'TOOL_APPROVAL_HOURS', 24),
  }
}

/** {@link count}, refusing 0 by name: a setting for which none makes no sense. */
function atLeastOne(env: object, name: string, fallback: number): number {
  const value = count(env, name, fallback)
  if (value === 0) throw new TypeError(`${name} must be a whole number of at least 1`)
  return value
}

/**
 * An amount of US dollars of at least 0 (`"25"`, `"0.50"`), or 0 when unset or empty (no limit).
 * Refused by name when it is not a plain decimal number.
 */
export function dollars(env: object, name: string): number {
  const value = setting(env, name)?.trim() ?? ''
  if (value === '') return 0
  if (!/^\d+(\.\d+)?$/.test(value)) {
    throw new TypeError(`${name} must be an amount of US dollars such as 25 or 0.50`)
  }
  return Number(value)
}

/**
 * The per-client limits the settings ask for (`RATE_LIMIT_REQUESTS_PER_MINUTE`,
 * `RATE_LIMIT_TOKENS_PER_MINUTE`, `BUDGET_USD_PER_DAY`, `BUDGET_USD_PER_MONTH`), or undefined when
 * they ask for none. The Worker (for `/v1/chat`) and each conversation's object (for its answers)
 * read the same ones.
 */
export function limitsFromEnv(env: object): MemoryLimits | undefined {
  const limits: MemoryLimits = {}
  const rpm = count(env, 'RATE_LIMIT_REQUESTS_PER_MINUTE', 0)
  const tpm = count(env, 'RATE_LIMIT_TOKENS_PER_MINUTE', 0)
  const perDay = dollars(env, 'BUDGET_USD_PER_DAY')
  const perMonth = dollars(env, 'BUDGET_USD_PER_MONTH')
  if (rpm > 0) limits.requestsPerMinute = rpm
  if (tpm > 0) limits.tokensPerMinute = tpm
  if (perDay > 0) limits.usdPerDay = perDay
  if (perMonth > 0) limits.usdPerMonth = perMonth
  return Object.keys(limits).length === 0 ? undefined : limits
}

/** A string setting by name, also one that is not declared in `Env` (e.g. `GROQ_API_KEY`). */
export function setting(env: object, name: string): string | undefined {
  const value: unknown = Reflect.get(env, name)
  return typeof value === 'string' ? value : undefined
}

/**
 * The client id of a request in no-token mode, from the address Cloudflare's edge reports: an
 * IPv4 address whole, an IPv6 address by its /64 prefix (one subscriber usually holds a whole
 * /64, so rotating within it must not buy a fresh rate-limit budget). `'ip:local'` when unknown.
 */
export function addressClientId(address: string | null): string {
  const value = address?.trim() ?? ''
  if (value === '') return 'ip:local'
  const v6 = value.includes(':') ? ipv6Groups(value) : undefined
  if (v6 === undefined) return `ip:${value.toLowerCase()}`
  // An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 client it maps.
  if (v6.slice(0, 5).every((group) => group === 0) && v6[5] === 0xffff) {
    return `ip:${v6[6]! >> 8}.${v6[6]! & 0xff}.${v6[7]! >> 8}.${v6[7]! & 0xff}`
  }
  return `ip:${v6
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a zone and a dotted tail allowed). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (dotted !== null) {
    const bytes = dotted.slice(2).map(Number)
    if (bytes.some((byte) => byte > 255)) return undefined
    const hex = (high: number, low: number) => ((high << 8) | low).toString(16)
    text = `${dotted[1]}${hex(bytes[0]!, bytes[1]!)}:${hex(bytes[2]!, bytes[3]!)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const parse = (part: string) => (part === '' ? [] : part.split(':'))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined
  return groups.map((group) => parseInt(group, 16))
}
