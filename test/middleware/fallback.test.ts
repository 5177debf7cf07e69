import { describe, expect, it, vi } from 'vitest'
import type { Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError, type ErrorKind } from '../../src/core/errors.ts'
import { withFallback, type FallbackInfo } from '../../src/middleware/fallback.ts'
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

const failing = (kind: ErrorKind, provider = 'primary', afterEvents = 0) =>
  mock({ provider, model: 'p1', script: [{ text: 'partial answer', fail: { kind, afterEvents } }] })
const answering = (provider = 'backup', text = 'from the backup') =>
  mock({ provider, model: 'b1', script: [{ thinking: 'hm', text }] })

describe('withFallback', () => {
  it('reports the provider and model of the primary', () => {
    const adapter = withFallback([failing('server'), answering()])
    expect([adapter.provider, adapter.model]).toEqual(['primary', 'p1'])
  })

  it('exposes the capabilities of the primary, and adds none when the primary has none', () => {
    const backupCapabilities = { ...someCapabilities, tools: false }
    const primary = plainAdapter('primary', someCapabilities)
    const backup = plainAdapter('backup', backupCapabilities)
    expect(withFallback([primary, backup]).capabilities).toBe(someCapabilities)
    expect('capabilities' in withFallback([plainAdapter('primary'), backup])).toBe(false)
  })

  it('throws a ThinkwireError at once when given no adapters', () => {
    expect(() => withFallback([])).toThrow(/at least one adapter/)
  })

  it('uses only the primary when it answers', async () => {
    const primary = answering('primary', 'from the primary')
    const backup = answering()
    const events = await collect(withFallback([primary, backup]).stream(ask))
    expect(doneTurn(events).text).toBe('from the primary')
    expect(backup.calls).toHaveLength(0)
  })

  it.each<ErrorKind>(['rate-limit', 'overloaded', 'server', 'network', 'timeout'])(
    'takes over before the first event on a %s error',
    async (kind) => {
      const primary = failing(kind)
      const backup = answering()
      const events = await collect(withFallback([primary, backup]).stream(ask))
      expect(doneTurn(events).text).toBe('from the backup')
      expect(events.filter((e) => e.type === 'done')).toHaveLength(1)
      expect([primary.calls.length, backup.calls.length]).toEqual([1, 1])
    },
  )

  it.each<ErrorKind>(['invalid-request', 'auth', 'context-length', 'content-filter'])(
    'does not take over on a %s error',
    async (kind) => {
      const backup = answering()
      const { error } = await failure(withFallback([failing(kind), backup]).stream(ask))
      expect(error).toMatchObject({ kind, provider: 'primary' })
      expect(backup.calls).toHaveLength(0)
    },
  )

  it('does not take over after the first event', async () => {
    const backup = answering()
    const adapter = withFallback([failing('server', 'primary', 1), backup])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'partial ' }])
    expect(error).toMatchObject({ kind: 'server', provider: 'primary' })
    expect(backup.calls).toHaveLength(0)
  })

  it('passes an error after the first event through untouched', async () => {
    const boom = rateLimited()
    const backup = answering()
    const adapter = withFallback([throwing([{ type: 'thinking', text: 'x' }], boom), backup])
    expect((await failure(adapter.stream(ask))).error).toBe(boom)
    expect(backup.calls).toHaveLength(0)
  })

  it("gives the done turn the backup's tag, so the backup replays it and the primary does not", async () => {
    const primary = mock({
      provider: 'primary',
      model: 'p1',
      script: [{ fail: { kind: 'overloaded' } }, { text: 'primary is back' }],
    })
    const backup = answering()
    const adapter = withFallback([primary, backup])
    const turn = doneTurn(await collect(adapter.stream(ask, { thinking: 'low' })))
    expect(turn.items).toMatchObject({ provider: 'backup', model: 'b1', thinkingMode: 'low' })

    const next: Conversation = { turns: [...ask.turns, turn, { role: 'user', content: 'More?' }] }
    await collect(adapter.stream(next, { thinking: 'low' }))
    // The primary answered this time: it re-encodes the backup's turn from its text.
    expect(primary.calls[1]?.request[1]).toEqual({
      role: 'assistant',
      text: 'from the backup',
      toolCalls: [],
    })
    await collect(backup.stream(next, { thinking: 'low' }))
    expect(backup.calls[1]?.request[1]).toEqual({ role: 'assistant', replayed: turn.items?.data })
  })

  it('tries the adapters in order and tells onFallback each time', async () => {
    const first = failing('rate-limit', 'first')
    const second = failing('server', 'second')
    const third = answering('third')
    const infos: FallbackInfo[] = []
    const adapter = withFallback([first, second, third], { onFallback: (i) => infos.push(i) })
    const events = await collect(adapter.stream(ask))
    expect(doneTurn(events).items?.provider).toBe('third')
    expect(infos.map((i) => [i.from.provider, i.to.provider, i.error.kind])).toEqual([
      ['first', 'second', 'rate-limit'],
      ['second', 'third', 'server'],
    ])
  })

  it('throws an error naming every failure, with the kind of the last, when all fail', async () => {
    const primary = mock({
      provider: 'primary',
      model: 'p1',
      script: [{ fail: { kind: 'rate-limit', message: 'too many' } }],
    })
    const backup = mock({
      provider: 'backup',
      model: 'b1',
      script: [{ fail: { kind: 'overloaded', message: 'busy', status: 529, retryAfterMs: 30 } }],
    })
    const { error } = await failure(withFallback([primary, backup]).stream(ask))
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      status: 529,
      retryAfterMs: 30,
      provider: 'backup',
    })
    const message = (error as Error).message
    expect(message).toContain('primary/p1: rate-limit: too many')
    expect(message).toContain('backup/b1: overloaded: busy')
    expect((error as Error).cause).toMatchObject({ kind: 'overloaded', message: 'busy' })
  })

  it('throws the very error when its only adapter fails', async () => {
    const boom = rateLimited()
    expect((await failure(withFallback([throwing([], boom)]).stream(ask))).error).toBe(boom)
  })

  it('lets shouldFallback accept a kind that is not retryable', async () => {
    const shouldFallback = vi.fn((error: { kind: ErrorKind }) => error.kind === 'content-filter')
    const primary = failing('content-filter')
    const adapter = withFallback([primary, answering()], { shouldFallback })
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('from the backup')
    expect(shouldFallback).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'content-filter' }),
      primary,
    )
  })

  it('never falls back when the caller aborts before the first event', async () => {
    const primary = mock({ provider: 'primary', script: [{ text: 'x', stallAfterEvents: 0 }] })
    const backup = answering()
    const controller = new AbortController()
    const adapter = withFallback([primary, backup], { shouldFallback: () => true })
    const run = failure(adapter.stream(ask, { signal: controller.signal }))
    await vi.waitFor(() => expect(primary.calls).toHaveLength(1))
    controller.abort()
    expect((await run).error).toMatchObject({ kind: 'aborted' })
    expect(primary.calls[0]?.signal.aborted).toBe(true)
    expect(backup.calls).toHaveLength(0)
  })
})
