import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import { ThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { guardStream, sleep } from '../../src/core/guard-stream.ts'

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'a',
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'stop',
}

async function run(stream: AsyncIterable<Event>) {
  const events: Event[] = []
  try {
    for await (const e of stream) events.push(e)
    return { events, error: undefined }
  } catch (error) {
    return { events, error }
  }
}

describe('guardStream', () => {
  it('drops empty deltas', async () => {
    const { events } = await run(
      guardStream({ provider: 'p' }, async function* () {
        yield { type: 'text', text: '' }
        yield { type: 'thinking', text: '' }
        yield { type: 'text', text: 'a' }
        yield { type: 'done', turn }
      }),
    )
    expect(events).toEqual([
      { type: 'text', text: 'a' },
      { type: 'done', turn },
    ])
  })

  it('fails a producer that ends without done, so a cut stream never passes for complete', async () => {
    const { events, error } = await run(
      guardStream({ provider: 'p' }, async function* () {
        yield { type: 'text', text: 'a' }
      }),
    )
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({
      kind: 'network',
      message: 'p: the stream ended before the turn was complete',
    })
  })

  it('fails a producer that yields after done', async () => {
    const { events, error } = await run(
      guardStream({ provider: 'p' }, async function* () {
        yield { type: 'done', turn }
        yield { type: 'text', text: 'late' }
      }),
    )
    expect(events).toEqual([{ type: 'done', turn }])
    expect(error).toMatchObject({ kind: 'server' })
  })

  it('maps what the producer throws with mapError', async () => {
    const { error } = await run(
      guardStream(
        {
          provider: 'p',
          mapError: () => new ThinkwireError({ kind: 'overloaded', message: 'busy' }),
        },
        async function* () {
          yield { type: 'text', text: 'x' }
          throw new Error('raw')
        },
      ),
    )
    expect(error).toMatchObject({ kind: 'overloaded' })
  })

  it('does not hang on a producer that ignores its signal when the caller aborts', async () => {
    const controller = new AbortController()
    const stream = guardStream(
      { provider: 'p', options: { signal: controller.signal } },
      async function* () {
        yield { type: 'text', text: 'x' }
        await new Promise(() => {})
      },
    )
    setTimeout(() => controller.abort(), 10)
    const { events, error } = await run(stream)
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({ kind: 'aborted' })
  })

  it('turns upstream silence longer than idleTimeoutMs into a timeout, but not a slow consumer', async () => {
    let touched = 0
    const stream = guardStream(
      { provider: 'p', options: { idleTimeoutMs: 40 } },
      async function* ({ touch }) {
        yield { type: 'text', text: 'a' }
        for (let i = 0; i < 4; i++) {
          await sleep(20)
          touch()
          touched++
        }
        yield { type: 'text', text: 'b' }
        await new Promise(() => {})
      },
    )
    const events: Event[] = []
    let error: unknown
    try {
      for await (const e of stream) {
        events.push(e)
        await sleep(60) // a slow consumer does not count as upstream silence
      }
    } catch (e) {
      error = e
    }
    expect(touched).toBe(4)
    expect(events.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['a', 'b'])
    expect(error).toMatchObject({
      kind: 'timeout',
      retryable: true,
      message: 'p: no data for 40 ms',
    })
  })

  it('sleep rejects at once when aborted', async () => {
    const controller = new AbortController()
    const wait = sleep(10_000, controller.signal, 'p')
    controller.abort()
    await expect(wait).rejects.toMatchObject({ kind: 'aborted', provider: 'p' })
  })
})
