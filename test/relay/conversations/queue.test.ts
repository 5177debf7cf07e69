import { describe, expect, it } from 'vitest'
import type { WireApproval, WireConversationRead } from '../../../src/core/wire.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import { dataOf, readSse, readUntil } from '../sse-reader.ts'
import { agentWorld, ALICE, gate, gatedModel, ID, scripted, user } from './agent-world.ts'

// Messages posted while an answer runs (DESIGN §14), in Node on SQLite in memory: queued, told to
// every follower, sent in order when the answer ends, cleared on request, and kept in storage.

function world(settings = {}) {
  const { adapter: slow, letters } = gatedModel('abc')
  const numbered = scripted('numbered', (index) => ({ text: `Answer ${index}` }))
  const breaking = gate()
  const broken = mock({
    provider: 'test',
    model: 'broken',
    script: [{ text: 'half', fail: { kind: 'server', afterEvents: 1 } }],
    pace: () => breaking.wait(),
  })
  const made = agentWorld({ models: [slow, numbered, broken], settings })
  const read = async () => {
    const response = await made.hosts.request(ID, 'get', ALICE)
    return (await response.json()) as WireConversationRead
  }
  const texts = async () =>
    (await read()).conversation.turns.map((turn) =>
      turn.role === 'user' ? turn.content : turn.role === 'assistant' ? turn.text : 'tool',
    )
  const idle = async () => {
    await expect
      .poll(async () => {
        const shown = await read()
        return shown.streaming || shown.queue !== undefined
      })
      .toBe(false)
    return read()
  }
  return { ...made, letters, breaking, numbered, read, texts, idle }
}

const message = (content: string, model = 'test/numbered') => ({ model, turn: user(content) })

describe('the queue of a conversation', () => {
  it('queues messages posted during one answer, tells every follower, and answers them in order', async () => {
    const { create, send, hosts, letters, read, texts, idle, numbered } = world()
    await create()
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    const running = await send(message('First', 'test/gated'))
    const statuses: unknown[] = []
    for (const content of ['One', 'Two', 'Three']) {
      const queued = await send(message(content))
      statuses.push([queued.status, await queued.json()])
    }
    expect(statuses).toEqual([
      [202, { queued: 1 }],
      [202, { queued: 2 }],
      [202, { queued: 3 }],
    ])
    expect((await read()).queue).toEqual([user('One'), user('Two'), user('Three')])
    letters.open(3)
    await readSse(running)
    const shown = await idle()
    expect(shown).not.toHaveProperty('queue')
    expect(await texts()).toEqual([
      'First',
      'abc',
      'One',
      'Answer 0',
      'Two',
      'Answer 1',
      'Three',
      'Answer 2',
    ])
    // Each was sent with only the turns before it.
    expect(numbered.calls[1]!.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ])
    const seen = await readUntil(follower, (got) => dataOf(got, 'done').length === 4)
    await follower.body!.cancel()
    expect(dataOf(seen, 'queued')).toEqual([
      { turn: user('One'), position: 1 },
      { turn: user('Two'), position: 2 },
      { turn: user('Three'), position: 3 },
    ])
    // As each is sent, the queue as it then is, then its `turn`.
    const order = seen.events.map((e) => e.event).filter((e) => e === 'queue' || e === 'turn')
    expect(order).toEqual(['turn', 'queue', 'turn', 'queue', 'turn', 'queue', 'turn'])
    expect(dataOf(seen, 'queue')).toEqual([
      { queue: [user('Two'), user('Three')] },
      { queue: [user('Three')] },
      { queue: [] },
    ])
  })

  it('sends the queue when the answer ends in an error, or is stopped; stop does not clear it', async () => {
    const { create, send, hosts, letters, breaking, texts, idle } = world()
    await create()
    const failing = await send(message('Break', 'test/broken'))
    expect((await send(message('After the error'))).status).toBe(202)
    breaking.open(1)
    expect(dataOf(await readSse(failing), 'error')).toHaveLength(1)
    await idle()
    expect(await texts()).toEqual(['Break', 'After the error', 'Answer 0'])

    const running = await send(message('Slow', 'test/gated'))
    expect((await send(message('After the stop'))).status).toBe(202)
    letters.open(1)
    await readUntil(running, (got) => dataOf(got, 'text').length === 1)
    expect((await hosts.request(ID, 'stop', ALICE)).status).toBe(204)
    await idle()
    expect((await texts()).slice(3)).toEqual(['Slow', 'a', 'After the stop', 'Answer 1'])
  })

  it('gives a resume from before what the log keeps the queue as it now is, in its reset', async () => {
    const { create, send, hosts, letters, idle } = world()
    await create()
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    await send(message('First', 'test/gated'))
    for (const [content, model] of [
      ['One', 'test/numbered'],
      ['Two', 'test/gated'],
      ['Three', 'test/numbered'],
    ] as const) {
      expect((await send(message(content, model))).status).toBe(202)
    }
    const seen = await readUntil(follower, (read) => dataOf(read, 'queued').length === 3)
    const lastSeen = seen.events.at(-1)!.id!
    // First ends; One is answered at once; Two waits on its model. The log now keeps Two's answer
    // alone: the events that took One and Two out of the queue are gone from it.
    letters.open(3)
    await expect
      .poll(async () => (await hosts.request(ID, 'get', ALICE).then((r) => r.json())).queue)
      .toEqual([user('Three')])
    const resumed = await hosts.request(ID, 'stream', ALICE, {
      headers: { 'last-event-id': lastSeen },
    })
    const told = await readUntil(resumed, (read) => read.events.length > 0)
    expect(told.events[0]!.event).toBe('reset')
    expect(dataOf(told, 'reset')[0]).toMatchObject({ streaming: true, queue: [user('Three')] })
    await resumed.body?.cancel()
    await follower.body?.cancel()
    letters.open(3)
    await idle()
  })

  it('clears the queue on DELETE, for every follower, and sends nothing of it', async () => {
    const { create, send, hosts, letters, read, texts, idle } = world()
    await create()
    const running = await send(message('First', 'test/gated'))
    await send(message('Never'))
    await send(message('Nor this'))
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    expect((await hosts.request(ID, 'clear-queue', ALICE)).status).toBe(204)
    expect(await read()).not.toHaveProperty('queue')
    const seen = await readUntil(follower, (got) => dataOf(got, 'queue').length === 1)
    expect(dataOf(seen, 'queue')).toEqual([{ queue: [] }])
    await follower.body!.cancel()
    letters.open(3)
    await readSse(running)
    await idle()
    expect(await texts()).toEqual(['First', 'abc'])
  })

  it('counts queued messages against the conversation’s bytes', async () => {
    const { create, send, letters, read } = world({ bytes: 1500 })
    await create()
    const running = await send({ ...message('First', 'test/gated'), maxTokens: 10 })
    expect((await send({ ...message('x'.repeat(400)), maxTokens: 10 })).status).toBe(202)
    const full = await send({ ...message('y'.repeat(800)), maxTokens: 10 })
    expect(full.status).toBe(413)
    expect(await full.text()).toMatch(/CONVERSATION_MAX_BYTES/)
    expect((await read()).queue).toHaveLength(1)
    letters.open(3)
    await readSse(running)
  })

  it('takes a queued message that is refused when its turn comes out of the queue, saying why', async () => {
    const { create, send, letters, texts, idle, hosts } = world({ bytes: 4000 })
    await create()
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    const running = await send({ ...message('First', 'test/gated'), maxTokens: 10 })
    // Queued (it fits), but its answer's room (4,000 tokens) does not once it is sent.
    expect((await send({ ...message('Too big an answer'), maxTokens: 1000 })).status).toBe(202)
    expect((await send({ ...message('Then this'), maxTokens: 10 })).status).toBe(202)
    letters.open(3)
    await readSse(running)
    const shown = await idle()
    expect(await texts()).toEqual(['First', 'abc', 'Then this', 'Answer 0'])
    expect(shown.lastError).toBeUndefined()
    const seen = await readUntil(follower, (got) => dataOf(got, 'done').length === 2)
    await follower.body!.cancel()
    const [error] = dataOf<{ kind: string; message: string }>(seen, 'error')
    expect(error).toMatchObject({ kind: 'invalid-request' })
    expect(error!.message).toMatch(/no room for an answer of up to 1000 tokens/)
    expect(dataOf(seen, 'queue')[0]).toEqual({ queue: [user('Then this')] })
  })

  it('keeps the queue across a restart of its host, and sends it once the loop that waited ends', async () => {
    const { create, ask, hosts, decide, read, texts, idle } = world()
    await create()
    const waiting = await readSse(await ask('save_note buy milk', { serverTools: ['save_note'] }))
    const [approval] = dataOf<WireApproval>(waiting, 'tool-approval')
    // A loop that waits on a person counts as running: the message waits its turn.
    const queued = await hosts.request(ID, 'messages', ALICE, { body: message('Meanwhile') })
    expect(queued.status).toBe(202)
    hosts.restart(ID)
    expect((await read()).queue).toEqual([user('Meanwhile')])
    expect((await decide(approval!.approvalId, { approve: true })).status).toBe(202)
    await idle()
    expect((await texts()).slice(-2)).toEqual(['Meanwhile', 'Answer 0'])
  })
})
