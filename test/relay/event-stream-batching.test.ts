import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { relayEncoder } from '../../src/relay/dialects.ts'
import { toEventStream, type StreamEnd } from '../../src/relay/event-stream.ts'
import { parseSse } from './sse-reader.ts'

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'done',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
}

function streamOf(events: () => AsyncGenerator<Event>) {
  const iterator = events()
  const ends: StreamEnd[] = []
  const body = toEventStream({
    iterator,
    first: iterator.next(),
    upstream: new AbortController(),
    provider: 'test',
    encoder: relayEncoder(),
    heartbeatMs: 0,
    onEnd: (end) => ends.push(end),
  })
  return { reader: body.getReader(), ends }
}

const decoder = new TextDecoder()

describe('toEventStream batching', () => {
  it('sends events that are ready together as one chunk, in order', async () => {
    const { reader, ends } = streamOf(async function* () {
      for (let i = 0; i < 100; i++) yield { type: 'text', text: `t${i} ` }
      yield { type: 'done', turn }
    })
    const chunks: string[] = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(decoder.decode(value))
    }
    const events = parseSse(chunks.join('')).events
    expect(events.map((e) => e.event)).toEqual([...Array(100).fill('text'), 'done'])
    expect(events.slice(0, 100).map((e) => JSON.parse(e.data))).toEqual(
      Array.from({ length: 100 }, (_, i) => ({ text: `t${i} ` })),
    )
    expect(chunks.length).toBeLessThanOrEqual(2)
    expect(ends).toMatchObject([{ type: 'done' }])
  })

  it('sends what it holds as soon as the upstream has to wait, not with the next event', async () => {
    let release!: () => void
    const upstreamWaits = new Promise<void>((resolve) => (release = resolve))
    const { reader } = streamOf(async function* () {
      yield { type: 'thinking', text: 'first' }
      yield { type: 'text', text: 'second' }
      // The next event needs the network, which answers only once the client has both events.
      await upstreamWaits
      yield { type: 'text', text: 'third' }
      yield { type: 'done', turn }
    })
    let received = ''
    while (!received.includes('second')) {
      const { done, value } = await reader.read()
      if (done) break
      received += decoder.decode(value)
    }
    expect(parseSse(received).events.map((e) => JSON.parse(e.data))).toEqual([
      { text: 'first' },
      { text: 'second' },
    ])
    release()
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += decoder.decode(value)
    }
    expect(parseSse(rest).events.map((e) => e.event)).toEqual(['text', 'done'])
  })

  it('sends the events of a batch before the error that ends it', async () => {
    const { reader, ends } = streamOf(async function* () {
      yield { type: 'text', text: 'kept' }
      throw new Error('upstream reset')
    })
    let raw = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      raw += decoder.decode(value)
    }
    expect(parseSse(raw).events.map((e) => e.event)).toEqual(['text', 'error'])
    expect(ends).toMatchObject([{ type: 'error' }])
  })
})
