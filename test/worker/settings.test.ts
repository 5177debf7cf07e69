import { describe, expect, it } from 'vitest'
import {
  addressClientId,
  dollars,
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
