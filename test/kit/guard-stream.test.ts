import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { OpaqueItems } from '../../src/core/conversation.ts'
import { ThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { sleep } from '../../src/core/sleep.ts'
import {
  guardStream,
  type Delta,
  type DeltaSource,
  type Finish,
} from '../../src/kit/guard-stream.ts'
import { failure, run } from '../helpers/stream.ts'

const finish: Finish = { usage: { inputTokens: 1, outputTokens: 2 }, stopReason: 'stop' }
const setup = { provider: 'p', model: 'm' }

describe('guardStream', () => {
  it('drops empty deltas', async () => {
    const { events } = await run(
      guardStream(setup, async function* () {
        yield { type: 'text', text: '' }
        yield { type: 'thinking', text: '' }
        yield { type: 'text', text: 'a' }
        return finish
      }),
    )
    expect(events).toEqual([
      { type: 'text', text: 'a' },
      { type: 'done', turn: { role: 'assistant', text: 'a', ...finish } },
    ])
  })

  it("prices the turn at the finish record's prices when it has its own, and leaves the cost out when they are unknown", async () => {
    const priced = { ...setup, pricing: { input: 1, output: 2 } }
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000 }
    const costOf = async (pricing?: Finish['pricing']) => {
      const { events } = await run(
        guardStream(priced, async function* () {
          yield { type: 'text', text: 'a' }
          return pricing === undefined ? { ...finish, usage } : { ...finish, usage, pricing }
        }),
      )
      const done = events.at(-1)
      if (done?.type !== 'done') throw new Error('no done')
      expect(done.turn).not.toHaveProperty('pricing')
      return done.turn.usage.cost
    }
    expect(await costOf()).toBe(3)
    expect(await costOf({ input: 2, output: 4 })).toBe(6)
    expect(await costOf(null)).toBeUndefined()
  })

  it('builds the done turn from the deltas and the finish record, and tags the items', async () => {
    const call = { id: 'c1', name: 'f', input: { x: 1 } }
    const { events } = await run(
      guardStream({ ...setup, options: { thinking: 'high' } }, async function* () {
        yield [
          { type: 'thinking', text: 'Hm' },
          { type: 'thinking', text: 'm.' },
        ]
        yield { type: 'text', text: 'Hi' }
        yield { type: 'tool-call', call }
        return { ...finish, stopReason: 'tool-calls', items: [{ raw: true }], warnings: ['w'] }
      }),
    )
    expect(events.at(-1)).toEqual({
      type: 'done',
      turn: {
        role: 'assistant',
        text: 'Hi',
        thinking: 'Hmm.',
        toolCalls: [call],
        usage: finish.usage,
        stopReason: 'tool-calls',
        items: { provider: 'p', model: 'm', thinkingMode: 'high', data: [{ raw: true }] },
        warnings: ['w'],
      },
    })
  })

  it('passes items that already carry their tag on whole, seal included', async () => {
    const items: OpaqueItems = {
      provider: 'other',
      model: 'x',
      thinkingMode: 'default',
      data: [1],
      seal: 'abc',
    }
    const { events } = await run(
      guardStream(setup, async function* () {
        yield { type: 'text', text: 'a' }
        return { ...finish, items }
      }),
    )
    expect(events.at(-1)).toMatchObject({ type: 'done', turn: { items } })
  })

  it('gives the producer the replay tag of the call', async () => {
    let seen: unknown
    await run(
      guardStream(
        { ...setup, options: { thinking: { budgetTokens: 2048 } } },
        async function* ({ tag }) {
          seen = tag
          yield { type: 'text', text: 'a' }
          return finish
        },
      ),
    )
    expect(seen).toEqual({ provider: 'p', model: 'm', thinkingMode: 'budget-2048' })
  })

  it('reads a source the producer yields to its end, nested lists included, then resumes the producer', async () => {
    const batches: (Delta | Delta[])[][] = [
      [{ type: 'thinking', text: 'H' }],
      [],
      [
        [
          { type: 'text', text: 'a' },
          { type: 'text', text: '' },
          { type: 'text', text: 'b' },
        ],
      ],
      [{ type: 'text', text: 'c' }, [], [{ type: 'text', text: 'd' }]],
    ]
    const source = (async function* () {
      yield* batches
    })()
    const order: string[] = []
    const { events } = await run(
      guardStream(setup, async function* () {
        order.push('before')
        yield source
        order.push('after')
        yield { type: 'text', text: 'e' }
        return finish
      }),
    )
    expect(order).toEqual(['before', 'after'])
    expect(events).toEqual([
      { type: 'thinking', text: 'H' },
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
      { type: 'text', text: 'c' },
      { type: 'text', text: 'd' },
      { type: 'text', text: 'e' },
      { type: 'done', turn: { role: 'assistant', text: 'abcde', thinking: 'H', ...finish } },
    ])
  })

  it('fails with what a source throws, after the deltas before it, and closes the producer', async () => {
    let cleanedUp = false
    const source = (async function* () {
      yield [{ type: 'text', text: 'a' } satisfies Delta]
      throw new TypeError('fetch failed')
    })()
    const { events, error } = await run(
      guardStream(setup, async function* () {
        try {
          yield source
          return finish
        } finally {
          cleanedUp = true
        }
      }),
    )
    expect(events).toEqual([{ type: 'text', text: 'a' }])
    expect(error).toMatchObject({ kind: 'network', provider: 'p' })
    await sleep(0)
    expect(cleanedUp).toBe(true)
  })

  it('releases the source and the producer when the caller leaves in the middle of it', async () => {
    let sourceReturned = false
    let producerClosed = false
    let reads = 0
    const source: DeltaSource = {
      next: async () => ({ done: false, value: [{ type: 'text', text: String(reads++) }] }),
      return: async () => {
        sourceReturned = true
        return { done: true, value: undefined }
      },
    }
    const stream = guardStream(setup, async function* () {
      try {
        yield source
        return finish
      } finally {
        producerClosed = true
      }
    })
    const events: Event[] = []
    for await (const event of stream) {
      events.push(event)
      if (events.length === 3) break
    }
    await sleep(0)
    expect(events).toEqual(['0', '1', '2'].map((text) => ({ type: 'text', text })))
    expect(sourceReturned).toBe(true)
    expect(producerClosed).toBe(true)
  })

  it('fails a producer that ends without a finish record, so a cut stream never passes for complete', async () => {
    const { events, error } = await run(
      guardStream(setup, async function* () {
        yield { type: 'text', text: 'a' }
      }),
    )
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({
      kind: 'network',
      message: 'p: the stream ended before the turn was complete',
    })
  })

  it('fails a producer that yields done itself', async () => {
    const { events, error } = await run(
      guardStream(setup, async function* () {
        yield { type: 'text', text: 'a' }
        yield { type: 'done', turn: { role: 'assistant', text: 'a', ...finish } } as never
        return finish
      }),
    )
    expect(events).toEqual([{ type: 'text', text: 'a' }])
    expect(error).toMatchObject({ kind: 'server', message: expect.stringMatching(/finish record/) })
  })

  it('maps what the producer throws with mapError', async () => {
    const { error } = await run(
      guardStream(
        { ...setup, mapError: () => new ThinkwireError({ kind: 'overloaded', message: 'busy' }) },
        async function* () {
          yield { type: 'text', text: 'x' }
          throw new Error('raw')
        },
      ),
    )
    expect(error).toMatchObject({ kind: 'overloaded' })
  })

  it('redacts credentials from every failure, whether the producer threw it or mapError made it', async () => {
    const message = [
      'bad key sk-ant-api03-abcdefghijklmnop',
      'Authorization: Bearer abc.def.ghi.jkl',
      'x-api-key: secretvalue123',
      'AIzaSyA1234567890abcdefghijklmnop',
      'https://api.example.com/v1/models?key=AIzaSyXXXXXXXXXXXXXXXXXXXXXXXX&x=1',
    ].join(' | ')
    const thrown = await failure(
      guardStream(setup, async function* () {
        yield { type: 'text', text: 'x' }
        throw new Error(message)
      }),
    )
    const mapped = await failure(
      guardStream(
        { ...setup, mapError: () => new ThinkwireError({ kind: 'auth', message, status: 401 }) },
        async function* () {
          yield { type: 'text', text: 'x' }
          throw new Error('raw')
        },
      ),
    )
    expect(mapped.error).toMatchObject({ kind: 'auth', status: 401 })
    for (const { error } of [thrown, mapped]) {
      const text = (error as Error).message
      for (const secret of ['sk-ant-api03', 'abc.def.ghi', 'secretvalue123', 'AIzaSy', 'key=']) {
        expect(text).not.toContain(secret)
      }
      expect(text).toContain('https://api.example.com/v1/models')
    }
  })

  it('does not hang on a producer that ignores its signal when the caller aborts', async () => {
    const controller = new AbortController()
    const stream = guardStream(
      { ...setup, options: { signal: controller.signal } },
      async function* () {
        yield { type: 'text', text: 'x' }
        await new Promise(() => {})
        return finish
      },
    )
    setTimeout(() => controller.abort(), 10)
    const { events, error } = await run(stream)
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({ kind: 'aborted' })
  })

  it('delivers no more of a batch once the caller aborted while holding an event', async () => {
    const controller = new AbortController()
    const stream = guardStream(
      { ...setup, options: { signal: controller.signal } },
      async function* () {
        yield [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'text', text: 'c' },
        ]
        return finish
      },
    )
    const events: Event[] = []
    let error: unknown
    try {
      for await (const event of stream) {
        events.push(event)
        controller.abort()
      }
    } catch (caught) {
      error = caught
    }
    expect(events).toEqual([{ type: 'text', text: 'a' }])
    expect(error).toMatchObject({ kind: 'aborted' })
  })

  // The idle timer reads a clock: these run on a fake one, so a busy machine cannot stretch a
  // 20 ms wait past the 40 ms timeout.
  describe('on a fake clock', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    })
    afterEach(() => {
      vi.useRealTimers()
    })

    it('turns upstream silence longer than idleTimeoutMs into a timeout, but not a slow consumer', async () => {
      let touched = 0
      const stream = guardStream(
        { ...setup, options: { idleTimeoutMs: 40 } },
        async function* ({ touch }) {
          yield { type: 'text', text: 'a' }
          for (let i = 0; i < 4; i++) {
            await sleep(20)
            touch()
            touched++
          }
          yield { type: 'text', text: 'b' }
          await new Promise(() => {})
          return finish
        },
      )
      const events: Event[] = []
      const consumed = (async () => {
        for await (const e of stream) {
          events.push(e)
          await sleep(60) // a slow consumer does not count as upstream silence
        }
      })().then(
        () => undefined,
        (error: unknown) => error,
      )
      // a, 60 ms held; 4 × 20 ms of touches; b, 60 ms held; then 40 ms of silence.
      await vi.advanceTimersByTimeAsync(60 + 4 * 20 + 60 + 39)
      expect(events.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['a', 'b'])
      expect(touched).toBe(4)
      await vi.advanceTimersByTimeAsync(1)
      expect(await consumed).toMatchObject({
        kind: 'timeout',
        retryable: true,
        message: 'p: no data for 40 ms',
      })
    })

    it('counts an empty batch as a sign of life for the idle timer', async () => {
      const stream = guardStream({ ...setup, options: { idleTimeoutMs: 40 } }, async function* () {
        for (let i = 0; i < 4; i++) {
          await sleep(39)
          yield []
        }
        yield { type: 'text', text: 'a' }
        return finish
      })
      const ran = run(stream)
      await vi.advanceTimersByTimeAsync(4 * 39)
      const { events, error } = await ran
      expect(error).toBeUndefined()
      expect(events.at(-1)?.type).toBe('done')
    })
  })

  it('sleep rejects at once when aborted', async () => {
    const controller = new AbortController()
    const wait = sleep(10_000, controller.signal, 'p')
    controller.abort()
    await expect(wait).rejects.toMatchObject({ kind: 'aborted', provider: 'p' })
  })
})
