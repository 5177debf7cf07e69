import { describe, expect, it } from 'vitest'
import { withFallback } from '../../src/middleware/fallback.ts'
import { withRateLimit } from '../../src/middleware/rate-limit.ts'
import { withRetry, type RetryInfo } from '../../src/middleware/retry.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { ask, collect, doneTurn, failure, fakeClock } from './helpers.ts'

describe('stacked wrappers', () => {
  it('retries a fallback chain as a whole when every adapter failed', async () => {
    const primary = mock({ provider: 'primary', script: [{ fail: { kind: 'overloaded' } }] })
    const backup = mock({
      provider: 'backup',
      script: [{ fail: { kind: 'rate-limit', retryAfterMs: 3 } }, { text: 'second time lucky' }],
    })
    const infos: RetryInfo[] = []
    const adapter = withRetry(withFallback([primary, backup]), {
      initialDelayMs: 1,
      onRetry: (info) => infos.push(info),
    })
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.text).toBe('second time lucky')
    expect(turn.items?.provider).toBe('backup')
    expect(adapter.provider).toBe('primary')
    expect([primary.calls.length, backup.calls.length]).toEqual([2, 2])
    // The combined error keeps the last failure's kind and retry-after.
    expect(infos.map((i) => [i.error.kind, i.delayMs >= 3])).toEqual([['rate-limit', true]])
  })

  it('neither retries nor falls back after the first event, however deep the stack', async () => {
    const primary = mock({
      provider: 'primary',
      script: [{ text: 'partial answer', fail: { kind: 'server', afterEvents: 1 } }],
    })
    const backup = mock({ provider: 'backup', script: [{ text: 'ok' }] })
    const clock = fakeClock()
    const adapter = withRateLimit(
      withRetry(withFallback([primary, backup]), { initialDelayMs: 1 }),
      { requestsPerMinute: 10, ...clock },
    )
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({ kind: 'server', provider: 'primary' })
    expect([primary.calls.length, backup.calls.length]).toEqual([1, 0])
  })

  it('counts each retry against the rate limit it wraps', async () => {
    const inner = mock({ script: [{ fail: { kind: 'server' } }, { text: 'ok' }] })
    const clock = fakeClock()
    const adapter = withRetry(withRateLimit(inner, { requestsPerMinute: 1, ...clock }), {
      initialDelayMs: 1,
    })
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('ok')
    expect(clock.waits).toEqual([60_000])
    expect(inner.calls).toHaveLength(2)
  })
})
