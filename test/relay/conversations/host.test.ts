import { describe, expect, it } from 'vitest'
import type { ProviderEntry } from '../../../src/core/registry.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import { memoryRateLimiter } from '../../../src/relay/index.ts'
import { splitFrames } from '../../../src/relay/conversations/event-log.ts'
import { memoryHosts } from '../../helpers/memory-hosts.ts'
import { parseSse, payloads, readSse, readUntil } from '../sse-reader.ts'
import { ALICE, gatedModel, ID, user } from './agent-world.ts'

// The conversation host's rules, in Node, on SQLite in memory: what the Worker's Durable Object
// runs (test/worker/conversations.test.ts checks the whole in workerd).

function world(settings: Parameters<typeof memoryHosts>[0]['settings'] = {}) {
  const slow = gatedModel('abcdef')
  const providers: { readonly [provider: string]: ProviderEntry } = {
    test: [
      slow.adapter,
      mock({ provider: 'test', model: 'quick', script: [{ text: 'Four.' }] }),
      mock({
        provider: 'test',
        model: 'broken',
        script: [{ text: 'half', fail: { kind: 'server', afterEvents: 1 } }],
      }),
    ],
  }
  const hosts = memoryHosts({ providers, settings })
  const create = async (id = ID, clientId = ALICE, body: unknown = {}) => {
    const response = await hosts.request(id, 'create', clientId, { body })
    return response
  }
  const send = (content: string, model = 'test/quick', id = ID) =>
    hosts.request(id, 'messages', ALICE, { body: { model, turn: user(content) } })
  const shown = async (id = ID) => {
    const response = await hosts.request(id, 'get', ALICE)
    expect(response.status).toBe(200)
    return (await response.json()) as {
      conversation: { turns: { role: string; text?: string; content?: string }[] }
      streaming: boolean
      lastEventId: number
      lastError?: { kind: string; message: string }
    }
  }
  return { hosts, slow, create, send, shown }
}

/** Every statement the host `ID` runs on its storage from now on (`create` it first, or ask for it). */
function spy(hosts: ReturnType<typeof memoryHosts>): string[] {
  const statements: string[] = []
  hosts.get(ID)
  const sql = hosts.storage(ID)!.sql
  const exec = sql.exec.bind(sql)
  sql.exec = (query, ...bindings) => {
    statements.push(query)
    return exec(query, ...bindings)
  }
  return statements
}

describe('a conversation host', () => {
  it('creates, answers, shows and lists a conversation, and stores its turns with items', async () => {
    const { hosts, create, send, shown } = world()
    expect((await create()).status).toBe(201)
    const answer = await readSse(await send('What is 2 + 2?'))
    expect(payloads(answer).map((p) => p.event)).toEqual(['turn', 'text', 'done'])
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
    expect(view.streaming).toBe(false)
    // The stored answer keeps its items; what a browser sees has none.
    expect(hosts.get(ID).storedTurns()[1]).toHaveProperty('items')
    expect(view.conversation.turns[1]).not.toHaveProperty('items')
    const list = await hosts.request(`client:${ALICE}`, 'list', ALICE)
    const { conversations } = (await list.json()) as { conversations: { id: string }[] }
    expect(conversations).toEqual([expect.objectContaining({ id: ID, title: 'What is 2 + 2?' })])
  })

  it('sends a message’s turn in one chunk with the first events of its answer', async () => {
    const { create, send } = world()
    await create()
    const reader = (await send('What is 2 + 2?')).body!.getReader()
    // The scripted answer is ready at once: its events go with the turn, not after it.
    const first = parseSse(new TextDecoder().decode((await reader.read()).value))
    expect(first.events.map((event) => event.event)).toEqual(['turn', 'text', 'done'])
    await reader.cancel()
  })

  it('reads the stored turns once for a message after an answer, not its last turn again', async () => {
    const { hosts, create, send } = world()
    await create()
    await readSse(await send('What is 2 + 2?'))
    const statements = spy(hosts)
    const answer = await readSse(await send('And 3 + 3?'))
    expect(payloads(answer).map((p) => p.event)).toEqual(['turn', 'text', 'done'])
    // The path, for the model call; the answer it follows is checked as it was stored.
    expect(
      statements.filter((query) => /^\s*SELECT\b[\s\S]*\bFROM turns\b/.test(query)),
    ).toHaveLength(1)
    expect(
      hosts
        .get(ID)
        .storedTurns()
        .map((turn) => turn.role),
    ).toEqual(['user', 'assistant', 'user', 'assistant'])
  })

  it('answers another client as if the conversation did not exist', async () => {
    const { hosts, create } = world()
    await create()
    for (const op of ['get', 'stream', 'stop', 'delete']) {
      expect((await hosts.request(ID, op, 'client-bob')).status).toBe(404)
    }
    expect((await hosts.request(ID, 'get', '')).status).toBe(500)
  })

  it('keeps a stopped answer up to the last event its stopping client showed', async () => {
    const { hosts, slow, create, send, shown } = world()
    await create()
    const response = await send('Spell it', 'test/gated')
    slow.letters.open(3)
    const seen = await readUntil(response, (read) => read.events.length >= 4)
    const shownId = seen.events[2]!.id!
    const stopped = hosts.request(ID, 'stop', ALICE, { headers: { 'last-event-id': shownId } })
    expect((await stopped).status).toBe(204)
    // The stop is answered once the stopped turn is stored: two of the three letters were shown.
    const view = await shown()
    expect(view.conversation.turns[1]).toMatchObject({ role: 'assistant', text: 'ab' })
    expect(view.streaming).toBe(false)
  })

  it('says a regenerate replaces the last answer, and replaces it only once complete', async () => {
    const { hosts, slow, create, send, shown } = world()
    await create()
    await readSse(await send('Hello'))
    const regenerate = await hosts.request(ID, 'regenerate', ALICE, {
      body: { model: 'test/gated' },
    })
    const first = await readUntil(regenerate, (read) => read.events.length >= 1)
    expect(JSON.parse(first.events[0]!.data)).toMatchObject({ replaces: true })
    // Mid-answer the old answer stands.
    expect((await shown()).conversation.turns).toHaveLength(2)
    slow.letters.open(6)
    await shown()
    await expect.poll(async () => (await shown()).streaming).toBe(false)
    const turns = (await shown()).conversation.turns
    expect(turns).toHaveLength(2)
    expect(turns[1]).toMatchObject({ text: 'abcdef' })
  })

  it('keeps a failed answer out, and says why in the stream and in GET', async () => {
    const { create, send, shown } = world()
    await create()
    const events = payloads(await readSse(await send('Hi', 'test/broken')))
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { kind: 'server' } })
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user'])
    expect(view.lastError).toMatchObject({ kind: 'server' })
  })

  it('refuses an answer that would take the conversation past its size, but lets a regenerate replace', async () => {
    const { hosts, create } = world({ bytes: 600 })
    await create()
    const send = (content: string) =>
      hosts.request(ID, 'messages', ALICE, {
        body: { model: 'test/quick', turn: user(content), maxTokens: 10 },
      })
    await readSse(await send('x'.repeat(40)))
    const refused = await send('y'.repeat(400))
    expect(refused.status).toBe(413)
    expect(await refused.text()).toMatch(/CONVERSATION_MAX_BYTES/)
    // Without maxTokens the answer's room (4,096 tokens) does not fit either.
    const roomless = await hosts.request(ID, 'regenerate', ALICE, { body: { model: 'test/quick' } })
    expect(await roomless.text()).toMatch(/no room for an answer/)
    // The answer a regenerate replaces makes room for it.
    const regenerate = await hosts.request(ID, 'regenerate', ALICE, {
      body: { model: 'test/quick', maxTokens: 10 },
    })
    expect(regenerate.status).toBe(200)
    await readSse(regenerate)
  })

  it('bounds the conversations of a client and the streams of a conversation', async () => {
    const { hosts, slow, create, send } = world({ perClient: 1, readers: 2 })
    expect((await create()).status).toBe(201)
    const second = await create('BBBBBBBBBBBBBBBBBBBBBB')
    expect(second.status).toBe(409)
    expect(await second.text()).toMatch(/CONVERSATION_MAX_PER_CLIENT/)
    // The answer's own stream counts, and is never refused; a follower fits, a second does not.
    const answer = await send('Spell it', 'test/gated')
    const follow = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    expect(follow.status).toBe(200)
    const refused = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    expect(refused.status).toBe(429)
    expect(await refused.text()).toMatch(/CONVERSATION_MAX_READERS/)
    slow.letters.open(6)
    await readSse(answer)
    await follow.body!.cancel()
  })

  it('deletes a conversation mid-answer: its streams end with reconnect, its index forgets it', async () => {
    const { hosts, create, send } = world()
    await create()
    const answer = await send('Spell it', 'test/gated')
    await readUntil(answer, (read) => read.events.length >= 1)
    expect((await hosts.request(ID, 'delete', ALICE)).status).toBe(204)
    expect((await hosts.request(ID, 'get', ALICE)).status).toBe(404)
    const list = await hosts.request(`client:${ALICE}`, 'list', ALICE)
    expect(await list.json()).toEqual({ conversations: [] })
    expect(hosts.get(ID).stats().tables).toBe(0)
  })

  it('sets a new conversation’s retention alarm before it writes its first row', async () => {
    const { hosts, create } = world({ ttlMs: 60_000 })
    hosts.get(ID)
    const storage = hosts.storage(ID)!
    const order: string[] = []
    const { sql, setAlarm } = storage
    const exec = sql.exec.bind(sql)
    sql.exec = (query, ...bindings) => {
      if (/^\s*(INSERT|UPDATE|DELETE|CREATE)\b/.test(query)) order.push('row')
      return exec(query, ...bindings)
    }
    storage.setAlarm = (at) => {
      order.push('alarm')
      return setAlarm(at)
    }
    await create()
    // workerd keeps a first alarm in a table of its own: made before the metadata's statement is
    // prepared, it does not make the first message prepare that statement again.
    expect(order[0]).toBe('alarm')
    expect(order.length).toBeGreaterThan(1)
    expect(storage.alarm).toBeGreaterThan(Date.now())
  })

  it('deletes a conversation its retention has passed, when its alarm rings', async () => {
    const { hosts, create, send } = world({ ttlMs: 60_000 })
    await create()
    await readSse(await send('Hello'))
    const storage = hosts.storage(ID)!
    expect(storage.alarm).toBeGreaterThan(Date.now())
    await hosts.get(ID).alarm()
    expect((await hosts.request(ID, 'get', ALICE)).status).toBe(200)
    hosts.travel(61_000)
    await hosts.get(ID).alarm()
    expect((await hosts.request(ID, 'get', ALICE)).status).toBe(404)
  })

  it('answers 304 to a read the client holds, and the whole to a changed one', async () => {
    const { hosts, create, send } = world()
    await create()
    const first = await hosts.request(ID, 'get', ALICE)
    const tag = first.headers.get('etag')!
    const held = await hosts.request(ID, 'get', ALICE, { headers: { 'if-none-match': tag } })
    expect(held.status).toBe(304)
    await readSse(await send('Hello'))
    const changed = await hosts.request(ID, 'get', ALICE, { headers: { 'if-none-match': tag } })
    expect(changed.status).toBe(200)
  })

  it("holds an answer's last events unwritten, and resumes from any id to the byte", async () => {
    const thinker = mock({
      provider: 'test',
      model: 'thinker',
      chunkSize: 1,
      script: [{ thinking: 'Hm, "é"\n', text: 'Two\nlines 😀' }],
    })
    const hosts = memoryHosts({ providers: { test: [thinker] } })
    await hosts.request(ID, 'create', ALICE, { body: {} })
    const written = hosts.get(ID).stats().rowsWritten
    const body = { model: 'test/thinker', turn: user('Think') }
    const answer = await readSse(await hosts.request(ID, 'messages', ALICE, { body }))
    const count = (name: string) => answer.events.filter((event) => event.event === name).length
    expect([count('thinking'), count('text')]).toEqual([8, 12])
    // The two turns, the user's with the loop it started and the answer's with its end, as a
    // floor answer writes: the events stay in memory.
    const events = hosts.storage(ID)!.sql.exec('SELECT first_id FROM events').toArray()
    expect(events).toHaveLength(0)
    expect(hosts.get(ID).stats().rowsWritten - written).toBe(2)
    const last = Number(answer.events.at(-1)!.id)
    expect(hosts.get(ID).stats()).toMatchObject({ lastEventId: last, heldEvents: last })
    // A stream that resumes after each id gets the rest of what the answer sent, byte for byte.
    const frames = [...splitFrames(answer.raw)]
    for (let after = 0; after < last; after++) {
      const headers = { 'last-event-id': String(after) }
      const resumed = await readSse(await hosts.request(ID, 'stream', ALICE, { headers }))
      expect(resumed.raw, `after ${after}`).toBe(frames.slice(after).join(''))
    }
  })

  it('writes a long answer as it runs, each batch as the frames sent', async () => {
    // 128 KiB of frames fill a batch: this answer writes one while it runs, and its `done` (the
    // whole text, and its items) fills the next at once.
    const long = mock({
      provider: 'test',
      model: 'long',
      chunkSize: 1000,
      script: [{ text: 'x'.repeat(160_000) }],
    })
    const hosts = memoryHosts({ providers: { test: [long] } })
    await hosts.request(ID, 'create', ALICE, { body: {} })
    const body = { model: 'test/long', turn: user('Write') }
    const answer = await readSse(await hosts.request(ID, 'messages', ALICE, { body }))
    const rows = hosts
      .storage(ID)!
      .sql.exec('SELECT first_id, last_id, frames FROM events ORDER BY first_id')
      .toArray()
    const ids = rows.map((row): [number, number] => [
      Number(row['first_id']),
      Number(row['last_id']),
    ])
    const end = ids[0]![1]
    expect(ids).toEqual([
      [1, end],
      [end + 1, answer.events.length],
    ])
    // Stored as they were sent, byte for byte, and resumed across the stored batches so.
    const frames = [...splitFrames(answer.raw)]
    expect(String(rows[0]!['frames'])).toBe(frames.slice(0, end).join(''))
    for (const after of [0, end - 1, end, end + 1, answer.events.length - 1]) {
      const headers = { 'last-event-id': String(after) }
      const resumed = await readSse(await hosts.request(ID, 'stream', ALICE, { headers }))
      expect(resumed.raw, `after ${after}`).toBe(frames.slice(after).join(''))
    }
  })

  it("numbers on after a restart from the last answer's last event, and resets a resume into it", async () => {
    const { hosts, create, send, shown } = world()
    await create()
    const first = await readSse(await send('One'))
    const last = Number(first.events.at(-1)!.id)
    hosts.restart(ID)
    expect((await shown()).lastEventId).toBe(last)
    // Its last events were not stored: a resume into the answer gets the conversation instead.
    const headers = { 'last-event-id': String(last - 1) }
    const resumed = (await readSse(await hosts.request(ID, 'stream', ALICE, { headers }))).events
    expect(resumed.map((event) => [event.event, event.id])).toEqual([['reset', String(last)]])
    const reset = JSON.parse(resumed[0]!.data) as { conversation: { turns: unknown[] } }
    expect(reset.conversation.turns).toHaveLength(2)
    // No id is given twice: the next answer's `turn` follows the last event a client saw.
    const second = await readSse(await send('Two'))
    expect(second.events[0]).toMatchObject({ event: 'turn', id: String(last + 1) })
  })

  it('resets a resume from before what the log keeps', async () => {
    const { hosts, create, send } = world()
    await create()
    await readSse(await send('One'))
    await readSse(await send('Two'))
    const stream = await hosts.request(ID, 'stream', ALICE, { headers: { 'last-event-id': '0' } })
    const events = (await readSse(stream)).events
    expect(events.map((e) => e.event)).toEqual(['reset'])
    const reset = JSON.parse(events[0]!.data) as { conversation: { turns: unknown[] } }
    expect(reset.conversation.turns).toHaveLength(4)
  })

  it('admits each answer against its client’s limits, and counts a refused message', async () => {
    const rateLimiter = memoryRateLimiter({ requestsPerMinute: 2 })
    const { hosts, create, send } = world({ rateLimiter })
    await create()
    await readSse(await send('One'))
    const bad = await hosts.request(ID, 'messages', ALICE, { body: { model: 'test/quick' } })
    expect(bad.status).toBe(400)
    const limited = await send('Two')
    expect(limited.status).toBe(429)
    expect(await limited.text()).toMatch(/rate-limit/)
  })

  it('queues a second message while an answer runs, and refuses a stop with a bad Last-Event-ID', async () => {
    const { hosts, slow, create, send } = world()
    await create()
    const answer = await send('Spell it', 'test/gated')
    const again = await send('Again')
    expect(again.status).toBe(202)
    expect(await again.json()).toEqual({ queued: 1 })
    expect((await hosts.request(ID, 'clear-queue', ALICE)).status).toBe(204)
    const stop = await hosts.request(ID, 'stop', ALICE, { headers: { 'last-event-id': 'x' } })
    expect(stop.status).toBe(400)
    slow.letters.open(6)
    expect(payloads(parseSse((await readSse(answer)).raw)).at(-1)!.event).toBe('done')
  })
})

describe('a conversation host’s socket followers', () => {
  it('sends a follower the log after its id, then every event, each chunk as one message', async () => {
    const { hosts, create, send } = world()
    await create()
    await readSse(await send('One'))
    const from = await hosts.follow(ID, ALICE, '&lastEventId=1')
    if (from instanceof Response) throw new Error(await from.text())
    // Caught up at once: the first answer after its `turn`.
    expect(parseSse(from.text).events.map((e) => e.event)).toEqual(['text', 'done'])
    const answer = await readSse(await send('Two'))
    const followed = parseSse(from.text).events.slice(2)
    expect(followed.map((e) => [e.id, e.event, e.data])).toEqual(
      answer.events.map((e) => [e.id, e.event, e.data]),
    )
    expect(from.closed).toBe(false)
  })

  it('takes a ticket once, only from its conversation’s owner, and ends followers on delete', async () => {
    const { hosts, create } = world()
    await create()
    const follower = await hosts.follow(ID, ALICE)
    if (follower instanceof Response) throw new Error(await follower.text())
    const again = hosts
      .get(ID)
      .admitSocket(new Request(`https://conversation/socket/${ID}?ticket=${follower.ticket}`))
    expect(again).toBeInstanceOf(Response)
    expect((again as Response).status).toBe(401)
    expect((await hosts.request(ID, 'ticket', 'client-bob')).status).toBe(404)
    await hosts.request(ID, 'delete', ALICE)
    expect(parseSse(follower.text).events.at(-1)).toMatchObject({ event: 'reconnect' })
    expect(follower.closed).toBe(true)
  })

  it('refuses a ticket past its 30 s', async () => {
    const { hosts, create } = world()
    await create()
    const issued = await hosts.request(ID, 'ticket', ALICE)
    const { ticket } = (await issued.json()) as { ticket: string }
    hosts.travel(30_001)
    const late = hosts
      .get(ID)
      .admitSocket(new Request(`https://conversation/socket/${ID}?ticket=${ticket}`))
    expect((late as Response).status).toBe(401)
  })
})

describe('a conversation host’s reads', () => {
  it('sends the stored turns without items, byte for byte as encoding them again would', async () => {
    const long = `${'a long question, '.repeat(40_000)}and its end` // over one row
    const { hosts, create, send } = world()
    await create(ID, ALICE, { system: 'Be brief "always".' })
    await readSse(await send('Ünïcödé 🧠 "quotes" \\ and \u2028 line'))
    await readSse(await send(long))
    await readSse(await send('Third'))
    const stored = hosts.get(ID).storedTurns()
    expect(stored.filter((turn) => 'items' in turn)).toHaveLength(3)
    const response = await hosts.request(ID, 'get', ALICE)
    expect(response.headers.get('content-type')).toBe('application/json')
    const text = await response.text()
    const shown = stored.map((turn) => {
      if (turn.role !== 'assistant') return turn
      const { items: _items, ...rest } = turn
      return rest
    })
    const conversation = JSON.stringify({ turns: shown, system: 'Be brief "always".' })
    expect(text).toBe(
      `{"id":"${ID}","conversation":${conversation},"streaming":false,"lastEventId":${(JSON.parse(text) as { lastEventId: number }).lastEventId}}`,
    )
  })
})
