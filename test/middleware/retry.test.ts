import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { ThinkwireError, type ErrorKind } from '../../src/core/errors.ts'
import { backoffDelay, withRetry, type RetryInfo } from '../../src/middleware/retry.ts'
import { mock } from '../../src/providers/mock/index.ts'
import {
  ask,
  collect,
  doneTurn,
  failure,
  plainAdapter,
  rateLimited,
  someCapabilities,
  throwing,
} from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
})

describe('withRetry', () => {
  it('keeps the provider and model of the adapter it wraps', () => {
    const adapter = withRetry(mock({ provider: 'acme', model: 'm1' }))
    expect([adapter.provider, adapter.model]).toEqual(['acme', 'm1'])
  })

  it('exposes the capabilities of the adapter it wraps, and adds none when it has none', async () => {
    const adapter = withRetry(plainAdapter('acme', someCapabilities))
    expect(adapter.capabilities).toBe(someCapabilities)
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('ok')
    expect('capabilities' in withRetry(plainAdapter('acme'))).toBe(false)
  })

  it('retries a failure before the first event and then yields the whole answer once', async () => {
    const inner = mock({ script: [{ fail: { kind: 'server' } }, { thinking: 'hm', text: 'ok' }] })
    const events = await collect(withRetry(inner, { initialDelayMs: 1 }).stream(ask))
    expect(inner.calls).toHaveLength(2)
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1)
    expect(doneTurn(events).text).toBe('ok')
    expect(doneTurn(events).items?.data).toMatchObject([{ callIndex: 1 }])
  })

  it('never repeats a stream that already yielded an event', async () => {
    const inner = mock({
      chunkSize: 4,
      script: [
        { text: 'partial answer', fail: { kind: 'server', afterEvents: 1 } },
        { text: 'ok' },
      ],
    })
    const { events, error } = await failure(withRetry(inner, { initialDelayMs: 1 }).stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'part' }])
    expect(error).toMatchObject({ kind: 'server', retryable: true })
    expect(inner.calls).toHaveLength(1)
  })

  it('passes an error after the first event through untouched', async () => {
    const boom = rateLimited(1)
    const onRetry = vi.fn()
    const adapter = withRetry(throwing([{ type: 'text', text: 'a' }], boom), { onRetry })
    const { error } = await failure(adapter.stream(ask))
    expect(error).toBe(boom)
    expect(onRetry).not.toHaveBeenCalled()
  })

  it('retries a 429 after retryAfterMs and then succeeds', async () => {
    vi.useFakeTimers()
    const inner = mock({
      script: [{ fail: { kind: 'rate-limit', status: 429, retryAfterMs: 2000 } }, { text: 'ok' }],
    })
    const delays: number[] = []
    const adapter = withRetry(inner, {
      initialDelayMs: 100,
      random: () => 0.5,
      onRetry: (info) => delays.push(info.delayMs),
    })
    const run = collect(adapter.stream(ask))
    await vi.advanceTimersByTimeAsync(1999)
    expect(inner.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(doneTurn(await run).text).toBe('ok')
    expect(inner.calls).toHaveLength(2)
    expect(delays).toEqual([2000])
  })

  it('waits the jittered backoff when it is longer than retryAfterMs', async () => {
    const infos: RetryInfo[] = []
    const adapter = withRetry(throwing([], rateLimited(1)), {
      maxRetries: 1,
      initialDelayMs: 40,
      random: () => 0.5,
      onRetry: (info) => infos.push(info),
    })
    await failure(adapter.stream(ask))
    expect(infos.map((i) => i.delayMs)).toEqual([20])
  })

  it('gives up at once when retryAfterMs exceeds maxRetryAfterMs', async () => {
    const boom = rateLimited(120_000)
    const onRetry = vi.fn()
    const { error } = await failure(withRetry(throwing([], boom), { onRetry }).stream(ask))
    expect(error).toBe(boom)
    expect(onRetry).not.toHaveBeenCalled()
  })

  it('grows backoff delays by the factor, capped, with the injected jitter', async () => {
    vi.useFakeTimers()
    const inner = mock({ script: [{ fail: { kind: 'overloaded' } }] })
    const jitter = [0.5, 0.25, 0.999, 0, 0.5]
    const infos: RetryInfo[] = []
    const adapter = withRetry(inner, {
      maxRetries: 5,
      initialDelayMs: 100,
      factor: 3,
      maxDelayMs: 1000,
      random: () => jitter.shift()!,
      onRetry: (info) => infos.push(info),
    })
    const run = failure(adapter.stream(ask))
    await vi.runAllTimersAsync()
    const { error } = await run
    // Ceilings 100, 300, 900, 1000 (capped), 1000.
    expect(infos.map((i) => [i.attempt, i.delayMs])).toEqual([
      [1, 50],
      [2, 75],
      [3, 899],
      [4, 0],
      [5, 500],
    ])
    expect(inner.calls).toHaveLength(6)
    expect(error).toMatchObject({ kind: 'overloaded' })
  })

  it('sleeps for the announced delay before each retry', async () => {
    vi.useFakeTimers()
    const inner = mock({
      script: [{ fail: { kind: 'network' } }, { fail: { kind: 'network' } }, {}],
    })
    const adapter = withRetry(inner, { initialDelayMs: 1000, random: () => 0.5 })
    const run = collect(adapter.stream(ask))
    await vi.advanceTimersByTimeAsync(499)
    expect(inner.calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(inner.calls).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(999)
    expect(inner.calls).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(doneTurn(await run).stopReason).toBe('stop')
    expect(inner.calls).toHaveLength(3)
  })

  it(
    'keeps every backoff within [0, its ceiling) for any jitter',
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 20 }),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          fc.integer({ min: 1, max: 10_000 }),
          (attempt, random, initialDelayMs) => {
            const policy = { initialDelayMs, maxDelayMs: 30_000, factor: 2, random: () => random }
            const ceiling = Math.min(30_000, initialDelayMs * 2 ** (attempt - 1))
            const delay = backoffDelay(attempt, policy)
            return delay >= 0 && delay < ceiling
          },
        ),
        { numRuns: 100, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('stops after maxRetries and throws the last error', async () => {
    const inner = mock({ script: [{ fail: { kind: 'server', message: 'down' } }] })
    const { error } = await failure(
      withRetry(inner, { maxRetries: 3, initialDelayMs: 1 }).stream(ask),
    )
    expect(inner.calls).toHaveLength(4)
    expect(error).toMatchObject({ kind: 'server', message: 'down' })
  })

  it.each<ErrorKind>(['auth', 'invalid-request', 'context-length', 'content-filter'])(
    'does not retry a %s error',
    async (kind) => {
      const inner = mock({ script: [{ fail: { kind } }, { text: 'ok' }] })
      const { error } = await failure(withRetry(inner, { initialDelayMs: 1 }).stream(ask))
      expect(error).toMatchObject({ kind, retryable: false })
      expect(inner.calls).toHaveLength(1)
    },
  )

  it('never retries an aborted error, even when shouldRetry accepts it', async () => {
    const inner = mock({ script: [{ fail: { kind: 'aborted' } }, { text: 'ok' }] })
    const adapter = withRetry(inner, { initialDelayMs: 1, shouldRetry: () => true })
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(inner.calls).toHaveLength(1)
  })

  it('lets shouldRetry retry a kind that is not retryable and refuse one that is', async () => {
    const seen: [ErrorKind, number][] = []
    const adapter = (kind: ErrorKind) =>
      withRetry(mock({ script: [{ fail: { kind } }, { text: 'ok' }] }), {
        initialDelayMs: 1,
        shouldRetry: (error, attempt) => {
          seen.push([error.kind, attempt])
          return error.kind === 'content-filter'
        },
      })
    expect(doneTurn(await collect(adapter('content-filter').stream(ask))).text).toBe('ok')
    expect((await failure(adapter('server').stream(ask))).error).toMatchObject({ kind: 'server' })
    expect(seen).toEqual([
      ['content-filter', 1],
      ['server', 1],
    ])
  })

  it('does not retry an error that is not a ThinkwireError', async () => {
    const odd = new Error('not ours')
    const onRetry = vi.fn()
    const { error } = await failure(withRetry(throwing([], odd), { onRetry }).stream(ask))
    expect(error).toBe(odd)
    expect(onRetry).not.toHaveBeenCalled()
  })

  it('throws aborted at once when the signal aborts during the backoff wait', async () => {
    const inner = mock({ script: [{ fail: { kind: 'overloaded' } }, { text: 'ok' }] })
    const controller = new AbortController()
    const adapter = withRetry(inner, {
      initialDelayMs: 60_000,
      random: () => 0.99,
      // Abort a few ms into a wait of about a minute; the test would time out if it waited on.
      onRetry: () => setTimeout(() => controller.abort(), 5),
    })
    const { error } = await failure(adapter.stream(ask, { signal: controller.signal }))
    expect(error).toBeInstanceOf(ThinkwireError)
    expect(error).toMatchObject({ kind: 'aborted', provider: 'mock' })
    expect(inner.calls).toHaveLength(1)
  })

  it('passes the caller options to every attempt', async () => {
    const inner = mock({ script: [{ fail: { kind: 'timeout' } }, { text: 'ok' }] })
    const controller = new AbortController()
    const options = { signal: controller.signal, maxTokens: 7, thinking: 'low' as const }
    await collect(withRetry(inner, { initialDelayMs: 1 }).stream(ask, options))
    expect(inner.calls.map((c) => c.options)).toEqual([options, options])
    expect(inner.calls[1]?.options.signal).toBe(controller.signal)
  })
})
