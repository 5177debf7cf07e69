import { describe, expect, it } from 'vitest'
import { createFanOut } from '../../../src/relay/conversations/fan-out.ts'

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

/** Reads until `done` says so (the test's timeout is the deadline). */
async function readUntil(stream: ReadableStream<Uint8Array>, done: (text: string) => boolean) {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (!done(text)) {
    const step = await reader.read()
    if (step.done) break
    text += decoder.decode(step.value, { stream: true })
  }
  reader.releaseLock()
  return text
}

describe('the fan-out of a conversation', () => {
  it('sends every subscriber its replay, then the same live frames, until the answer ends', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0 })
    const first = fanOut.subscribe('', { live: true, follow: false })
    fanOut.publish('a\n\n')
    const second = fanOut.subscribe('a\n\n', { live: true, follow: false })
    fanOut.publish('b\n\n')
    fanOut.publish('c\n\n')
    fanOut.endAnswer()
    expect(fanOut.size).toBe(0)
    expect(await readAll(first)).toBe('a\n\nb\n\nc\n\n')
    expect(await readAll(second)).toBe('a\n\nb\n\nc\n\n')
  })

  it('ends a subscription that is not live after its replay', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0 })
    const past = fanOut.subscribe('x\n\n', { live: false, follow: false })
    fanOut.publish('y\n\n')
    expect(await readAll(past)).toBe('x\n\n')
    expect(fanOut.size).toBe(0)
  })

  it('keeps a follower open across answers, and closes it with the rest', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0 })
    const follower = fanOut.subscribe('', { live: true, follow: true })
    fanOut.publish('one\n\n')
    fanOut.endAnswer()
    fanOut.publish('two\n\n')
    fanOut.endAnswer()
    expect(fanOut.size).toBe(1)
    fanOut.close()
    expect(await readAll(follower)).toBe('one\n\ntwo\n\n')
  })

  it('drops a subscriber that stops reading before it holds more than its bound', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0, maxUnreadBytes: 1000 })
    const stalled = fanOut.subscribe('', { live: true, follow: false })
    const reading = fanOut.subscribe('', { live: true, follow: false })
    const text = readAll(reading)
    for (let i = 0; i < 20; i++) {
      fanOut.publish(`${'z'.repeat(98)}\n\n`)
      fanOut.flush()
      // The reading client takes what it was sent; the stalled one never does.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    expect(fanOut.size).toBe(1)
    fanOut.endAnswer()
    expect((await text).length).toBe(2000)
    expect((await readAll(stalled)).length).toBeLessThanOrEqual(1100)
  })

  it('sends a ping comment to a quiet subscriber', async () => {
    const fanOut = createFanOut({ heartbeatMs: 5 })
    const quiet = fanOut.subscribe('', { live: true, follow: true })
    const text = await readUntil(quiet, (seen) => seen.includes(': ping\n\n'))
    expect(text.startsWith(': ping\n\n')).toBe(true)
    fanOut.close()
  })

  it('stops sending to a subscriber whose client cancelled', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0 })
    const gone = fanOut.subscribe('', { live: true, follow: true })
    await gone.cancel()
    expect(fanOut.size).toBe(0)
    fanOut.publish('late\n\n')
    fanOut.flush()
  })

  it('sends queued frames at once past maxQueuedChars, however fast they are published', async () => {
    const fanOut = createFanOut({ heartbeatMs: 0, maxQueuedChars: 1000 })
    const stream = fanOut.subscribe('', { live: true, follow: false })
    const frame = `${'x'.repeat(98)}\n\n`
    let most = 0
    for (let i = 0; i < 1000; i++) {
      fanOut.publish(frame)
      most = Math.max(most, fanOut.queuedChars)
    }
    expect(most).toBe(900)
    expect(fanOut.queuedChars).toBe(0)
    fanOut.endAnswer()
    expect(await readAll(stream)).toBe(frame.repeat(1000))
  })
})
