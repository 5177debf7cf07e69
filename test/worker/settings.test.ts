import { describe, expect, it } from 'vitest'
import type { RelayAuth } from '../../src/relay/auth.ts'
import { CLOSED_MESSAGE, readAuthSettings, workerAuth } from '../../worker/client-auth.ts'
import { readRelaySettings } from '../../worker/relay-settings.ts'
import {
  addressClientId,
  dollars,
  flag,
  keySecret,
  list,
  modelsSetting,
  secret,
  secrets,
} from '../../worker/settings.ts'

/** The message of what `run` throws, after checking that it is a TypeError. */
function typeErrorOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError)
    return (error as TypeError).message
  }
  throw new Error('expected a TypeError')
}

const SEAL = { minLength: 32 }
const TOKEN = { minLength: 16, spaces: false }

describe('secrets', () => {
  it('splits on commas only, trims each entry and drops empty ones', () => {
    const env = {
      SEAL_KEYS:
        ' correct horse battery staple and more words , , second-key-0123456789abcdef012345,',
    }
    expect(secrets(env, 'SEAL_KEYS', SEAL)).toEqual([
      'correct horse battery staple and more words',
      'second-key-0123456789abcdef012345',
    ])
  })

  it('is empty when the setting is unset, empty or only separators', () => {
    expect(secrets({}, 'SEAL_KEYS', SEAL)).toEqual([])
    expect(secrets({ SEAL_KEYS: '' }, 'SEAL_KEYS', SEAL)).toEqual([])
    expect(secrets({ SEAL_KEYS: ' , ,' }, 'SEAL_KEYS', SEAL)).toEqual([])
  })

  it('refuses a seal key shorter than 32 characters by the setting and position, never the value', () => {
    const short = 'only-thirty-one-characters-long'
    expect(short).toHaveLength(31)
    const env = { SEAL_KEYS: `${'k'.repeat(32)},${short}` }
    const message = typeErrorOf(() => secrets(env, 'SEAL_KEYS', SEAL))
    expect(message).toBe(
      'SEAL_KEYS entry 2 is shorter than 32 characters: use a long random secret',
    )
    expect(message).not.toContain(short)
  })

  it('refuses a token shorter than 16 characters, or one holding whitespace, naming RELAY_TOKENS', () => {
    expect(typeErrorOf(() => secrets({ RELAY_TOKENS: 'short-token' }, 'RELAY_TOKENS', TOKEN))).toBe(
      'RELAY_TOKENS entry 1 is shorter than 16 characters: use a long random secret',
    )
    const spaced = { RELAY_TOKENS: 'token-one-abcdef01,token two abcdef012' }
    const message = typeErrorOf(() => secrets(spaced, 'RELAY_TOKENS', TOKEN))
    expect(message).toBe('RELAY_TOKENS entry 2 must not contain whitespace')
    expect(message).not.toContain('token two')
    expect(secrets({ RELAY_TOKENS: 'exactly-16-chars' }, 'RELAY_TOKENS', TOKEN)).toEqual([
      'exactly-16-chars',
    ])
  })
})

describe('secret', () => {
  it('reads one secret whole, commas and spaces included, and treats an empty one as unset', () => {
    const value = 'a client id secret, with a comma, 0123'
    expect(secret({ CLIENT_ID_SECRET: ` ${value} ` }, 'CLIENT_ID_SECRET', 32)).toBe(value)
    expect(secret({ CLIENT_ID_SECRET: '  ' }, 'CLIENT_ID_SECRET', 32)).toBeUndefined()
    expect(secret({}, 'CLIENT_ID_SECRET', 32)).toBeUndefined()
  })

  it('refuses a short secret by name, never by value', () => {
    const message = typeErrorOf(() => secret({ CLIENT_ID_SECRET: 'tiny' }, 'CLIENT_ID_SECRET', 32))
    expect(message).toBe('CLIENT_ID_SECRET is shorter than 32 characters: use a long random secret')
  })
})

describe('list', () => {
  it('still splits plain lists on commas and whitespace', () => {
    expect(list('https://a.example, https://b.example\nhttps://c.example')).toEqual([
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ])
  })
})

describe('addressClientId', () => {
  it('keys an IPv4 client by its whole address', () => {
    expect(addressClientId('203.0.113.7')).toBe('ip:203.0.113.7')
    expect(addressClientId('203.0.113.8')).not.toBe(addressClientId('203.0.113.7'))
  })

  it('keys two IPv6 addresses of one /64 as one client, however they are written', () => {
    const id = 'ip:2001:db8:85a3:0::/64'
    const spellings = [
      '2001:db8:85a3::8a2e:370:7334',
      '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
      '2001:DB8:85A3:0:ffff:ffff:ffff:ffff',
      '2001:db8:85a3::1',
      '2001:db8:85a3::',
      '[2001:db8:85a3::5]',
      '2001:db8:85a3::9%eth0',
      '2001:db8:85a3:0:1:2:10.0.0.1',
    ]
    for (const address of spellings) expect(addressClientId(address)).toBe(id)
  })

  it('keys IPv6 addresses of different /64 prefixes apart, also when :: hides the difference', () => {
    expect(addressClientId('2001:db8:85a3:1::1')).toBe('ip:2001:db8:85a3:1::/64')
    expect(addressClientId('2001:db8::1')).toBe('ip:2001:db8:0:0::/64')
    expect(addressClientId('2001:db8::1:0:0:1')).toBe('ip:2001:db8:0:0::/64')
    expect(addressClientId('2001:db8:0:1::')).toBe('ip:2001:db8:0:1::/64')
    expect(addressClientId('::1')).toBe('ip:0:0:0:0::/64')
  })

  it('keys an IPv4-mapped IPv6 address as the IPv4 client', () => {
    expect(addressClientId('::ffff:203.0.113.7')).toBe('ip:203.0.113.7')
    expect(addressClientId('::ffff:cb00:7107')).toBe('ip:203.0.113.7')
  })

  it('keys a request without an address as the local client, and keeps an unparsable one whole', () => {
    expect(addressClientId(null)).toBe('ip:local')
    expect(addressClientId('  ')).toBe('ip:local')
    expect(addressClientId('1:2:3:4:5:6:7:8:9')).toBe('ip:1:2:3:4:5:6:7:8:9')
    expect(addressClientId('2001:db8:::1')).toBe('ip:2001:db8:::1')
  })
})

describe('dollars', () => {
  it('reads a budget in US dollars, 0 (no limit) when unset or empty', () => {
    expect(dollars({ BUDGET_USD_PER_DAY: '25' }, 'BUDGET_USD_PER_DAY')).toBe(25)
    expect(dollars({ BUDGET_USD_PER_DAY: ' 0.50 ' }, 'BUDGET_USD_PER_DAY')).toBe(0.5)
    expect(dollars({ BUDGET_USD_PER_DAY: '' }, 'BUDGET_USD_PER_DAY')).toBe(0)
    expect(dollars({}, 'BUDGET_USD_PER_DAY')).toBe(0)
  })

  it('refuses anything but a plain amount, by the setting’s name', () => {
    for (const value of ['$5', '-1', '1e3', 'five', '5,00']) {
      expect(
        typeErrorOf(() => dollars({ BUDGET_USD_PER_MONTH: value }, 'BUDGET_USD_PER_MONTH')),
      ).toBe('BUDGET_USD_PER_MONTH must be an amount of US dollars such as 25 or 0.50')
    }
  })
})

describe('modelsSetting', () => {
  it('reads MODELS as a list, and an empty or unset one as every model', () => {
    expect(modelsSetting({ MODELS: 'mock/echo, anthropic/*' })).toEqual([
      'mock/echo',
      'anthropic/*',
    ])
    expect(modelsSetting({ MODELS: ' , ' })).toBeUndefined()
    expect(modelsSetting({})).toBeUndefined()
  })
})

describe('flag', () => {
  it('reads "true" and "false", and an unset or empty one as the fallback', () => {
    expect(flag({ ALLOW_ANONYMOUS: 'true' }, 'ALLOW_ANONYMOUS', false)).toBe(true)
    expect(flag({ ALLOW_ANONYMOUS: ' false ' }, 'ALLOW_ANONYMOUS', true)).toBe(false)
    expect(flag({ ALLOW_ANONYMOUS: '' }, 'ALLOW_ANONYMOUS', false)).toBe(false)
    expect(flag({}, 'ALLOW_ANONYMOUS', true)).toBe(true)
  })

  it('refuses anything else by name, never by value', () => {
    for (const value of ['yes', '1', 'TRUE', 'on']) {
      const message = typeErrorOf(() => flag({ ALLOW_ANONYMOUS: value }, 'ALLOW_ANONYMOUS', false))
      expect(message).toBe('ALLOW_ANONYMOUS must be "true", "false" or empty')
    }
  })
})

describe('keySecret', () => {
  const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7)

  it('reads a plain secret as text, and base64: with the key bytes in either base64 alphabet', () => {
    const plain = 'a plain client id secret of 32+ characters'
    expect(keySecret({ CLIENT_ID_SECRET: plain }, 'CLIENT_ID_SECRET', 32)).toBe(plain)
    for (const encoded of [
      Buffer.from(KEY).toString('base64url'),
      Buffer.from(KEY).toString('base64'),
    ]) {
      expect(
        keySecret({ CLIENT_ID_SECRET: ` base64:${encoded} ` }, 'CLIENT_ID_SECRET', 32),
      ).toEqual(KEY)
    }
    expect(keySecret({}, 'CLIENT_ID_SECRET', 32)).toBeUndefined()
  })

  it('refuses a base64 key that is not base64 or holds fewer than 32 bytes, by name', () => {
    expect(
      typeErrorOf(() =>
        keySecret({ CLIENT_ID_SECRET: 'base64:not base64!' }, 'CLIENT_ID_SECRET', 32),
      ),
    ).toBe("CLIENT_ID_SECRET must be base64 after 'base64:'")
    const short = `base64:${Buffer.from(KEY.slice(0, 31)).toString('base64url')}`
    expect(typeErrorOf(() => keySecret({ CLIENT_ID_SECRET: short }, 'CLIENT_ID_SECRET', 32))).toBe(
      "CLIENT_ID_SECRET must hold at least 32 bytes after 'base64:'",
    )
  })
})

const TOKEN_A = 'token-alpha-0123456789'
const SECRET_32 = 'client-id-secret-0123456789abcdef'
const request = (headers: Record<string, string> = {}) =>
  new Request('https://relay.example/v1/chat', { headers })

/** What the Worker's auth answers for a request with these headers. */
async function clientOf(auth: RelayAuth, headers: Record<string, string> = {}): Promise<unknown> {
  if (typeof auth !== 'function') throw new Error('the Worker builds an auth hook')
  return auth(request(headers))
}

describe('readRelaySettings: auth', () => {
  it('requires CLIENT_ID_SECRET with RELAY_TOKENS, naming it and how to keep the ids of a relay without one', () => {
    const message = typeErrorOf(() => readRelaySettings({ RELAY_TOKENS: TOKEN_A }))
    expect(message).toMatch(/^CLIENT_ID_SECRET is required with RELAY_TOKENS/)
    expect(message).toContain('npm run client-id-secret')
    expect(message).not.toContain(TOKEN_A)
    expect(() =>
      readRelaySettings({ RELAY_TOKENS: TOKEN_A, CLIENT_ID_SECRET: SECRET_32 }),
    ).not.toThrow()
  })

  it('requires AUTH_ISSUER and AUTH_AUDIENCE with AUTH_JWKS_URL, and the URL with either', () => {
    const jwks = 'https://id.example/.well-known/jwks.json'
    const cases: [Record<string, string>, RegExp][] = [
      [
        { AUTH_JWKS_URL: jwks, AUTH_AUDIENCE: 'relay' },
        /^AUTH_ISSUER is required with AUTH_JWKS_URL/,
      ],
      [
        { AUTH_JWKS_URL: jwks, AUTH_ISSUER: 'https://id.example/' },
        /^AUTH_AUDIENCE is required with AUTH_JWKS_URL/,
      ],
      [{ AUTH_ISSUER: 'https://id.example/' }, /^AUTH_ISSUER is set but AUTH_JWKS_URL is not/],
      [{ AUTH_AUDIENCE: 'relay' }, /^AUTH_AUDIENCE is set but AUTH_JWKS_URL is not/],
      [
        { AUTH_JWKS_URL: 'http://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' },
        /^AUTH_JWKS_URL must be an https URL \(http only on localhost\)$/,
      ],
    ]
    for (const [env, message] of cases)
      expect(typeErrorOf(() => readRelaySettings(env))).toMatch(message)
    const settings = readAuthSettings({
      AUTH_JWKS_URL: jwks,
      AUTH_ISSUER: 'https://id.example/',
      AUTH_AUDIENCE: 'relay, https://relay.example',
    })
    expect(settings.jwt).toEqual({
      jwksUrl: jwks,
      issuer: 'https://id.example/',
      audience: ['relay', 'https://relay.example'],
    })
  })

  it('refuses an ALLOW_ANONYMOUS other than "true", "false" or empty', () => {
    expect(typeErrorOf(() => readRelaySettings({ ALLOW_ANONYMOUS: 'yes' }))).toBe(
      'ALLOW_ANONYMOUS must be "true", "false" or empty',
    )
  })

  it('checks the settings only conversations read, so a bad one is seen with the rest', () => {
    expect(typeErrorOf(() => readRelaySettings({ CONVERSATION_TTL_DAYS: 'forever' }))).toBe(
      'CONVERSATION_TTL_DAYS must be a whole number of at least 0',
    )
    // An approval that expires at once could never be given.
    expect(typeErrorOf(() => readRelaySettings({ TOOL_APPROVAL_HOURS: '0' }))).toBe(
      'TOOL_APPROVAL_HOURS must be a whole number of at least 1',
    )
  })
})

describe('workerAuth', () => {
  it('closes a relay with no auth: every request is refused with a reason naming what to set', async () => {
    const settings = readRelaySettings({})
    expect(settings.open).toBe(false)
    expect(await clientOf(settings.auth, { 'cf-connecting-ip': '203.0.113.7' })).toEqual({
      refuse: CLOSED_MESSAGE,
    })
    for (const name of ['RELAY_TOKENS', 'AUTH_JWKS_URL', 'ALLOW_ANONYMOUS="true"']) {
      expect(CLOSED_MESSAGE).toContain(name)
    }
  })

  it('opens a relay with no auth by address only when ALLOW_ANONYMOUS is "true"', async () => {
    const settings = readRelaySettings({ ALLOW_ANONYMOUS: 'true' })
    expect(settings.open).toBe(true)
    expect(await clientOf(settings.auth, { 'cf-connecting-ip': '203.0.113.7' })).toBe(
      'ip:203.0.113.7',
    )
  })

  it('keeps a relay with tokens or a hook closed to others, whatever ALLOW_ANONYMOUS says', async () => {
    const tokens = readRelaySettings({
      ALLOW_ANONYMOUS: 'true',
      RELAY_TOKENS: TOKEN_A,
      CLIENT_ID_SECRET: SECRET_32,
    })
    expect(tokens.open).toBe(false)
    expect(await clientOf(tokens.auth)).toBeNull()
    expect(await clientOf(tokens.auth, { authorization: `Bearer ${TOKEN_A}` })).toMatch(
      /^token:[0-9a-f]{16}$/,
    )
    const hooked = readRelaySettings({ ALLOW_ANONYMOUS: 'true' }, { auth: () => null })
    expect(hooked.open).toBe(false)
    expect(await clientOf(hooked.auth, { 'cf-connecting-ip': '203.0.113.7' })).toBeNull()
  })

  it("admits by tokens, then a custom Worker's hook, telling the first reason given", async () => {
    const settings = readAuthSettings({ RELAY_TOKENS: TOKEN_A, CLIENT_ID_SECRET: SECRET_32 })
    const auth = workerAuth(settings, (r) =>
      r.headers.get('x-session') === 'ok' ? 'session:1' : { refuse: 'the session has ended' },
    )
    expect(await clientOf(auth, { authorization: `Bearer ${TOKEN_A}` })).toMatch(/^token:/)
    expect(await clientOf(auth, { 'x-session': 'ok' })).toBe('session:1')
    expect(await clientOf(auth)).toEqual({ refuse: 'the session has ended' })
  })

  it("adds a custom Worker's tokens to RELAY_TOKENS, under the same CLIENT_ID_SECRET rule", async () => {
    const extra = 'token-from-code-0123456789'
    const auth = workerAuth(readAuthSettings({ CLIENT_ID_SECRET: SECRET_32 }), [extra])
    expect(await clientOf(auth, { authorization: `Bearer ${extra}` })).toMatch(/^token:/)
    expect(typeErrorOf(() => workerAuth(readAuthSettings({}), [extra]))).toMatch(
      /^CLIENT_ID_SECRET is required with RELAY_TOKENS/,
    )
  })
})
