import * as Anthropic from '@anthropic-ai/sdk'
import * as OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { nodeFetchTimeout, sdkTransportError } from '../../src/kit/index.ts'

/**
 * The errors Node's fetch (undici) fails with when its own limits run out, as Node 20 makes
 * them: `fetch()` rejects with `TypeError('fetch failed')` and reading a body throws
 * `TypeError('terminated')`, each with undici's error as `cause`.
 */
function nodeFetchError(code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT'): TypeError {
  const headers = code === 'UND_ERR_HEADERS_TIMEOUT'
  const cause = Object.assign(new Error(headers ? 'Headers Timeout Error' : 'Body Timeout Error'), {
    name: headers ? 'HeadersTimeoutError' : 'BodyTimeoutError',
    code,
  })
  return new TypeError(headers ? 'fetch failed' : 'terminated', { cause })
}

describe('nodeFetchTimeout', () => {
  it('makes a retryable timeout of Node giving up on the response headers, and says how to wait longer', () => {
    const error = nodeFetchError('UND_ERR_HEADERS_TIMEOUT')
    const mapped = nodeFetchTimeout(error, 'acme')
    expect(mapped).toMatchObject({ kind: 'timeout', retryable: true, provider: 'acme' })
    expect(mapped?.cause).toBe(error)
    expect(mapped?.message).toContain('acme: ')
    expect(mapped?.message).toContain('the response headers')
    expect(mapped?.message).toContain('`fetch`')
    expect(mapped?.message).toContain('headersTimeout: 0, bodyTimeout: 0')
  })

  it('makes a timeout of Node giving up between two parts of the body', () => {
    const mapped = nodeFetchTimeout(nodeFetchError('UND_ERR_BODY_TIMEOUT'), 'acme')
    expect(mapped).toMatchObject({ kind: 'timeout', retryable: true })
    expect(mapped?.message).toContain('the next part of the body')
  })

  it('finds the timeout under an SDK error that wraps the failed fetch', () => {
    const wrapped = new Error('Connection error.', {
      cause: nodeFetchError('UND_ERR_HEADERS_TIMEOUT'),
    })
    expect(nodeFetchTimeout(wrapped, 'acme')).toMatchObject({ kind: 'timeout' })
  })

  it('leaves every other error alone, a cause chain that loops included', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    })
    const looped: Error & { cause?: unknown } = new Error('loop')
    looped.cause = looped
    const others = [refused, looped, new Error('x'), 'text', null, undefined, { code: 'toString' }]
    for (const error of others) {
      expect(nodeFetchTimeout(error, 'acme')).toBeUndefined()
    }
  })

  for (const [name, sdk] of [
    ['@anthropic-ai/sdk', Anthropic],
    ['openai', OpenAI],
  ] as const) {
    it(`is where sdkTransportError maps ${name}'s failed connection that Node's limits cut`, () => {
      const classes = {
        APIUserAbortError: sdk.APIUserAbortError,
        APIConnectionTimeoutError: sdk.APIConnectionTimeoutError,
        APIConnectionError: sdk.APIConnectionError,
      }
      // What the SDK throws when its fetch rejects: the rejection as `cause`.
      const cause = nodeFetchError('UND_ERR_HEADERS_TIMEOUT')
      const connection = new sdk.APIConnectionError({ cause })
      expect(sdkTransportError(connection, 'acme', classes)).toMatchObject({ kind: 'timeout' })
      // A body read that Node cut reaches the mapping as Node's own error.
      const body = nodeFetchError('UND_ERR_BODY_TIMEOUT')
      expect(sdkTransportError(body, 'acme', classes)).toMatchObject({ kind: 'timeout' })
    })
  }
})
