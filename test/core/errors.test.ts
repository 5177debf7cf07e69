import { describe, expect, it, vi } from 'vitest'
import { ThinkwireError, isThinkwireError, toThinkwireError } from '../../src/core/errors.ts'
import { kindFromStatus, retryAfterMsFromHeaders } from '../../src/kit/http-error.ts'

describe('ThinkwireError', () => {
  it('works out retryable from the kind and keeps status, provider and cause', () => {
    const cause = new Error('sdk')
    const error = new ThinkwireError({
      kind: 'rate-limit',
      message: 'slow down',
      status: 429,
      provider: 'x',
      retryAfterMs: 5,
      cause,
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('ThinkwireError')
    expect(error).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      status: 429,
      provider: 'x',
      retryAfterMs: 5,
    })
    expect(error.cause).toBe(cause)
    // A cause given as undefined (as providerError and abortedError pass one) sets none.
    expect('cause' in new ThinkwireError({ kind: 'server', message: 'x', cause: undefined })).toBe(
      false,
    )
    expect(new ThinkwireError({ kind: 'auth', message: 'no' }).retryable).toBe(false)
    expect(new ThinkwireError({ kind: 'auth', message: 'no', retryable: true }).retryable).toBe(
      true,
    )
  })

  it('is recognised across two bundled copies of the module', async () => {
    vi.resetModules()
    // A query string makes the module loader evaluate a second, independent copy of the module.
    const path = '../../src/core/errors.ts?copy'
    const copy = (await import(
      /* @vite-ignore */ path
    )) as typeof import('../../src/core/errors.ts')
    const foreign = new copy.ThinkwireError({ kind: 'server', message: 'x' })
    expect(foreign instanceof ThinkwireError).toBe(false)
    expect(isThinkwireError(foreign)).toBe(true)
    expect(ThinkwireError.isInstance(foreign)).toBe(true)
    expect(isThinkwireError(new Error('x'))).toBe(false)
    expect(isThinkwireError(null)).toBe(false)
  })
})

describe('error helpers', () => {
  it('maps HTTP statuses to kinds', () => {
    const table: [number, string][] = [
      [400, 'invalid-request'],
      [401, 'auth'],
      [403, 'auth'],
      [404, 'invalid-request'],
      [408, 'timeout'],
      [413, 'invalid-request'],
      [429, 'rate-limit'],
      [500, 'server'],
      [502, 'server'],
      [503, 'overloaded'],
      [529, 'overloaded'],
    ]
    for (const [status, kind] of table)
      expect([status, kindFromStatus(status)]).toEqual([status, kind])
  })

  it('reads retry-after as seconds, as an HTTP date, and retry-after-ms first', () => {
    const h = (init: Record<string, string>) => new Headers(init)
    expect(retryAfterMsFromHeaders(h({ 'retry-after': '7' }))).toBe(7000)
    expect(retryAfterMsFromHeaders(h({ 'retry-after-ms': '250', 'retry-after': '7' }))).toBe(250)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(
      retryAfterMsFromHeaders(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now),
    ).toBe(3000)
    expect(retryAfterMsFromHeaders(h({ 'retry-after': 'soon' }))).toBeUndefined()
    expect(retryAfterMsFromHeaders(h({}))).toBeUndefined()
  })

  it('wraps unknown failures: abort, failed fetch, anything else', () => {
    const abort = new DOMException('aborted', 'AbortError')
    expect(toThinkwireError(abort, 'p').kind).toBe('aborted')
    expect(toThinkwireError(new TypeError('fetch failed'), 'p').kind).toBe('network')
    expect(toThinkwireError('boom', 'p')).toMatchObject({ kind: 'server', message: 'p: boom' })
    const own = new ThinkwireError({ kind: 'auth', message: 'x' })
    expect(toThinkwireError(own, 'p')).toBe(own)
  })
})
