import { describe, expect, it } from 'vitest'
import { describeAdapterContract, type ContractHarness } from './adapter-contract.ts'
import { mock, type MockOptions } from '../src/providers/mock/index.ts'
import type { Event } from '../src/core/events.ts'

function harness(options: MockOptions): ContractHarness {
  const adapter = mock(options)
  return {
    adapter,
    upstreamAborted: () => adapter.calls.at(-1)?.signal.aborted === true,
    lastRequest: () => adapter.calls.at(-1)?.request,
    requestCount: () => adapter.calls.length,
  }
}

describeAdapterContract('mock', {
  answer: (model) =>
    harness({
      model,
      script: [
        {
          thinking: 'Two and two.',
          text: 'It is 4.',
          toolCalls: [{ name: 'log', input: { n: 4 } }],
        },
      ],
    }),
  failAfterFirstEvent: () =>
    harness({ script: [{ text: 'partial answer', fail: { kind: 'server', afterEvents: 1 } }] }),
  stallAfterFirstEvent: () =>
    harness({ script: [{ text: 'partial answer', stallAfterEvents: 1 }] }),
  replayMarkers: (turn) => (turn.items?.data ?? []).map((item) => JSON.stringify(item)),
})

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

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
})
