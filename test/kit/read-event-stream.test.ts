import { describe, expect, it } from 'vitest'
import {
  END,
  readEventStream,
  type ReadEventStreamOptions,
} from '../../src/kit/read-event-stream.ts'

const encoder = new TextEncoder()

/** A body that sends `chunks` one read each, then ends (or stays open, when `open`). */
function body(chunks: string[], open = false) {
  let cancelled = false
  let i = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++]
      if (chunk !== undefined) controller.enqueue(encoder.encode(chunk))
      else if (!open) controller.close()
      else return new Promise(() => {})
      return undefined
    },
    cancel() {
      cancelled = true
    },
  })
  return { stream, cancelled: () => cancelled }
}

const json: ReadEventStreamOptions<unknown>['decode'] = (message) =>
  message.data === '[DONE]' ? END : JSON.parse(message.data)

async function read(
  stream: ReadableStream<Uint8Array>,
  options: Partial<ReadEventStreamOptions<unknown>> = {},
) {
  const batches: unknown[][] = []
  try {
    for await (const batch of readEventStream(stream, {
      provider: 'acme',
      decode: json,
      ...options,
    }))
      batches.push(batch)
  } catch (error) {
    return { batches, error }
  }
  return { batches, error: undefined }
}

describe('readEventStream', () => {
  it('yields the events of each network read as one batch, and an empty batch for a read that completed none', async () => {
    const { stream } = body(['data: 1\n\ndata: 2\n\ndata: ', '3\n', '\n'])
    const { batches, error } = await read(stream)
    expect(error).toBeUndefined()
    expect(batches).toEqual([[1, 2], [], [3], []])
  })

  it('stops at the terminal event and releases a body that stays open after it', async () => {
    const { stream, cancelled } = body(['data: 1\n\ndata: [DONE]\n\ndata: 2\n\n'], true)
    const { batches, error } = await read(stream)
    expect(error).toBeUndefined()
    expect(batches).toEqual([[1]])
    expect(cancelled()).toBe(true)
  })

  it('fails with a network error when the body ends inside an event', async () => {
    for (const cut of ['data: 1\n\ndata: {"a":', 'data: 1\n\ndata: 2\n', 'data: 1\n\ndata: 2']) {
      const { batches, error } = await read(body([cut]).stream)
      expect(batches.flat()).toEqual([1])
      expect(error).toMatchObject({
        kind: 'network',
        message: 'acme: the stream was cut off in the middle of an event',
      })
    }
  })

  it('takes a terminal event the body ends without its blank line, as some servers send it', async () => {
    for (const ending of ['data: 1\n\ndata: [DONE]', 'data: 1\n\ndata: [DONE]\n']) {
      const { batches, error } = await read(body([ending]).stream)
      expect(error).toBeUndefined()
      expect(batches.flat()).toEqual([1])
    }
  })

  it('takes a body whose last blank line is a lone CR, or ends without a half line', async () => {
    for (const ending of [
      'data: 1\r\r',
      'data: 1\r\n\r',
      'data: 1\n\n: bye',
      'data: 1\n\nevent: x',
    ]) {
      const { batches, error } = await read(body([ending]).stream)
      expect(error).toBeUndefined()
      expect(batches.flat()).toEqual([1])
    }
  })

  it('throws what decode threw after the events before it in the same read', async () => {
    const { batches, error } = await read(body(['data: 1\n\ndata: nope\n\ndata: 3\n\n']).stream)
    expect(batches).toEqual([[1]])
    expect(error).toBeInstanceOf(SyntaxError)
  })

  it('fails with a server error on an event longer than the bound, instead of buffering it', async () => {
    const { stream, cancelled } = body(['data: 1\n\n', `data: "${'x'.repeat(100)}`], true)
    const { batches, error } = await read(stream, { maxEventChars: 64 })
    expect(batches.flat()).toEqual([1])
    expect(error).toMatchObject({
      kind: 'server',
      message: 'acme: an event of the stream is longer than 64 characters',
    })
    expect(cancelled()).toBe(true)
  })

  it('reports comments and lets inspect refuse a chunk that is not a stream', async () => {
    let comments = 0
    await read(body([': ping\n\ndata: 1\n\n: ping\n\n']).stream, { onComment: () => comments++ })
    expect(comments).toBe(2)
    const { error } = await read(body(['{"error":{"code":429}}']).stream, {
      inspect: (text) => {
        if (text.startsWith('{')) throw new Error('a JSON error body')
      },
    })
    expect(error).toMatchObject({ message: 'a JSON error body' })
  })

  it('cancels the body when its signal aborts, or when the consumer leaves early', async () => {
    const controller = new AbortController()
    const open = body(['data: 1\n\n'], true)
    const pending = read(open.stream, { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    await pending
    expect(open.cancelled()).toBe(true)

    const left = body(['data: 1\n\n', 'data: 2\n\n'], true)
    for await (const batch of readEventStream(left.stream, { provider: 'acme', decode: json })) {
      expect(batch).toEqual([1])
      break
    }
    expect(left.cancelled()).toBe(true)
  })

  it('refuses a response without a body', async () => {
    const { error } = await read(null as never)
    expect(error).toMatchObject({ kind: 'network', message: 'acme: the response has no body' })
  })
})
