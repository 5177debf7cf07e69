/**
 * Durable conversations (DESIGN §9) over real HTTP against the Worker in workerd: one Durable
 * Object per conversation runs the model call, logs its events and stores its turns.
 */
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import type { ShownAssistantTurn } from '../../src/core/wire.ts'
import { startGate, type Gate } from '../helpers/gate.ts'
import { parseSse, readRest, readSse, readUntil, type ReadSse } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'
import { LEAKED_KEY } from './fixtures/scripted-models.ts'

const ALICE = 'token-alice-0123456789'
const BOB = 'token-bob-9876543210ab'
const PACED_TEXT = 'One line of a paced answer.\n'.repeat(14)
const SEED = 14
/** The `test/large` model's answer (as the fixture makes it): about 5 MB in 1,280 events. */
const LARGE_TEXT = Array.from({ length: 200_000 }, (_, i) => `line ${i} of a large answer\n`)
  .join('')
  .slice(0, 5 * 1024 * 1024)
/** The `test/burst` model's answer, all at once: 2.5 MB in 640 events. */
const BURST_TEXT = LARGE_TEXT.slice(0, 2.5 * 1024 * 1024)
/**
 * The most characters a conversation's object may hold at once: a batch of events not yet written
 * (128 KiB of their frames) with the one that filled it.
 */
const HELD_BOUND = 128 * 1024 + 8 * 1024
/** A test that streams a 5 MB answer through workerd: seconds alone, many more on a busy machine. */
const LARGE_ANSWER_MS = 90_000

/** A conversation as an earlier relay stored it: its object's tables, and its client's index's. */
const STORED = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/stored-2026-12.json'), 'utf8'),
) as {
  id: string
  conversation: { name: string; sql: string; rows: Record<string, unknown>[] }[]
  index: { name: string; sql: string; rows: Record<string, unknown>[] }[]
}

let worker: TestWorker
let small: TestWorker
let limited: TestWorker
/** What paces `worker`'s `gated/paced` model: its deltas go when the test lets them. */
let gate: Gate

beforeAll(async () => {
  gate = await startGate()
  const base = {
    RELAY_TOKENS: `${ALICE},${BOB}`,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '2',
    HEARTBEAT_MS: '1000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  }
  ;[worker, small, limited] = await Promise.all([
    // 5 MB answers are 1.3 million tokens: no tokens-per-minute limit here (`limited` keeps one).
    startTestWorker({ ...base, RATE_LIMIT_TOKENS_PER_MINUTE: '0', MOCK_GATE_URL: gate.url }),
    startTestWorker({
      ...base,
      CONVERSATION_MAX_TURNS: '4',
      CONVERSATION_MAX_BYTES: '2000',
      CONVERSATION_MAX_PER_CLIENT: '10',
      CONVERSATION_MAX_READERS: '3',
      CONVERSATION_TTL_DAYS: '1',
      // Served: the mock only (the test Worker's scripted `test/*` models are not).
      MODELS: 'mock/*',
    }),
    startTestWorker({ ...base, RATE_LIMIT_REQUESTS_PER_MINUTE: '3' }),
  ])
})

afterAll(async () => {
  await Promise.all([worker?.dispose(), small?.dispose(), limited?.dispose()])
  await gate?.close()
})

type Call = { method?: string; body?: unknown; token?: string; headers?: Record<string, string> }

function call(path: string, options: Call = {}, signal?: AbortSignal, on = worker) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token ?? ALICE}`,
    ...options.headers,
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  return on.fetch(path, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: signal ?? null,
  })
}

async function create(on = worker, token = ALICE): Promise<string> {
  const response = await call('/v1/conversations', { body: {}, token }, undefined, on)
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

function send(id: string, body: unknown, signal?: AbortSignal, on = worker) {
  return call(`/v1/conversations/${id}/messages`, { body }, signal, on)
}

const ask = (content: string, model = 'mock/echo') => ({ model, turn: { role: 'user', content } })
/** A question to the `small` Worker: its answer's room (20 tokens, 80 bytes) fits in 2,000 bytes. */
const brief = (content: string) => ({ ...ask(content), maxTokens: 20 })

type Shown = {
  id: string
  conversation: { turns: Turn[] }
  streaming: boolean
  lastEventId: number
  lastError?: { kind: string; message: string }
}

async function get(id: string): Promise<Shown> {
  const response = await call(`/v1/conversations/${id}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Shown
}

/** The conversation once its answer has ended (polled, with a deadline). */
async function settled(id: string): Promise<Shown> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const shown = await get(id)
    if (!shown.streaming) return shown
    if (Date.now() > deadline) throw new Error('the answer did not end within 15 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The stored turns, items included, and the row writes of a conversation's object. */
async function stored(id: string) {
  const response = await worker.fetch(`/v1/__test/conversation?id=${id}`)
  return (await response.json()) as {
    stats: {
      rowsWritten: number
      lastEventId: number
      heldEvents: number
      heldChars: number
      peakHeldChars: number
      tables: number
      firstKeptEventId: number
    }
    turns: Turn[]
  }
}

/** The rows of a conversation's stored events, in id order (its database, dumped). */
async function storedEvents(id: string) {
  const response = await worker.fetch(`/v1/__test/conversation?id=${id}&dump=1`)
  const tables = (await response.json()) as { name: string; rows: Record<string, unknown>[] }[]
  const rows = tables.find((table) => table.name === 'events')?.rows ?? []
  return rows
    .map((row) => ({
      first_id: Number(row['first_id']),
      last_id: Number(row['last_id']),
      frames: String(row['frames']),
    }))
    .toSorted((a, b) => a.first_id - b.first_id)
}

/**
 * Reads a long SSE body as it arrives (parsing each chunk once), calling `onEvent` for each event
 * and awaiting it, so the reader can look at the object between events. Returns every event.
 */
async function readEach(
  response: Response,
  onEvent: (event: EventSourceMessage, index: number) => Promise<void> | void,
): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (event) => events.push(event) })
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let handled = 0
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    parser.feed(decoder.decode(step.value, { stream: true }))
    while (handled < events.length) await onEvent(events[handled]!, handled++)
  }
  return events
}

/** Whether an event is a delta of the answer (its thinking or its text). */
function isDelta(event: EventSourceMessage): boolean {
  return event.event === 'thinking' || event.event === 'text'
}

/** The thinking and text of a stream's events, joined in order. */
function deltasOf(read: ReadSse): string {
  return read.events
    .filter(isDelta)
    .map((event) => (JSON.parse(event.data) as { text: string }).text)
    .join('')
}

/** The text of a stream's `text` events, joined. */
function textOf(events: readonly EventSourceMessage[]): string {
  return events
    .filter((event) => event.event === 'text')
    .map((event) => (JSON.parse(event.data) as { text: string }).text)
    .join('')
}

/** The complete events of an SSE text, as sent, without comments (heartbeats). */
function frames(raw: string): string {
  const blocks = raw.split('\n\n')
  // The last block is incomplete (or empty): only whole events count.
  blocks.pop()
  return blocks
    .filter((block) => !block.startsWith(':'))
    .map((block) => `${block}\n\n`)
    .join('')
}

function names(read: ReadSse): (string | undefined)[] {
  return read.events.map((event) => event.event)
}

function lastDone(read: ReadSse): AssistantTurn {
  const last = read.events.at(-1)!
  expect(last.event).toBe('done')
  return (JSON.parse(last.data) as { turn: AssistantTurn }).turn
}

/** A small seeded generator (mulberry32), so a failing cut point can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Sends a message to `gated/paced` with the gate holding, and lets `steps` of its deltas go: the
 * answer then waits, mid-way, for the test's next step (`gate.open()` lets the rest go at once).
 */
async function sendHeld(id: string, content: string, steps: number, signal?: AbortSignal) {
  gate.hold()
  const response = await send(id, ask(content, 'gated/paced'), signal)
  await gate.sendUntil((sent) => sent.steps >= steps)
  return response
}

describe('durable conversations in workerd', () => {
  // An answer a test left held goes on at once for the next test.
  afterEach(() => gate.open())

  it('creates, lists, shows, answers and deletes a conversation', async () => {
    const id = await create()
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    const listed = (await (await call('/v1/conversations')).json()) as {
      conversations: { id: string; title: string | null; streaming: boolean }[]
    }
    expect(listed.conversations.find((c) => c.id === id)).toMatchObject({
      title: null,
      streaming: false,
    })

    const response = await send(id, ask('Hello   there,\nrelay'))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const read = await readSse(response)
    expect(names(read)[0]).toBe('turn')
    expect(names(read).at(-1)).toBe('done')
    expect(new Set(names(read))).toEqual(new Set(['turn', 'thinking', 'text', 'done']))
    const ids = read.events.map((event) => Number(event.id))
    expect(ids).toEqual(ids.map((_, i) => i + 1))
    expect(lastDone(read).items).toBeUndefined()

    const shown = await settled(id)
    expect(shown.id).toBe(id)
    expect(shown.lastEventId).toBe(ids.at(-1))
    expect(shown.conversation.turns.map((turn) => turn.role)).toEqual(['user', 'assistant'])
    expect(shown.conversation.turns[1]).toEqual(lastDone(read))
    expect(JSON.stringify(shown)).not.toContain('"items"')
    // The stored turn keeps its items; the browser never sees them.
    expect((await stored(id)).turns[1]).toMatchObject({ items: { provider: 'mock' } })

    const deadline = Date.now() + 5000
    let entry: { title: string | null; streaming: boolean } | undefined
    do {
      const list = (await (await call('/v1/conversations')).json()) as {
        conversations: { id: string; title: string | null; streaming: boolean }[]
      }
      entry = list.conversations.find((c) => c.id === id)
    } while (entry?.streaming !== false && Date.now() < deadline)
    expect(entry).toMatchObject({ title: 'Hello there, relay', streaming: false })

    expect((await call(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await call(`/v1/conversations/${id}`)).status).toBe(404)
    const after = (await (await call('/v1/conversations')).json()) as {
      conversations: { id: string }[]
    }
    expect(after.conversations.some((c) => c.id === id)).toBe(false)
  })

  it('leaves no database behind for an id it never made, nor for one it deleted', async () => {
    // A well-formed id nobody made: every route answers 404 and writes nothing, not even tables.
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAB'
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/stream'],
      ['POST', '/stop'],
      ['DELETE', ''],
    ] as const) {
      const response = await call(`/v1/conversations/${unknown}${suffix}`, { method })
      expect(response.status, `${method} ${suffix}`).toBe(404)
    }
    expect((await stored(unknown)).stats).toMatchObject({ tables: 0, rowsWritten: 0 })
    const id = await create()
    await readSse(await send(id, ask('Hi')))
    expect((await stored(id)).stats.tables).toBeGreaterThan(0)
    expect((await call(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await stored(id)).stats.tables).toBe(0)
  })

  it('reads the stored turns without items, byte for byte as encoding them again would', async () => {
    const id = await create()
    await readSse(await send(id, ask('Ünïcödé 🧠 "quotes" \\ and \u2028 line')))
    await readSse(await send(id, ask('x'.repeat(600_000))))
    const { turns } = await stored(id)
    expect(turns.filter((turn) => 'items' in turn)).toHaveLength(2)
    const text = await (await call(`/v1/conversations/${id}`)).text()
    const shown = turns.map((turn) => {
      if (turn.role !== 'assistant') return turn
      const { items: _items, ...rest } = turn
      return rest
    })
    expect(text).toContain(`"conversation":${JSON.stringify({ turns: shown })},`)
  })

  it('answers a read the client holds already with 304, and a changed one in full', async () => {
    const id = await create()
    await readSse(await send(id, ask('Tag me')))
    const first = await call(`/v1/conversations/${id}`)
    const tag = first.headers.get('etag')
    expect(tag).toMatch(/^"[\w-]+"$/)
    expect(first.headers.get('cache-control')).toBe('private, no-cache')
    const held = await call(`/v1/conversations/${id}`, { headers: { 'if-none-match': tag! } })
    expect(held.status).toBe(304)
    expect(await held.text()).toBe('')
    // Another answer changes it: the whole conversation again, under another tag.
    await readSse(await send(id, ask('And again')))
    const changed = await call(`/v1/conversations/${id}`, { headers: { 'if-none-match': tag! } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(tag)
    expect(((await changed.json()) as Shown).conversation.turns).toHaveLength(4)
  })

  it('answers 404 to another client on every route, and to ids it never made', async () => {
    const id = await create()
    const routes: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['DELETE', '', undefined],
      ['POST', '/messages', ask('Hi')],
      ['POST', '/regenerate', { model: 'mock/echo' }],
      ['GET', '/stream?follow=true', undefined],
      ['POST', '/stop', undefined],
    ]
    for (const [method, suffix, body] of routes) {
      const response = await call(`/v1/conversations/${id}${suffix}`, {
        method,
        body,
        token: BOB,
        // A client cannot claim another client's id: the Worker sets this header itself.
        headers: { 'x-thinkwire-client': 'anonymous' },
      })
      expect(response.status, `${method} ${suffix}`).toBe(404)
      expect(((await response.json()) as { error: { kind: string } }).error.kind).toBe(
        'invalid-request',
      )
    }
    const list = (await (await call('/v1/conversations', { token: BOB })).json()) as {
      conversations: { id: string }[]
    }
    expect(list.conversations.some((c) => c.id === id)).toBe(false)
    expect((await call('/v1/conversations/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404)
    expect((await call('/v1/conversations/not-an-id')).status).toBe(404)
    expect((await get(id)).conversation.turns).toEqual([])
    expect((await call(`/v1/conversations/${id}`, { method: 'PUT' })).status).toBe(405)
    const wrong = await call(`/v1/conversations/${id}/stop`)
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS')
    expect((await worker.fetch(`/v1/conversations/${id}`)).status).toBe(401)
  })

  it('resumes after an abort at a random point with exactly the uninterrupted bytes', async () => {
    // Each answer is timed on its own: how long it thought is the one figure that may differ.
    const untimed = (text: string) => text.replace(/"thinkingMs":\d+/, '"thinkingMs":0')
    const whole = await create()
    // The gate is open: this answer goes at once.
    const full = untimed(
      frames((await readSse(await send(whole, ask('Pace it', 'gated/paced')))).raw),
    )
    const total = parseSse(full).events.length
    expect(total).toBeGreaterThan(50)
    const deltas = parseSse(full).events.filter(isDelta).length

    const random = seeded(SEED)
    try {
      for (let round = 0; round < 3; round++) {
        // The client leaves after `cut` deltas; the answer goes on to `resumed` before it is back,
        // and on past it (one delta at least) once it is.
        const cut = Math.floor(random() * (deltas - 1))
        const resumed = cut + Math.floor(random() * (deltas - cut))
        const id = await create()
        const controller = new AbortController()
        gate.hold()
        const response = await send(id, ask('Pace it', 'gated/paced'), controller.signal)
        const sent = await gate.sendUntil((gone) => gone.steps >= cut)
        const seen = await readUntil(
          response,
          (read) =>
            read.events[0]?.event === 'turn' && deltasOf(read) === sent.thinking + sent.text,
        )
        controller.abort()
        await gate.sendUntil((gone) => gone.steps >= resumed)
        const before = frames(seen.raw)
        const lastId = parseSse(before).events.at(-1)!.id
        const rest = await call(`/v1/conversations/${id}/stream`, {
          headers: { 'last-event-id': lastId! },
        })
        expect(rest.status).toBe(200)
        gate.open()
        const after = frames((await readSse(rest)).raw)
        expect(
          untimed(before + after),
          `seed ${SEED}, round ${round}: left after ${cut} deltas, back after ${resumed}`,
        ).toBe(full)
      }
    } finally {
      gate.open()
    }
  })

  it('keeps answering when its client leaves, and stores the answer complete', async () => {
    const id = await create()
    const controller = new AbortController()
    const response = await sendHeld(id, 'Leave early', 3, controller.signal)
    await readUntil(response, (read) => read.events.length >= 3)
    controller.abort()
    gate.open()

    const shown = await settled(id)
    const answer = shown.conversation.turns[1] as AssistantTurn
    expect(answer).toMatchObject({ role: 'assistant', text: PACED_TEXT, stopReason: 'stop' })
    expect((await stored(id)).turns[1]).toMatchObject({ items: { provider: 'gated' } })
    // Everything is still there to replay, ending in the same turn.
    const replay = await readSse(
      await call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': '0' } }),
    )
    expect(lastDone(replay)).toEqual(answer)
  })

  it('ends every stream of a conversation deleted mid-answer with a reconnect event', async () => {
    const id = await create()
    const first = await sendHeld(id, 'Delete me', 3)
    const second = await call(`/v1/conversations/${id}/stream`)
    const seen = await readUntil(first, (read) => read.events.length >= 3)
    expect((await call(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204)
    for (const read of [parseSse(seen.raw + (await readRest(first))), await readSse(second)]) {
      // No done or error: the relay says it closed the stream, and after which event.
      const last = read.events.at(-1)!
      expect(last.event).toBe('reconnect')
      expect(last.id).toBeUndefined()
      const ids = read.events.filter((event) => event.id !== undefined).map((e) => Number(e.id))
      expect(JSON.parse(last.data)).toEqual({ reason: 'closed', lastEventId: ids.at(-1) })
      expect(names(read)).not.toContain('done')
    }
    // Resuming finds nothing: the conversation is gone.
    expect((await call(`/v1/conversations/${id}/stream?lastEventId=1`)).status).toBe(404)
  })

  it('sends two subscribers the same events, and a late one the answer from its start', async () => {
    const id = await create()
    const first = await sendHeld(id, 'Together', 3)
    const second = await call(`/v1/conversations/${id}/stream`)
    expect(second.status).toBe(200)
    gate.open()
    const [a, b] = await Promise.all([readSse(first), readSse(second)])
    expect(frames(b.raw)).toBe(frames(a.raw))
    expect(names(a)[0]).toBe('turn')
    expect(names(a).at(-1)).toBe('done')
  })

  it('gives many resumes opened during an answer and after it the same bytes, each to its end', async () => {
    const id = await create()
    const first = await sendHeld(id, 'Many readers', 3)
    const seen = await readUntil(first, (read) => read.events.length >= 3)
    // Resumes from the start and from each event seen so far, by the id they last saw.
    const froms = ['0', ...seen.events.slice(0, 2).map((event) => event.id!)]
    const open = (from: string) =>
      call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': from } })
    const readFrom = (from: string, response: Response) =>
      readSse(response).then((read) => ({ from: Number(from), read }))
    const resume = (from: string) => open(from).then((response) => readFrom(from, response))
    // 15 opened while the answer waits mid-way, then 30 at once after it ended.
    const opened = await Promise.all(
      Array.from({ length: 15 }, (_, i) => froms[i % froms.length]!).map(
        async (from) => [from, await open(from)] as const,
      ),
    )
    gate.open()
    const during = opened.map(([from, response]) => readFrom(from, response))
    const sent = frames(seen.raw + (await readRest(first)))
    const after = Array.from({ length: 30 }, (_, i) => resume(froms[i % froms.length]!))
    const replay = await resume('0')
    // The answer's own stream, a resume from its start: the same frames.
    expect(frames(replay.read.raw)).toBe(sent)
    const framesAfter = (from: number) =>
      frames(replay.read.raw)
        .split(/(?<=\n\n)/)
        .filter((frame) => Number(/^id: (\d+)$/m.exec(frame)?.[1]) > from)
        .join('')
    for (const [i, { from, read }] of (await Promise.all([...during, ...after])).entries()) {
      expect(names(read).at(-1), `resume ${i} from ${from}`).toBe('done')
      expect(frames(read.raw), `resume ${i} from ${from}`).toBe(framesAfter(from))
    }
  }, 60_000)

  it('keeps the events of the last answer only, and resets a resume from before them', async () => {
    const id = await create()
    const first = await readSse(await send(id, ask('One')))
    for (let i = 0; i < 5; i++) {
      await readSse(
        await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'mock/echo' } }),
      )
    }
    const last = await readSse(await send(id, ask('Two')))
    // Stored: the events of the last answer, from its `turn`.
    const lastFirst = Number(last.events[0]!.id)
    expect((await stored(id)).stats.firstKeptEventId).toBe(lastFirst)
    // A resume from before them: the conversation as it is now, standing for every event up to
    // the last, and nothing more.
    const shown = await get(id)
    for (const from of ['0', first.events.at(-1)!.id!, String(lastFirst - 2)]) {
      const resumed = await readSse(
        await call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': from } }),
      )
      expect(names(resumed), `from ${from}`).toEqual(['reset'])
      expect(resumed.events[0]!.id).toBe(String(shown.lastEventId))
      expect(JSON.parse(resumed.events[0]!.data)).toEqual({
        conversation: shown.conversation,
        streaming: false,
        queue: [],
      })
    }
    // From within them: exactly the events after the id, as before.
    const within = await readSse(
      await call(`/v1/conversations/${id}/stream`, {
        headers: { 'last-event-id': String(lastFirst - 1) },
      }),
    )
    expect(frames(within.raw)).toBe(frames(last.raw))
    // With an answer in flight: the conversation as it was before its question, standing for
    // every event before the question's `turn`, then the answer from that `turn`.
    const running = await sendHeld(id, 'Three', 1)
    const seen = await readUntil(running, (read) => read.events.length >= 2)
    const turnId = Number(seen.events[0]!.id)
    const joining = await call(`/v1/conversations/${id}/stream`, {
      headers: { 'last-event-id': '1' },
    })
    gate.open()
    const joined = await readSse(joining)
    const answered = parseSse(seen.raw + (await readRest(running)))
    expect(names(joined)[0]).toBe('reset')
    expect(joined.events[0]!.id).toBe(String(turnId - 1))
    expect(JSON.parse(joined.events[0]!.data)).toEqual({
      conversation: shown.conversation,
      streaming: true,
      queue: [],
    })
    expect(frames(joined.raw).slice(frames(joined.raw).indexOf('\n\n') + 2)).toBe(
      frames(answered.raw),
    )
  })

  it('reads a conversation as the code before it stored it, and goes on with it', async () => {
    // Stored by the relay as it was on 2026-12-06 (393cff7): a system prompt, an answer, its
    // regenerate and a stopped answer, every event logged; and its line in the client's index.
    const { id, conversation, index } = STORED
    const load = async (name: string, tables: unknown) => {
      const path = `/v1/__test/conversation?id=${encodeURIComponent(name)}&load=1`
      const loaded = await worker.fetch(path, { method: 'POST', body: JSON.stringify(tables) })
      expect(loaded.status).toBe(204)
    }
    const owner = (
      JSON.parse(String(conversation.find((table) => table.name === 'meta')!.rows[0]!['json'])) as {
        owner: string
      }
    ).owner
    await load(id, conversation)
    await load(`client:${owner}`, index)

    const shown = await get(id)
    expect(shown.streaming).toBe(false)
    expect(shown.conversation).toMatchObject({ system: 'Be brief.' })
    expect(shown.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(shown.conversation.turns[3]).toMatchObject({ stopReason: 'aborted' })
    expect(shown.conversation.turns.some((turn) => 'items' in turn)).toBe(false)
    const list = (await (await call('/v1/conversations')).json()) as {
      conversations: { id: string; title: string | null }[]
    }
    expect(list.conversations).toContainEqual(
      expect.objectContaining({ id, title: 'Hello, stored world' }),
    )
    // Its whole log, as it was written: three answers, the last one stopped.
    const replay = await readSse(
      await call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': '0' } }),
    )
    expect(names(replay).filter((name) => name === 'turn')).toHaveLength(3)
    expect(lastDone(replay)).toEqual(shown.conversation.turns[3])
    // And on: a message answered (its items replayed to the model), then a regenerate.
    const next = await readSse(await send(id, ask('And now?')))
    expect(lastDone(next).text).toContain('And now?')
    const again = await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'mock/echo' } })
    expect(names(await readSse(again)).at(-1)).toBe('done')
    expect((await get(id)).conversation.turns).toHaveLength(6)
  })

  it('stops for every subscriber when one stops, storing what arrived without items', async () => {
    const id = await create()
    const first = await sendHeld(id, 'Stop me', 5)
    const second = await call(`/v1/conversations/${id}/stream`)
    const reading = readSse(second)
    const seen = await readUntil(first, (read) => read.events.length >= 5)
    const stop = await call(`/v1/conversations/${id}/stop`, { method: 'POST' })
    expect(stop.status).toBe(204)

    const rest = parseSse(seen.raw + (await readRest(first)))
    const other = await reading
    for (const read of [rest, other]) {
      const turn = lastDone(read)
      expect(turn.stopReason).toBe('aborted')
      expect(turn.items).toBeUndefined()
      expect(PACED_TEXT.startsWith(turn.text)).toBe(true)
      expect(turn.text.length).toBeLessThan(PACED_TEXT.length)
    }
    expect(frames(other.raw)).toBe(frames(rest.raw))

    const shown = await get(id)
    expect(shown.streaming).toBe(false)
    expect(shown.conversation.turns[1]).toEqual(lastDone(other))
    const kept = (await stored(id)).turns
    expect(kept[1]).not.toHaveProperty('items')
    expect(kept[1]).toMatchObject({ stopReason: 'aborted' })
  })

  it('keeps a stopped answer up to the last event its stopping client showed, for every subscriber', async () => {
    const id = await create()
    gate.hold()
    const first = await send(id, ask('Stop where I looked', 'gated/paced'))
    await gate.sendUntil((sent) => sent.text.length >= 24)
    const second = await call(`/v1/conversations/${id}/stream`)
    const reading = readSse(second)
    const texts = (read: ReadSse) => read.events.filter((event) => event.event === 'text')
    const seen = await readUntil(first, (read) => texts(read).length >= 6)
    // The stopping client showed the first three pieces of text; what came after, it never drew.
    const shown = texts(seen).slice(0, 3)
    const stop = await call(`/v1/conversations/${id}/stop?lastEventId=${shown.at(-1)!.id}`, {
      method: 'POST',
    })
    expect(stop.status).toBe(204)

    const rest = parseSse(seen.raw + (await readRest(first)))
    const other = await reading
    expect(textOf(rest.events).length).toBeGreaterThan(textOf(shown).length)
    for (const read of [rest, other]) {
      expect(lastDone(read)).toMatchObject({ text: textOf(shown), stopReason: 'aborted' })
      expect(lastDone(read).thinking).toBe('Pacing myself. ')
    }
    expect((await get(id)).conversation.turns[1]).toEqual(lastDone(other))
    // A stop sent again (another tab's) keeps what the first kept.
    expect(
      (await call(`/v1/conversations/${id}/stop?lastEventId=1`, { method: 'POST' })).status,
    ).toBe(204)
    expect((await get(id)).conversation.turns[1]).toEqual(lastDone(other))
  })

  it('answers a stop once what it keeps is stored: a crash right after loses none of it', async () => {
    const id = await create()
    // Its upstream takes half a second to close once stopped: a 204 sent before that would be
    // followed by the crash before anything is stored.
    const running = await send(id, ask('Stop, then crash', 'test/slow-stop'))
    const seen = await readUntil(running, (read) => textOf(read.events).length > 0)
    const lastId = seen.events.at(-1)!.id!
    const stop = await call(`/v1/conversations/${id}/stop?lastEventId=${lastId}`, {
      method: 'POST',
    })
    expect(stop.status).toBe(204)
    // The object is reset at once: its memory and every open request are gone.
    const reset = await worker.fetch(`/v1/__test/conversation?id=${id}`, { method: 'POST' })
    expect(reset.status).toBe(204)
    await readRest(running).catch(() => '')
    const shown = await get(id)
    expect(shown.streaming).toBe(false)
    expect(shown.conversation.turns[1]).toMatchObject({
      role: 'assistant',
      text: textOf(seen.events),
      stopReason: 'aborted',
    })
    expect(shown).not.toHaveProperty('lastError')
  })

  it('refuses a stop whose Last-Event-ID is not a whole number, and stops nothing', async () => {
    const id = await create()
    const running = await sendHeld(id, 'Keep going', 1)
    for (const [query, headers] of [
      ['?lastEventId=soon', {}],
      ['', { 'last-event-id': '-3' }],
    ] as const) {
      const stop = await call(`/v1/conversations/${id}/stop${query}`, { method: 'POST', headers })
      expect(stop.status).toBe(400)
      await expect(stop.json()).resolves.toMatchObject({
        error: { kind: 'invalid-request', field: 'Last-Event-ID' },
      })
    }
    gate.open()
    expect(lastDone(await readSse(running))).toMatchObject({ text: PACED_TEXT, stopReason: 'stop' })
  })

  it('keeps how long each answer thought with its turn, in its done and in GET, and none for one that did not think', async () => {
    const id = await create()
    const thought = lastDone(await readSse(await send(id, ask('Think first', 'gated/paced'))))
    expect((thought as ShownAssistantTurn).thinkingMs).toEqual(expect.any(Number))
    expect((thought as ShownAssistantTurn).thinkingMs).toBeGreaterThanOrEqual(0)
    const plain = lastDone(await readSse(await send(id, ask('Just say it', 'test/short'))))
    expect(plain).not.toHaveProperty('thinkingMs')
    const shown = await settled(id)
    expect(shown.conversation.turns[1]).toEqual(thought)
    expect(shown.conversation.turns[3]).toEqual(plain)
  })

  it('queues a second message while an answer runs, refuses a regenerate, and says 204 when idle', async () => {
    const id = await create()
    expect((await call(`/v1/conversations/${id}/stop`, { method: 'POST' })).status).toBe(204)
    expect((await call(`/v1/conversations/${id}/stream`)).status).toBe(204)
    const empty = await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'mock/echo' } })
    expect(empty.status).toBe(409)

    const running = await sendHeld(id, 'First', 1)
    const queued = await send(id, ask('Second'))
    expect(queued.status).toBe(202)
    expect(await queued.json()).toEqual({ queued: 1 })
    const cleared = await call(`/v1/conversations/${id}/queue`, { method: 'DELETE' })
    expect(cleared.status).toBe(204)
    const again = await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'mock/echo' } })
    expect(again.status).toBe(409)
    gate.open()
    const read = await readSse(running)
    const lastId = read.events.at(-1)!.id!
    await settled(id)

    // Nothing in flight: nothing missed is 204, a resume from before the end replays the rest.
    const none = await call(`/v1/conversations/${id}/stream`, {
      headers: { 'last-event-id': lastId },
    })
    expect(none.status).toBe(204)
    const tail = await call(`/v1/conversations/${id}/stream?lastEventId=${Number(lastId) - 1}`)
    expect(names(await readSse(tail))).toEqual(['done'])
    const bad = await call(`/v1/conversations/${id}/stream`, {
      headers: { 'last-event-id': 'yesterday' },
    })
    expect(bad.status).toBe(400)
  })

  it('keeps a failed answer out, tells every subscriber, and regenerates it', async () => {
    const id = await create()
    const failed = await readSse(await send(id, ask('Break', 'test/break')))
    expect(names(failed).at(-1)).toBe('error')
    const error = JSON.parse(failed.events.at(-1)!.data) as { kind: string; retryable: boolean }
    expect(error.kind).toBe('server')

    const shown = await settled(id)
    expect(shown.conversation.turns).toEqual([{ role: 'user', content: 'Break' }])
    expect(shown.lastError?.kind).toBe('server')

    const retried = await readSse(
      await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'mock/echo' } }),
    )
    expect(names(retried)[0]).toBe('turn')
    expect(JSON.parse(retried.events[0]!.data)).toEqual({
      turn: { role: 'user', content: 'Break' },
    })
    const after = await settled(id)
    expect(after.lastError).toBeUndefined()
    expect(after.conversation.turns.map((turn) => turn.role)).toEqual(['user', 'assistant'])
  })

  it('keeps a provider key out of a failure it sends and stores, from any adapter', async () => {
    const id = await create()
    const failed = await readSse(await send(id, ask('Leak', 'test/leak')))
    expect(names(failed).at(-1)).toBe('error')
    const shown = await settled(id)
    expect(shown.lastError?.message).toContain('[redacted]')
    const everything = JSON.stringify(failed.events) + JSON.stringify(shown)
    expect(everything).not.toContain(LEAKED_KEY.slice(7))
  })

  it('replaces the last answer only once its regenerate completes', async () => {
    const id = await create()
    const first = await readSse(await send(id, ask('Twice')))
    // A message's answer adds a turn: its `turn` event says nothing of replacing.
    expect(JSON.parse(first.events[0]!.data)).toEqual({ turn: { role: 'user', content: 'Twice' } })
    const original = (await settled(id)).conversation.turns[1]

    const regenerating = await call(`/v1/conversations/${id}/regenerate`, {
      body: { model: 'test/paced' },
    })
    // Stopped where its client had seen only thinking: no text, so no version of it is kept.
    const seen = await readUntil(regenerating, (read) => read.events.length >= 4)
    const shownId = seen.events.at(-1)!.id!
    const stop = await call(`/v1/conversations/${id}/stop?lastEventId=${shownId}`, {
      method: 'POST',
    })
    expect(stop.status).toBe(204)
    const kept = await get(id)
    expect(kept.conversation.turns).toHaveLength(2)
    expect(kept.conversation.turns[1]).toEqual(original)

    const done = await readSse(
      await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'test/paced' } }),
    )
    // A regenerate's says its answer replaces the last one, for every tab that follows.
    expect(done.events[0]!.event).toBe('turn')
    expect(JSON.parse(done.events[0]!.data)).toEqual({
      turn: { role: 'user', content: 'Twice' },
      replaces: true,
    })
    const replaced = await settled(id)
    expect(replaced.conversation.turns).toHaveLength(2)
    expect(replaced.conversation.turns[1]).toEqual(lastDone(done))
    expect(replaced.conversation.turns[1]).toMatchObject({ text: PACED_TEXT })
  })

  it('continues a tool loop with a tool turn that answers the last calls', async () => {
    const id = await create()
    const read = await readSse(await send(id, ask('Weather?', 'test/tools')))
    const call0 = lastDone(read).toolCalls![0]!
    const wrong = await send(id, {
      model: 'mock/echo',
      turn: { role: 'tool', results: [{ callId: 'nope', name: 'lookup', output: 1 }] },
    })
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as { error: { field: string } }).error.field).toBe(
      'turn.results[0].callId',
    )
    const result = { callId: call0.id, name: 'lookup', output: { temperature: 21 } }
    const answered = await readSse(
      await send(id, { model: 'mock/echo', turn: { role: 'tool', results: [result] } }),
    )
    expect(names(answered).at(-1)).toBe('done')
    const shown = await settled(id)
    expect(shown.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    const misplaced = await send(id, {
      model: 'mock/echo',
      turn: { role: 'tool', results: [result] },
    })
    expect(misplaced.status).toBe(400)
    const assistant = await send(id, { model: 'mock/echo', turn: { role: 'assistant', text: '' } })
    expect(((await assistant.json()) as { error: { field: string } }).error.field).toBe('turn.role')
    const unknown = await send(id, { ...ask('Hi'), model: 'nobody/none' })
    expect(unknown.status).toBe(404)
  })

  it('follows an idle conversation and delivers every later answer', async () => {
    const id = await create()
    const controller = new AbortController()
    const follower = await call(`/v1/conversations/${id}/stream?follow=true`, {}, controller.signal)
    expect(follower.status).toBe(200)
    await readSse(await send(id, ask('One')))
    await settled(id)
    await readSse(await send(id, ask('Two')))
    const seen = await readUntil(
      follower,
      (read) => read.events.filter((event) => event.event === 'done').length >= 2,
    )
    controller.abort()
    const turns = seen.events.filter((event) => event.event === 'turn').map((e) => e.data)
    expect(turns.map((data) => JSON.parse(data))).toEqual([
      { turn: { role: 'user', content: 'One' } },
      { turn: { role: 'user', content: 'Two' } },
    ])
  })

  it('writes a 1,000-event answer in at most 25 rows', async () => {
    const id = await create()
    const before = (await stored(id)).stats.rowsWritten
    const read = await readSse(await send(id, ask('Long', 'test/long')))
    expect(read.events.filter((event) => event.event === 'text')).toHaveLength(1000)
    await settled(id)
    const { stats, turns } = await stored(id)
    const rows = stats.rowsWritten - before
    console.log(`row writes for a ${read.events.length}-event answer: ${rows}`)
    expect(rows).toBeLessThanOrEqual(25)
    expect(turns[1]).toMatchObject({ text: 'abcdefghij'.repeat(100) })
    // Every event is still there to replay.
    const replay = await call(`/v1/conversations/${id}/stream`, {
      headers: { 'last-event-id': '0' },
    })
    expect(frames((await readSse(replay)).raw)).toBe(frames(read.raw))
  })

  it("holds a 1,000-event answer's events unwritten, and resumes from every 37th id exact", async () => {
    const id = await create()
    const read = await readSse(await send(id, ask('Long', 'test/long')))
    await settled(id)
    // The turns say what the events said: an answer that ends writes none of them.
    expect(await storedEvents(id)).toEqual([])
    const all = frames(read.raw).split(/(?<=\n\n)/)
    expect(all).toHaveLength(1002)
    for (let after = 0; after < all.length; after += 37) {
      const resumed = await call(`/v1/conversations/${id}/stream?lastEventId=${after}`)
      expect(frames((await readSse(resumed)).raw), `after ${after}`).toBe(all.slice(after).join(''))
    }
  })

  it(
    "stores a long answer's batches as the frames sent, read back exact",
    async () => {
      const id = await create()
      const read = await readSse(await send(id, ask('Large', 'test/burst')))
      await settled(id)
      const rows = await storedEvents(id)
      const sent = parseSse(frames(read.raw)).events
      const all = frames(read.raw).split(/(?<=\n\n)/)
      // One batch after another, from the `turn` to the `done`, each as the frames sent.
      expect(rows[0]!.first_id).toBe(1)
      expect(rows.at(-1)!.last_id).toBe(sent.length)
      for (const [i, row] of rows.entries()) {
        if (i > 0) expect(row.first_id).toBe(rows[i - 1]!.last_id + 1)
        // The batch of the `done` (which holds the whole text) is over a row, stored in parts.
        if (row.frames === '') {
          expect(row.last_id).toBe(sent.length)
          continue
        }
        expect(row.frames === all.slice(row.first_id - 1, row.last_id).join(''), `batch ${i}`).toBe(
          true,
        )
      }
      expect(rows[0]!.frames).toMatch(/^id: 1\nevent: turn\n/)
      // Resumed across the batches, byte for byte.
      for (const after of [0, rows[0]!.last_id, rows[0]!.last_id + 1, sent.length - 1]) {
        const resumed = await call(`/v1/conversations/${id}/stream?lastEventId=${after}`)
        expect(frames((await readSse(resumed)).raw), `after ${after}`).toBe(
          all.slice(after).join(''),
        )
      }
    },
    LARGE_ANSWER_MS,
  )

  it.each(['route', 'bare'] as const)(
    "answers the CPU bench's %s floor with what /v1/chat sends, and stores its two turns",
    async (floor) => {
      // The floors (`?floor=route` on a /v1/chat body, `?floor=bare` on a message; the test
      // Worker's object only) are what a conversation's CPU is measured against in
      // bench/conversations.ts: /v1/chat's bytes from the object, with the rows a durable answer
      // writes, the user turn and the answer.
      const body = { model: 'test/tokens', conversation: { turns: [ask('Go').turn] } }
      const chat = await call('/v1/chat', { body })
      const id = await create()
      const answered = await call(`/v1/conversations/${id}/messages?floor=${floor}`, {
        body: floor === 'route' ? body : ask('Go', 'test/tokens'),
      })
      expect(answered.status).toBe(200)
      // The scripted model numbers its calls in its items: the one difference between two answers.
      const uncounted = (text: string) => text.replace(/"callIndex":\d+/, '"callIndex":0')
      const chatText = uncounted(await chat.text())
      expect(chatText.match(/\nevent: text\n/g)).toHaveLength(1000)
      const floorText = await answered.text()
      expect(uncounted(floorText) === chatText).toBe(true)
      const done = /\nevent: done\ndata: (.*)\n\n$/.exec(floorText)![1]!
      const dump = await worker.fetch(`/v1/__test/conversation?id=${id}&dump=1`)
      const tables = (await dump.json()) as { name: string; rows: { json: string }[] }[]
      const rows = tables.find((table) => table.name === 'floor_turns')!.rows
      const turns = rows.map((row) => JSON.parse(row.json) as unknown)
      expect(turns).toEqual([ask('Go').turn, (JSON.parse(done) as { turn: unknown }).turn])
    },
  )

  it(
    'holds at most a batch of a 2.5 MB answer that arrives at once, and stores it whole',
    async () => {
      // Forty batches: holding more than one would show. Over a row's 2 MB, the turn (and the
      // batch of its `done`) is stored across rows: a smaller answer would not prove that.
      const id = await create()
      const response = await send(id, ask('Large', 'test/burst'))
      expect(response.status).toBe(200)
      const events = await readEach(response, () => {})
      expect(events.filter((event) => event.event === 'text')).toHaveLength(640)
      expect(textOf(events)).toBe(BURST_TEXT)
      await settled(id)
      const { stats, turns } = await stored(id)
      // The most held at any point of the answer (about a batch of frames), then nothing once it
      // ended.
      expect(stats.peakHeldChars).toBeGreaterThan(96 * 1024)
      expect(stats.peakHeldChars).toBeLessThanOrEqual(HELD_BOUND)
      expect(stats.heldEvents).toBe(0)
      expect(turns[1]).toMatchObject({ role: 'assistant', text: BURST_TEXT, stopReason: 'stop' })
    },
    LARGE_ANSWER_MS,
  )

  it(
    'stores exactly the text streamed so far when a 5 MB answer stops in the middle',
    async () => {
      const id = await create()
      const held: number[] = []
      let streamed = 0
      let stopping: Promise<Response> | undefined
      const response = await send(id, ask('Large', 'test/large'))
      expect(response.status).toBe(200)
      const events = await readEach(response, async (event, i) => {
        if (event.event === 'text')
          streamed += (JSON.parse(event.data) as { text: string }).text.length
        if (stopping !== undefined) return
        // What the object holds, looked at while the answer runs.
        if (i % 50 === 25) held.push((await stored(id)).stats.heldChars)
        // Past a megabyte: far more than the object holds, so most of it is in stored batches.
        if (streamed >= 1024 * 1024)
          stopping = call(`/v1/conversations/${id}/stop`, { method: 'POST' })
      })
      expect((await stopping!).status).toBe(204)
      expect(held.length).toBeGreaterThanOrEqual(4)
      for (const chars of held) expect(chars).toBeLessThanOrEqual(HELD_BOUND)
      const text = textOf(events)
      expect(text.length).toBeGreaterThanOrEqual(1024 * 1024)
      expect(text.length).toBeLessThan(LARGE_TEXT.length)
      expect(text).toBe(LARGE_TEXT.slice(0, text.length))

      const done = JSON.parse(events.at(-1)!.data) as { turn: AssistantTurn }
      expect(events.at(-1)!.event).toBe('done')
      expect(done.turn).toMatchObject({ text, stopReason: 'aborted' })
      const { stats, turns } = await stored(id)
      expect(turns).toHaveLength(2)
      expect(turns[1]).toEqual(done.turn)
      expect(turns[1]).not.toHaveProperty('items')
      expect(stats.peakHeldChars).toBeLessThanOrEqual(HELD_BOUND)
      // A client resuming from the start gets the same text as the stored turn.
      const replay = await call(`/v1/conversations/${id}/stream`, {
        headers: { 'last-event-id': '0' },
      })
      expect(textOf((await readSse(replay)).events)).toBe(text)
    },
    LARGE_ANSWER_MS,
  )

  it('refuses with 413 what would pass the turn or byte limit, naming it', async () => {
    const id = await create(small)
    for (const content of ['one', 'two']) {
      const response = await send(id, brief(content), undefined, small)
      expect(response.status).toBe(200)
      await readSse(response)
    }
    const full = await send(id, brief('three'), undefined, small)
    expect(full.status).toBe(413)
    expect(((await full.json()) as { error: { message: string } }).error.message).toContain(
      'CONVERSATION_MAX_TURNS',
    )
    const other = await create(small)
    const large = await send(other, brief('x'.repeat(2500)), undefined, small)
    expect(large.status).toBe(413)
    expect(((await large.json()) as { error: { message: string } }).error.message).toContain(
      'CONVERSATION_MAX_BYTES',
    )
  })

  it('keeps room for the answer before the call, and lets a regenerate replace what it replaces', async () => {
    const id = await create(small)
    // The mock may answer 64,000 tokens (256,000 bytes): no room for that in 2,000 bytes.
    const roomless = await send(id, ask('Hi'), undefined, small)
    expect(roomless.status).toBe(413)
    expect(((await roomless.json()) as { error: { message: string } }).error.message).toBe(
      'this conversation holds at most 2000 bytes (CONVERSATION_MAX_BYTES), which leaves no ' +
        'room for an answer of up to 64000 tokens: ask for fewer with maxTokens',
    )
    // An answer larger than its room (the mock ignores maxTokens) is kept whole, past the limit.
    const long = { ...ask('q'.repeat(1800)), maxTokens: 1 }
    await readSse(await send(id, long, undefined, small))
    const shown = (await (
      await call(`/v1/conversations/${id}`, {}, undefined, small)
    ).json()) as Shown
    expect(shown.conversation.turns).toHaveLength(2)
    expect(JSON.stringify(shown.conversation.turns).length).toBeGreaterThan(2000)
    expect((await send(id, brief('more'), undefined, small)).status).toBe(413)
    // A regenerate replaces that answer: what it keeps and its own room fit.
    const again = await call(
      `/v1/conversations/${id}/regenerate`,
      { body: { model: 'mock/echo', maxTokens: 1 } },
      undefined,
      small,
    )
    expect(again.status).toBe(200)
    expect(lastDone(await readSse(again))).toMatchObject({ role: 'assistant' })
  })

  it('holds at most CONVERSATION_MAX_PER_CLIENT conversations of a client, and makes one again after a delete', async () => {
    const make = () => call('/v1/conversations', { body: {}, token: BOB }, undefined, small)
    const made: string[] = []
    for (let i = 0; i < 10; i++) {
      const response = await make()
      expect(response.status).toBe(201)
      made.push(((await response.json()) as { id: string }).id)
    }
    const refused = await make()
    expect(refused.status).toBe(409)
    expect(await refused.json()).toMatchObject({
      error: {
        kind: 'invalid-request',
        message:
          'this client holds at most 10 conversations (CONVERSATION_MAX_PER_CLIENT): delete one to make another',
      },
    })
    const list = async () =>
      (
        (await (await call('/v1/conversations', { token: BOB }, undefined, small)).json()) as {
          conversations: unknown[]
        }
      ).conversations
    expect(await list()).toHaveLength(10)
    // Another client is not bound by this one's.
    expect((await call('/v1/conversations', { body: {} }, undefined, small)).status).toBe(201)
    const deleted = await call(
      `/v1/conversations/${made[0]}`,
      { method: 'DELETE', token: BOB },
      undefined,
      small,
    )
    expect(deleted.status).toBe(204)
    expect((await make()).status).toBe(201)
    expect(await list()).toHaveLength(10)
  })

  it('serves at most CONVERSATION_MAX_READERS streams of a conversation at once', async () => {
    const id = await create(small)
    const follow = () => call(`/v1/conversations/${id}/stream?follow=true`, {}, undefined, small)
    const open = [await follow(), await follow(), await follow()]
    for (const response of open) expect(response.status).toBe(200)
    const refused = await follow()
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({
      error: {
        kind: 'rate-limit',
        retryable: true,
        message:
          'this conversation has 3 open streams, the most it serves (CONVERSATION_MAX_READERS): close one and try again',
      },
    })
    // A message's own stream is not counted: it is sent, and every reader gets its answer.
    const answered = await send(id, brief('Hello, readers'), undefined, small)
    expect(answered.status).toBe(200)
    await readSse(answered)
    // One closed makes room for another (once the object sees it gone: at its next write, the
    // heartbeat's at the latest).
    await open.pop()!.body!.cancel()
    await expect
      .poll(async () => (await follow()).status, { timeout: 10_000, interval: 200 })
      .toBe(200)
    for (const response of open) await response.body!.cancel()
  })

  it('refuses a model the MODELS setting does not serve with 404, as /v1/chat does', async () => {
    const id = await create(small)
    const refused = await send(id, ask('Hi', 'test/short'), undefined, small)
    expect(refused.status).toBe(404)
    const message = "model 'test/short' is not served by this relay"
    expect(await refused.json()).toMatchObject({ error: { field: 'model', message } })
    const chat = await call(
      '/v1/chat',
      { body: { model: 'test/short', conversation: { turns: [ask('Hi').turn] } } },
      undefined,
      small,
    )
    expect(chat.status).toBe(404)
    expect(await chat.json()).toMatchObject({ error: { field: 'model', message } })
    // Nothing was stored, and an allowed model still answers.
    const shown = (await (
      await call(`/v1/conversations/${id}`, {}, undefined, small)
    ).json()) as Shown
    expect(shown.conversation.turns).toEqual([])
    const answered = await send(id, brief('Hi'), undefined, small)
    expect(answered.status).toBe(200)
    await readSse(answered)
  })

  it('stores only whole turns with items, or stopped turns without them', async () => {
    const id = await create()
    await readSse(await send(id, ask('Whole')))
    await settled(id)
    await readSse(await send(id, ask('Broken', 'test/break')))
    await settled(id)
    const running = await sendHeld(id, 'Stopped', 3)
    await readUntil(running, (read) => read.events.length >= 3)
    await call(`/v1/conversations/${id}/stop`, { method: 'POST' })
    const { turns } = await stored(id)
    expect(turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
    ])
    for (const turn of turns) {
      if (turn.role !== 'assistant') continue
      if (turn.stopReason === 'aborted') expect(turn).not.toHaveProperty('items')
      else expect(turn.items).toBeDefined()
    }
  })

  it('runs an answer an eviction cut before any of its events was stored again, for every stream that resumes', async () => {
    const id = await create()
    const response = await sendHeld(id, 'Evicted', 5)
    const seen = await readUntil(response, (read) => read.events.length >= 5)
    const reset = await worker.fetch(`/v1/__test/conversation?id=${id}`, { method: 'POST' })
    expect(reset.status).toBe(204)
    await readRest(response).catch(() => '')
    gate.open()

    // A subscriber that resumes learns the answer runs again, then gets it whole; its ids never
    // repeat an old one. (test/worker/interrupted.test.ts kills workerd itself.)
    const lastSeen = Number(seen.events.at(-1)!.id)
    const resumed = await readSse(
      await call(`/v1/conversations/${id}/stream`, {
        headers: { 'last-event-id': String(lastSeen) },
      }),
    )
    expect(names(resumed).filter((name, i, all) => name !== all[i - 1])).toEqual([
      'turn',
      'interrupted',
      'thinking',
      'text',
      'done',
    ])
    expect(JSON.parse(resumed.events[1]!.data)).toEqual({ retried: true })
    expect(Number(resumed.events[0]!.id)).toBeGreaterThan(lastSeen)
    expect(textOf(resumed.events)).toBe(PACED_TEXT)
    const shown = await settled(id)
    expect(shown).not.toHaveProperty('lastError')
    expect(shown.conversation.turns[1]).toMatchObject({ role: 'assistant', text: PACED_TEXT })
    expect((await stored(id)).turns[1]).toHaveProperty('items')
  })

  it('sends heartbeats to a subscriber while nothing happens', async () => {
    const id = await create()
    const controller = new AbortController()
    const follower = await call(`/v1/conversations/${id}/stream?follow=true`, {}, controller.signal)
    // HEARTBEAT_MS is 1000 here; the test's own timeout is the deadline.
    const seen = await readUntil(follower, (read) => read.comments.some((c) => c.trim() === 'ping'))
    controller.abort()
    expect(seen.events).toEqual([])
  })

  it('deletes a conversation a retention period after its last update', async () => {
    const id = await create(small)
    await readSse(await send(id, brief('Keep me a day'), undefined, small))
    const day = 24 * 60 * 60 * 1000
    const early = await small.fetch(`/v1/__test/conversation?id=${id}&travel=${day - 60_000}`)
    expect(early.status).toBe(204)
    expect((await call(`/v1/conversations/${id}`, {}, undefined, small)).status).toBe(200)
    await small.fetch(`/v1/__test/conversation?id=${id}&travel=${120_000}`)
    expect((await call(`/v1/conversations/${id}`, {}, undefined, small)).status).toBe(404)
    const list = (await (await call('/v1/conversations', {}, undefined, small)).json()) as {
      conversations: { id: string }[]
    }
    expect(list.conversations.some((c) => c.id === id)).toBe(false)
  })

  it('counts creating conversations against the rate limit, and listing not at all', async () => {
    for (let i = 0; i < 3; i++) await create(limited, BOB)
    const refused = await call(
      '/v1/conversations',
      { method: 'POST', token: BOB },
      undefined,
      limited,
    )
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    const { conversations } = (await (
      await call('/v1/conversations', { token: BOB }, undefined, limited)
    ).json()) as { conversations: unknown[] }
    expect(conversations).toHaveLength(3)
  })

  it('counts messages, regenerates and whole reads against the rate limit, and the list not at all', async () => {
    // Its creation is the first request of the minute.
    const id = await create(limited)
    await readSse(await send(id, ask('One'), undefined, limited))
    const regenerate = await call(
      `/v1/conversations/${id}/regenerate`,
      { body: { model: 'mock/echo' } },
      undefined,
      limited,
    )
    expect(regenerate.status).toBe(200)
    await readSse(regenerate)
    const refused = await send(id, ask('Three'), undefined, limited)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    // A read of the whole conversation counts too (it reads and encodes every turn again).
    const read = await call(`/v1/conversations/${id}`, {}, undefined, limited)
    expect(read.status).toBe(429)
    expect(await read.json()).toMatchObject({ error: { kind: 'rate-limit' } })
    // The list, and a stream, do not (each is bounded otherwise).
    expect((await call('/v1/conversations', {}, undefined, limited)).status).toBe(200)
    const stream = await call(
      `/v1/conversations/${id}/stream`,
      { headers: { 'last-event-id': '0' } },
      undefined,
      limited,
    )
    expect(stream.status).toBe(200)
    await readSse(stream)
  })
})

describe('conversation followers on sockets, in workerd', () => {
  /** A ticket for a socket follower of `id`. */
  async function ticket(id: string, token = ALICE, on = worker): Promise<string> {
    const response = await call(
      `/v1/conversations/${id}/ticket`,
      { method: 'POST', token },
      undefined,
      on,
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    return ((await response.json()) as { ticket: string }).ticket
  }

  /** A socket follower, and every SSE event its messages carried, as they arrive. */
  async function follower(id: string, query = '', on = worker) {
    const url = new URL(
      `/v1/conversations/${id}/socket?ticket=${await ticket(id, ALICE, on)}${query}`,
      on.url,
    )
    url.protocol = 'ws:'
    const socket = new WebSocket(url)
    const events: EventSourceMessage[] = []
    const texts: string[] = []
    const parser = createParser({ onEvent: (event) => events.push(event) })
    let closed: { code: number } | undefined
    socket.addEventListener('message', (message) => {
      texts.push(String(message.data))
      parser.feed(String(message.data))
    })
    socket.addEventListener('close', (event) => void (closed = { code: event.code }))
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve())
      socket.addEventListener('error', () => reject(new Error('the socket did not open')))
    })
    return {
      socket,
      events,
      texts,
      closed: () => closed,
      /** Waits until `check` holds of the events so far. */
      until: (check: (seen: EventSourceMessage[]) => boolean) =>
        expect.poll(() => check(events), { timeout: 20_000, interval: 20 }).toBe(true),
    }
  }

  /** The status an upgrade to `path` is answered with, when it is not 101. */
  function upgradeStatus(path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(new URL(path, worker.url), {
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      })
      request.on('response', (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      request.on('upgrade', (_response, socket) => {
        socket.destroy()
        resolve(101)
      })
      request.on('error', reject)
      request.end()
    })
  }

  it('sends a follower every answer, the same events an SSE follower gets, and stays open', async () => {
    const id = await create()
    const onSocket = await follower(id)
    const sse = await call(`/v1/conversations/${id}/stream?follow=true`)
    await readSse(await send(id, ask('First')))
    await readSse(await send(id, ask('Second')))
    await onSocket.until((seen) => seen.filter((event) => event.event === 'done').length === 2)
    const followed = await readUntil(
      sse,
      (read) => read.events.filter((event) => event.event === 'done').length === 2,
    )
    await sse.body?.cancel()
    const shape = (events: EventSourceMessage[]) => events.map((e) => [e.id, e.event, e.data])
    expect(shape(onSocket.events)).toEqual(shape(followed.events))
    expect(onSocket.closed()).toBeUndefined()
    onSocket.socket.close()
  })

  it('resumes a socket by event id exactly as the stream does', async () => {
    const id = await create()
    await readSse(await send(id, ask('Resume me')))
    const { lastEventId } = await get(id)
    const from = lastEventId - 3
    const replay = await readSse(
      await call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': String(from) } }),
    )
    const resumed = await follower(id, `&lastEventId=${from}`)
    await resumed.until((seen) => seen.length === replay.events.length)
    expect(resumed.events.map((e) => [e.id, e.event, e.data])).toEqual(
      replay.events.map((e) => [e.id, e.event, e.data]),
    )
    resumed.socket.close()
  })

  it('answers a keep-alive ping from the runtime, without the object', async () => {
    const id = await create()
    const onSocket = await follower(id)
    const pong = new Promise<string>((resolve) =>
      onSocket.socket.addEventListener('message', (message) => resolve(String(message.data))),
    )
    onSocket.socket.send('ping')
    expect(await pong).toBe('pong')
    onSocket.socket.close()
  })

  it('takes a ticket once, within its time, from the conversation it was issued for', async () => {
    const id = await create()
    const used = await ticket(id)
    const first = await upgradeStatus(`/v1/conversations/${id}/socket?ticket=${used}`)
    expect(first).toBe(101)
    expect(await upgradeStatus(`/v1/conversations/${id}/socket?ticket=${used}`)).toBe(401)
    expect(await upgradeStatus(`/v1/conversations/${id}/socket?ticket=made-up`)).toBe(401)
    // Another conversation's ticket, and another client's conversation.
    const other = await create()
    expect(
      await upgradeStatus(`/v1/conversations/${other}/socket?ticket=${await ticket(id)}`),
    ).toBe(401)
    const bobs = await call(`/v1/conversations/${id}/ticket`, { method: 'POST', token: BOB })
    expect(bobs.status).toBe(404)
    // Only a conversation socket is upgraded; the route without an upgrade says what it takes.
    expect(await upgradeStatus('/v1/chat')).toBe(404)
    expect((await call(`/v1/conversations/${id}/socket`)).status).toBe(426)
  })

  it('ends a follower with reconnect when its conversation is deleted', async () => {
    const id = await create()
    const onSocket = await follower(id)
    expect((await call(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204)
    await onSocket.until((seen) => seen.some((event) => event.event === 'reconnect'))
    expect(JSON.parse(onSocket.events.at(-1)!.data)).toMatchObject({ reason: 'closed' })
    // The relay closed it (the closing handshake itself ends when the runtime's proxy lets go).
    await expect.poll(() => onSocket.socket.readyState).toBeGreaterThanOrEqual(WebSocket.CLOSING)
  })

  it('counts socket followers against CONVERSATION_MAX_READERS', async () => {
    const id = await create(small)
    const followers = [
      await follower(id, '', small),
      await follower(id, '', small),
      await follower(id, '', small),
    ]
    const refused = await call(`/v1/conversations/${id}/stream?follow=true`, {}, undefined, small)
    expect(refused.status).toBe(429)
    followers[0]!.socket.close()
    await expect
      .poll(async () => {
        const stream = await call(
          `/v1/conversations/${id}/stream?follow=true`,
          {},
          undefined,
          small,
        )
        await stream.body?.cancel()
        return stream.status
      })
      .toBe(200)
    for (const each of followers.slice(1)) each.socket.close()
  })
})
