import { describe, expect, it } from 'vitest'
import {
  createEventLog,
  framesBetween,
  storedFrames,
  type EventBatch,
} from '../../../src/relay/conversations/event-log.ts'
import {
  createFanOut,
  reconnectFrame,
  type FanOutOptions,
} from '../../../src/relay/conversations/fan-out.ts'
import { createSseEncoder } from '../../../src/relay/sse.ts'

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

/**
 * A fan-out over an event log as a conversation's object wires them: batches of `maxEvents`
 * "stored" in an array, read one batch a page (then what is held); `pages` counts the reads.
 */
function conversation(
  options: Omit<FanOutOptions, 'source'> & { maxEvents?: number } = {
    heartbeatMs: 0,
  },
) {
  const stored: EventBatch[] = []
  const log = createEventLog({
    lastId: 0,
    beforeWrite: () => fanOut.flush(),
    write: (batch) => stored.push({ ...batch, text: storedFrames(batch.text, batch.firstId) }),
    maxEvents: options.maxEvents ?? 3,
  })
  const reads: number[] = []
  const fanOut = createFanOut({
    ...options,
    source: {
      lastId: () => log.lastId,
      taken: () => log.takenId,
      take: () => log.take(),
      skip: () => log.skip(),
      read(after, until) {
        const end = Math.min(until ?? Infinity, log.lastId)
        const held = log.held()
        const batch = [...stored, ...(held === null ? [] : [held])].find((b) => b.lastId > after)
        if (batch === undefined || after >= end) return { text: '', lastId: after }
        const text = framesBetween(batch, after, end)
        reads.push(text.length)
        return { text, lastId: Math.min(batch.lastId, end) }
      },
    },
  })
  // The frames every subscriber should get, as the relay's encoder writes them.
  const sse = createSseEncoder()
  const frames: string[] = []
  const publish = (text: string) => {
    const data = JSON.stringify({ text })
    frames.push(sse.event('text', data))
    fanOut.publish(log.append('text', data))
  }
  return { fanOut, log, publish, frames, reads }
}

/**
 * Publishes 20 events of 60 characters, each sent at once and followed by a turn of the event
 * loop: subscribers that read take what they were sent; stalled ones never do.
 */
async function publishEach({ fanOut, publish }: ReturnType<typeof conversation>): Promise<void> {
  for (let i = 0; i < 20; i++) {
    publish('z'.repeat(60))
    fanOut.flush()
    await new Promise((resolve) => setTimeout(resolve, 0))
  }
}

describe('the fan-out of a conversation', () => {
  it('sends every subscriber the events after its id, then the same live frames, until the answer ends', async () => {
    const { fanOut, log, publish, frames } = conversation()
    const first = fanOut.subscribe({ after: 0, follow: false })
    publish('a')
    const second = fanOut.subscribe({ after: 0, follow: false })
    const late = fanOut.subscribe({ after: 1, follow: false })
    publish('b')
    publish('c')
    fanOut.endAnswer(log.lastId)
    expect(fanOut.size).toBe(0)
    const all = frames.join('')
    expect(await readAll(first)).toBe(all)
    expect(await readAll(second)).toBe(all)
    expect(await readAll(late)).toBe(frames.slice(1).join(''))
  })

  it('gives a subscriber that joins an answer no one was listening to each event once', async () => {
    const { fanOut, log, publish, frames } = conversation({ heartbeatMs: 0, maxEvents: 4 })
    // Published with no one listening, then flushed as the answer's queue is: nothing goes out,
    // and no frame is made.
    publish('a')
    publish('b')
    fanOut.flush()
    const late = fanOut.subscribe({ after: 0, follow: false })
    publish('c')
    publish('d')
    publish('e')
    fanOut.endAnswer(log.lastId)
    expect(await readAll(late)).toBe(frames.join(''))
  })

  it('sends a subscriber from the live point what was logged before it joined with the next live frames, in one chunk', async () => {
    const { fanOut, log, publish, frames } = conversation({ heartbeatMs: 0, maxEvents: 10 })
    // Sent to no one, and taken: a subscriber after it is at the live point.
    publish('before')
    fanOut.flush()
    // Logged while no one listened (a message's `turn`), then the answer's first events.
    publish('turn')
    const reader = fanOut.subscribe({ after: 1, follow: false }).getReader()
    expect(fanOut.size).toBe(1)
    publish('first')
    publish('second')
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toBe(frames.slice(1).join(''))
    publish('third')
    fanOut.endAnswer(log.lastId)
    const rest = new TextDecoder().decode((await reader.read()).value)
    expect(rest).toBe(frames[4])
    expect((await reader.read()).done).toBe(true)
  })

  it('ends a replay at its last id, whatever is published after it', async () => {
    const { fanOut, log, publish, frames } = conversation()
    publish('x')
    const past = fanOut.subscribe({ after: 0, until: log.lastId, follow: false })
    publish('y')
    expect(await readAll(past)).toBe(frames[0])
    expect(fanOut.size).toBe(0)
  })

  it('streams a long replay a page per read, then joins the live frames with no gap or repeat', async () => {
    const { fanOut, log, publish, frames, reads } = conversation({ heartbeatMs: 0, maxEvents: 10 })
    for (let i = 0; i < 95; i++) publish(`event ${i}`)
    const reader = fanOut.subscribe({ after: 4, follow: false }).getReader()
    const decoder = new TextDecoder()
    let text = ''
    // Published while the subscriber is still catching up: it reads them from the log.
    for (let i = 95; i < 100; i++) {
      text += decoder.decode((await reader.read()).value!, { stream: true })
      publish(`event ${i}`)
    }
    expect(fanOut.size).toBe(0)
    while (text !== frames.slice(4).join('')) {
      text += decoder.decode((await reader.read()).value!, { stream: true })
    }
    // Caught up: its next read joins the live subscribers.
    const next = reader.read()
    await Promise.resolve()
    expect(fanOut.size).toBe(1)
    publish('live')
    fanOut.endAnswer(log.lastId)
    for (let step = await next; !step.done; step = await reader.read()) {
      text += decoder.decode(step.value, { stream: true })
    }
    expect(text).toBe(frames.slice(4).join(''))
    // One stored batch (or what is held) a page: never the whole replay at once.
    expect(reads.length).toBeGreaterThanOrEqual(10)
    expect(Math.max(...reads)).toBeLessThanOrEqual(frames.slice(90, 100).join('').length)
  })

  it('ends a subscriber still catching up when the answer ends, after the answer’s last event', async () => {
    const { fanOut, log, publish, frames } = conversation({ heartbeatMs: 0, maxEvents: 2 })
    for (let i = 0; i < 10; i++) publish(`e${i}`)
    const behind = fanOut.subscribe({ after: 0, follow: false })
    fanOut.endAnswer(log.lastId)
    publish('next answer')
    expect(await readAll(behind)).toBe(frames.slice(0, 10).join(''))
  })

  it('keeps a follower open across answers, and closes it with the rest', async () => {
    const { fanOut, log, publish, frames } = conversation()
    const follower = fanOut.subscribe({ after: 0, follow: true })
    publish('one')
    fanOut.endAnswer(log.lastId)
    publish('two')
    fanOut.endAnswer(log.lastId)
    expect(fanOut.size).toBe(1)
    fanOut.close()
    // Closed by the relay, not ended by an answer: it says so, and where its client resumes.
    expect(await readAll(follower)).toBe(frames.join('') + reconnectFrame('closed', 2))
  })

  it('ends every stream it closes with a reconnect event naming the last event each was sent', async () => {
    const { fanOut, log, publish, frames } = conversation({ heartbeatMs: 0, maxEvents: 2 })
    for (let i = 0; i < 6; i++) publish(`e${i}`)
    const live = fanOut.subscribe({ after: 0, follow: false })
    const liveText = readAll(live)
    // Read to the live frames: caught up.
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(fanOut.size).toBe(1)
    // A page of the log read, the rest still to come.
    const behind = fanOut.subscribe({ after: 0, follow: false }).getReader()
    const page = new TextDecoder().decode((await behind.read()).value)
    expect(frames.join('').startsWith(page)).toBe(true)
    fanOut.close()
    expect(await liveText).toBe(frames.join('') + reconnectFrame('closed', log.lastId))
    let rest = ''
    for (let step = await behind.read(); !step.done; step = await behind.read()) {
      rest += new TextDecoder().decode(step.value)
    }
    const seen = frames.findIndex((frame, i) => frames.slice(0, i + 1).join('') === page) + 1
    expect(rest).toBe(reconnectFrame('closed', seen))
  })

  it('drops a subscriber that stops reading before it holds more than its bound', async () => {
    const conversationOf = conversation({ heartbeatMs: 0, maxUnreadBytes: 1000 })
    const { fanOut, log } = conversationOf
    const stalled = fanOut.subscribe({ after: 0, follow: false })
    const reading = fanOut.subscribe({ after: 0, follow: false })
    const text = readAll(reading)
    await publishEach(conversationOf)
    expect(fanOut.size).toBe(1)
    fanOut.endAnswer(log.lastId)
    expect((await text).split('\n\n').length - 1).toBe(20)
    // Ended with a reconnect event after what it was sent: its client resumes from there.
    const held = await readAll(stalled)
    const [sent, last] = held.split(/(?=event: reconnect)/)
    expect(sent!.length).toBeLessThanOrEqual(1100)
    const events = sent!.split('\n\n').length - 1
    expect(last).toBe(reconnectFrame('behind', events))
  })

  it('drops the subscribers furthest behind once all of them together hold more than the total bound', async () => {
    const conversationOf = conversation({
      heartbeatMs: 0,
      maxUnreadBytes: 10_000,
      maxUnreadTotalBytes: 1000,
    })
    const { fanOut, log } = conversationOf
    // Three stop reading at once, one after another; one reads all.
    const stalled = [0, 1, 2].map(() => fanOut.subscribe({ after: 0, follow: false }))
    const reading = readAll(fanOut.subscribe({ after: 0, follow: false }))
    expect(fanOut.readers).toBe(4)
    await publishEach(conversationOf)
    // Each one alone is under its own bound (20 frames of about 80 bytes), together they are not.
    expect(fanOut.size).toBeLessThan(4)
    fanOut.endAnswer(log.lastId)
    expect((await reading).split('\n\n').length - 1).toBe(20)
    let unreadTogether = 0
    let dropped = 0
    for (const stream of stalled) {
      const held = await readAll(stream)
      const [sent, last] = held.split(/(?=event: reconnect)/)
      if (last !== undefined) {
        dropped++
        expect(last).toBe(reconnectFrame('behind', sent!.split('\n\n').length - 1))
      } else unreadTogether += held.length
    }
    expect(dropped).toBeGreaterThan(0)
    expect(unreadTogether).toBeLessThanOrEqual(1000 + 200)
  })

  it('sends the chunk that ends an answer to a subscriber not yet behind, which then ends as usual', async () => {
    const { fanOut, log, publish, frames } = conversation({ heartbeatMs: 0, maxUnreadBytes: 1000 })
    const slow = fanOut.subscribe({ after: 0, follow: false })
    publish('a')
    fanOut.flush()
    // Far past the bound once sent, as the done of a long answer is: it is sent all the same.
    publish('z'.repeat(5000))
    fanOut.endAnswer(log.lastId)
    expect(await readAll(slow)).toBe(frames.join(''))
  })

  it('sends a ping comment to a quiet subscriber', async () => {
    const { fanOut } = conversation({ heartbeatMs: 5 })
    const quiet = fanOut.subscribe({ after: 0, follow: true })
    const text = await readUntil(quiet, (seen) => seen.includes(': ping\n\n'))
    expect(text.startsWith(': ping\n\n')).toBe(true)
    fanOut.close()
  })

  it('stops sending to a subscriber whose client cancelled', async () => {
    const { fanOut, publish } = conversation()
    const gone = fanOut.subscribe({ after: 0, follow: true })
    await gone.cancel()
    expect(fanOut.size).toBe(0)
    publish('late')
    fanOut.flush()
  })

  it('sends queued frames at once past maxQueuedChars, however fast they are published', async () => {
    const { fanOut, log, publish, frames } = conversation({
      heartbeatMs: 0,
      maxQueuedChars: 1000,
      maxEvents: 1000,
    })
    const stream = fanOut.subscribe({ after: 0, follow: false })
    let most = 0
    for (let i = 0; i < 1000; i++) {
      publish('x'.repeat(60))
      most = Math.max(most, fanOut.queuedChars)
    }
    expect(most).toBeLessThan(1000)
    expect(most).toBeGreaterThan(900)
    fanOut.endAnswer(log.lastId)
    expect(await readAll(stream)).toBe(frames.join(''))
  })
})
