import { describe, expect, it, vi } from 'vitest'
import { createRegistry } from '../src/core/registry.ts'
import { createMock, mock, mockModelIds } from '../src/providers/mock/index.ts'
import type { Event } from '../src/core/events.ts'
import { collect } from './helpers/stream.ts'

describe('mock', () => {
  it('answers any question with thinking and a quote of the question when it has no script', async () => {
    const events = await collect(
      mock().stream({ turns: [{ role: 'user', content: 'Hello there' }] }),
    )
    const done = events.at(-1)
    expect(done?.type).toBe('done')
    if (done?.type !== 'done') return
    expect(done.turn.text).toContain('"Hello there"')
    expect(done.turn.thinking).toMatch(/11 characters/)
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1)
  })

  it('streams in chunks of chunkSize characters', async () => {
    const events = await collect(
      mock({ chunkSize: 3, script: [{ text: 'abcdefgh' }] }).stream({ turns: [] }),
    )
    expect(
      events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : '')),
    ).toEqual(['abc', 'def', 'gh'])
  })

  it('fails before the first event with the scripted kind, status and retry-after', async () => {
    const adapter = mock({
      script: [{ text: 'x', fail: { kind: 'rate-limit', status: 429, retryAfterMs: 1500 } }],
    })
    await expect(collect(adapter.stream({ turns: [] }))).rejects.toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      status: 429,
      retryAfterMs: 1500,
      provider: 'mock',
    })
  })

  it('plays the script in order and repeats the last answer', async () => {
    const adapter = mock({ script: [{ text: 'one' }, { text: 'two' }] })
    const texts = []
    for (let i = 0; i < 3; i++) {
      const events = await collect(adapter.stream({ turns: [] }))
      const done = events.at(-1)
      texts.push(done?.type === 'done' ? done.turn.text : '')
    }
    expect(texts).toEqual(['one', 'two', 'two'])
  })

  it('emits no thinking when thinking is off and tags the items with the mode', async () => {
    const events = await collect(
      mock({ script: [{ thinking: 'hmm', text: 'ok' }] }).stream(
        { turns: [] },
        { thinking: 'off' },
      ),
    )
    expect(events.some((e) => e.type === 'thinking')).toBe(false)
    const done = events.at(-1)
    expect(done?.type === 'done' && done.turn.items?.thinkingMode).toBe('off')
  })

  it('fails with a timeout when it stalls longer than idleTimeoutMs', async () => {
    const adapter = mock({ script: [{ text: 'abc', stallAfterEvents: 1 }], chunkSize: 1 })
    const events: Event[] = []
    await expect(
      (async () => {
        for await (const e of adapter.stream({ turns: [] }, { idleTimeoutMs: 30 })) events.push(e)
      })(),
    ).rejects.toMatchObject({ kind: 'timeout', retryable: true })
    expect(events).toHaveLength(1)
    expect(adapter.calls[0]?.signal.aborted).toBe(true)
  })

  it('reports the echo row as the capabilities of every mock model', () => {
    const echo = {
      thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: true },
      tools: true,
      json: true,
      contextTokens: 200_000,
      maxOutputTokens: 64_000,
    }
    expect(mock().capabilities).toEqual(echo)
    expect(mock({ model: 'anything-else' }).capabilities).toEqual(echo)
  })

  it('makes adapters of any model from one set of options, and lists the mock models', async () => {
    const factory = createMock({ chunkSize: 2, script: [{ text: 'abcd' }] })
    expect(factory.models).toEqual(mockModelIds)
    const adapter = factory('parrot')
    expect(adapter).toMatchObject({ provider: 'mock', model: 'parrot' })
    const events = await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }))
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: 'ab' },
      { type: 'text', text: 'cd' },
    ])
    expect(adapter.calls).toHaveLength(1)
    expect(adapter.calls[0]?.request).toEqual([{ role: 'user', content: 'x' }])
    const registry = createRegistry({ mock: factory })
    expect(registry.models()).toEqual([
      { id: 'mock/echo', provider: 'mock', model: 'echo', ...mock().capabilities },
    ])
  })

  it('waits delayMs before each delta', async () => {
    vi.useFakeTimers()
    try {
      const adapter = mock({ delayMs: 50, chunkSize: 2, script: [{ text: 'abcd' }] })
      const iterator = adapter.stream({ turns: [] })[Symbol.asyncIterator]()
      let settled = false
      const first = iterator.next().finally(() => (settled = true))
      await vi.advanceTimersByTimeAsync(49)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await first).toEqual({ done: false, value: { type: 'text', text: 'ab' } })
      await iterator.return?.()
    } finally {
      vi.useRealTimers()
    }
  })
  it('spreads the thinking over thinkingMs, then streams the answer in its own chunk size', async () => {
    vi.useFakeTimers()
    try {
      const adapter = mock({
        script: [{ thinking: 'abcdefgh', thinkingMs: 1000, chunkSize: 4, text: 'answer' }],
      })
      const events: Event[] = []
      const done = (async () => {
        for await (const event of adapter.stream({ turns: [] })) events.push(event)
      })()
      // Two thinking deltas, 500 ms apart; no answer before the thinking time is over.
      await vi.advanceTimersByTimeAsync(999)
      expect(events).toEqual([{ type: 'thinking', text: 'abcd' }])
      await vi.advanceTimersByTimeAsync(1)
      await done
      expect(events.slice(0, 3)).toEqual([
        { type: 'thinking', text: 'abcd' },
        { type: 'thinking', text: 'efgh' },
        { type: 'text', text: 'answ' },
      ])
    } finally {
      vi.useRealTimers()
    }
  })

  it('answers a question about markdown or the demo with thinking and a markdown tour', async () => {
    vi.useFakeTimers()
    try {
      const stream = mock().stream({
        turns: [{ role: 'user', content: 'Show me a Markdown demo' }],
      })
      const result = collect(stream)
      await vi.advanceTimersByTimeAsync(1500)
      const events = await result
      const done = events.at(-1)
      if (done?.type !== 'done') throw new Error('no done event')
      expect(done.turn.thinking?.length).toBeGreaterThan(100)
      expect(done.turn.text).toMatch(/^1\. \*\*Thinking\*\*/m)
      expect(done.turn.text).toContain('```ts\n')
      expect(done.turn.text).toMatch(/^\| `text` \| the answer \|$/m)
      expect(done.turn.text).not.toContain('You said')
      // Other questions keep the echo.
      const echo = await collect(mock().stream({ turns: [{ role: 'user', content: 'demos' }] }))
      expect(echo.at(-1)).toMatchObject({
        turn: { text: expect.stringContaining('You said: "demos"') },
      })
    } finally {
      vi.useRealTimers()
    }
  })
})
