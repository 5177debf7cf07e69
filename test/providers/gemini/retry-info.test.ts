import { describe, expect, it } from 'vitest'
import { withRetryInfo } from '../../../src/providers/gemini/retry-info.ts'

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo'
const proxy = new Headers({ 'retry-after': '9' })

describe('withRetryInfo', () => {
  it("gives RetryInfo's delay as retry-after-ms, ahead of the response's own headers", () => {
    const body = { details: [{ '@type': RETRY_INFO, retryDelay: '34.4s' }] }
    const headers = withRetryInfo(body, proxy)
    expect(headers?.get('retry-after-ms')).toBe('34400')
    expect(headers?.get('retry-after')).toBeNull()
  })

  it('reads the delay written retry_delay, as the Interactions API may write it', () => {
    const body = { details: ['not a detail', { '@type': RETRY_INFO, retry_delay: ' 7s ' }] }
    expect(withRetryInfo(body, undefined)?.get('retry-after-ms')).toBe('7000')
  })

  it("keeps the response's headers when no detail is a usable RetryInfo", () => {
    const bodies = [
      undefined,
      { details: 'none' },
      { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', retryDelay: '5s' }] },
      { details: [{ '@type': RETRY_INFO, retryDelay: 'soon' }] },
      { details: [{ '@type': RETRY_INFO, retryDelay: 5 }] },
    ]
    for (const body of bodies) expect(withRetryInfo(body, proxy)).toBe(proxy)
    expect(withRetryInfo(undefined, undefined)).toBeUndefined()
  })
})
