/**
 * What a conversation's object holds, in workerd: a replay is read from storage a page at a time
 * as its client reads (never built as one string), and the object keeps the last stored turn at
 * most, whatever the length of the answer or of the conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Turn } from '../../src/core/conversation.ts'
import { parseSse, readRest, readSse, readUntil } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-replay-0123456789'
/**
 * The most characters of frames one page of a replay may hold: four stored batches of 128 KiB,
 * each with the frame that filled it (the `test/large` model's events are 4 KiB of text).
 */
const PAGE_BOUND = 4 * (128 * 1024 + 8 * 1024)
/** A test that streams a 5 MB answer through workerd: seconds alone, many more on a busy machine. */
const LARGE_ANSWER_MS = 90_000

let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker({
    RELAY_TOKENS: TOKEN,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
    // A 5 MB answer is stored with its items: twice its text.
    CONVERSATION_MAX_BYTES: String(64 * 1024 * 1024),
  })
})

afterAll(async () => {
  await worker?.dispose()
})

function call(path: string, body?: unknown, headers: Record<string, string> = {}) {
  return worker.fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  })
}

async function create(): Promise<string> {
  const response = await call('/v1/conversations', {})
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const ask = (content: string, model: string) => ({ model, turn: { role: 'user', content } })

type Stats = {
  peakReplayChars: number
  heldEvents: number
  turns: number
  cachedTurns: number
}

async function stats(id: string): Promise<Stats> {
  return (
    (await (await worker.fetch(`/v1/__test/conversation?id=${id}`)).json()) as { stats: Stats }
  ).stats
}

async function settled(id: string): Promise<{ conversation: { turns: Turn[] } }> {
  for (let i = 0; i < 300; i++) {
    const shown = (await (await call(`/v1/conversations/${id}`)).json()) as {
      streaming: boolean
      conversation: { turns: Turn[] }
    }
    if (!shown.streaming) return shown
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the answer did not end')
}

/** The complete events of an SSE text, as sent, without comments (heartbeats). */
function frames(raw: string): string {
  const blocks = raw.split('\n\n')
  blocks.pop()
  return blocks
    .filter((block) => !block.startsWith(':'))
    .map((block) => `${block}\n\n`)
    .join('')
}

describe('what a conversation object holds, in workerd', () => {
  it(
    'replays a 5 MB answer from Last-Event-ID 0 byte for byte, a page at a time',
    async () => {
      const id = await create()
      const live = frames(
        (
          await readSse(
            await call(`/v1/conversations/${id}/messages`, ask('Large', 'test/large-burst')),
          )
        ).raw,
      )
      expect(live.length).toBeGreaterThan(5 * 1024 * 1024)
      await settled(id)
      expect((await stats(id)).peakReplayChars).toBeLessThan(64 * 1024)

      const replay = await call(`/v1/conversations/${id}/stream`, undefined, {
        'last-event-id': '0',
      })
      expect(replay.status).toBe(200)
      expect(frames((await readSse(replay)).raw)).toBe(live)
      // What the object held for it: a page of stored batches (the last with the `done` event,
      // which carries the whole 5 MB text, as the wire format says), never the replay at once.
      const done = live.slice(live.lastIndexOf('id: '))
      expect(done).toMatch(/^id: \d+\nevent: done\n/)
      const { peakReplayChars, heldEvents } = await stats(id)
      expect(peakReplayChars).toBeGreaterThan(64 * 1024)
      expect(peakReplayChars).toBeLessThanOrEqual(PAGE_BOUND + done.length)
      // Of the 5 MB of deltas before it, a page held a few batches.
      expect(peakReplayChars - done.length).toBeLessThan((live.length - done.length) / 4)
      expect(heldEvents).toBe(0)

      // From any id: exactly the events after it.
      const events = parseSse(live).events
      const middle = events[700]!.id!
      const rest = await call(`/v1/conversations/${id}/stream?lastEventId=${middle}`)
      const after = live.slice(live.indexOf(`id: ${Number(middle) + 1}\n`))
      expect(frames((await readSse(rest)).raw)).toBe(after)

      // Restarted, the object reads its last turn back from the rows it spans: a regenerate stopped
      // at once keeps it, and says so with a `done` that carries it.
      const reset = await worker.fetch(`/v1/__test/conversation?id=${id}`, { method: 'POST' })
      expect(reset.status).toBe(204)
      const regenerating = await call(`/v1/conversations/${id}/regenerate`, { model: 'test/paced' })
      const started = await readUntil(regenerating, (read) => read.events.length >= 3)
      // Kept up to what its client saw (thinking only), it leaves no version of itself.
      const shownId = started.events.at(-1)!.id!
      expect((await call(`/v1/conversations/${id}/stop?lastEventId=${shownId}`, {})).status).toBe(
        204,
      )
      const kept = parseSse(started.raw + (await readRest(regenerating))).events.at(-1)!
      expect(kept.event).toBe('done')
      expect(JSON.parse(kept.data)).toEqual(JSON.parse(events.at(-1)!.data))
    },
    LARGE_ANSWER_MS,
  )

  it('sends a client that attaches mid-answer the answer from its start, stored part first', async () => {
    const id = await create()
    const first = await call(`/v1/conversations/${id}/messages`, ask('Large', 'test/large'))
    // Past 1 MB: most of the answer is in stored batches, not in memory.
    const seen = await readUntil(first, (read) => read.raw.length > 1024 * 1024)
    const attached = await call(`/v1/conversations/${id}/stream`)
    expect(attached.status).toBe(200)
    const [rest, other] = await Promise.all([
      readRest(first),
      readSse(attached).then((read) => read.raw),
    ])
    const live = frames(seen.raw + rest)
    expect(parseSse(live).events.at(-1)!.event).toBe('done')
    expect(frames(other)).toBe(live)
    const done = live.slice(live.lastIndexOf('id: '))
    expect((await stats(id)).peakReplayChars).toBeLessThanOrEqual(PAGE_BOUND + done.length)
  })

  it('keeps at most the last turn of a long conversation in memory, and every turn in storage', async () => {
    const id = await create()
    const asked: string[] = []
    for (let i = 0; i < 30; i++) {
      asked.push(`Question ${i}`)
      const response = await call(
        `/v1/conversations/${id}/messages`,
        ask(`Question ${i}`, 'mock/echo'),
      )
      expect(response.status).toBe(200)
      await readSse(response)
    }
    const shown = await settled(id)
    expect(shown.conversation.turns).toHaveLength(60)
    expect(
      shown.conversation.turns.filter((turn) => turn.role === 'user').map((turn) => turn.content),
    ).toEqual(asked)
    const held = await stats(id)
    expect(held.turns).toBe(60)
    expect(held.cachedTurns).toBeLessThanOrEqual(1)

    // A regenerate reads what it needs from storage: the last question, answered again (in the
    // place of its answer).
    const again = await readSse(
      await call(`/v1/conversations/${id}/regenerate`, { model: 'mock/echo' }),
    )
    expect(JSON.parse(again.events[0]!.data)).toEqual({
      turn: { role: 'user', content: 'Question 29' },
      replaces: true,
    })
    expect(again.events.at(-1)!.event).toBe('done')
    expect((await settled(id)).conversation.turns).toHaveLength(60)
    expect((await stats(id)).cachedTurns).toBeLessThanOrEqual(1)
  })
})
