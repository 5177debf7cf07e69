import { describe, expect, it } from 'vitest'
import type { WireConversationEvents } from '../../../src/core/wire.ts'
import { readSse } from '../sse-reader.ts'
import { agentWorld, ALICE, ID, scripted, user } from './agent-world.ts'

// Where the stream a message, a regenerate or an edit is answered with starts, in Node on SQLite
// in memory. A client that says the last event it saw (`Last-Event-ID`) and has not seen every
// event before the message's `turn` (another tab's answer its follow stream has not brought yet)
// gets the conversation as it was just before that `turn`, in a `reset`, then the answer: what it
// missed is never numbered below an event it has already applied.

type Reset = WireConversationEvents['reset']

/** A world with one exchange seen by "this tab" and one by another tab after it. */
async function behind(models?: ReturnType<typeof scripted>[]) {
  const world = agentWorld(models === undefined ? {} : { models })
  await world.create()
  const mine = await readSse(await world.ask('One'))
  const seen = mine.events.at(-1)!.id!
  // Another tab's message and answer, which this tab has not read.
  await readSse(await world.ask('Two'))
  const before = await world.shown()
  /** A request of this tab, saying the last event it saw (`seen` unless told; null: none). */
  const post = (op: string, body: unknown, lastEventId: string | null = seen) =>
    world.hosts.request(ID, op, ALICE, {
      body,
      headers: lastEventId === null ? {} : { 'last-event-id': lastEventId },
    })
  return { world, seen, before, post }
}

describe('the stream of a message', () => {
  it('starts with the conversation as it was before its turn for a client behind, then its answer', async () => {
    const { before, post, world } = await behind()
    const read = await readSse(await post('messages', { model: 'mock/echo', turn: user('Three') }))
    const [reset, turn] = read.events
    expect(reset?.event).toBe('reset')
    // It stands for every event before the message's turn, and an answer is in flight.
    expect(reset?.id).toBe(String(before.lastEventId))
    expect(JSON.parse(reset!.data)).toEqual({
      conversation: before.conversation,
      streaming: true,
      queue: [],
    } satisfies Reset)
    expect(turn?.event).toBe('turn')
    expect(turn?.id).toBe(String(before.lastEventId + 1))
    expect(JSON.parse(turn!.data)).toEqual({ turn: user('Three') })
    expect(read.events.at(-1)?.event).toBe('done')
    expect((await world.shown()).conversation.turns).toHaveLength(6)
  })

  it('starts the same way from an id the log no longer holds', async () => {
    const { before, post } = await behind()
    const read = await readSse(
      await post('messages', { model: 'mock/echo', turn: user('Three') }, '0'),
    )
    expect(read.events.map((event) => event.event).slice(0, 2)).toEqual(['reset', 'turn'])
    expect(JSON.parse(read.events[0]!.data)).toMatchObject({ conversation: before.conversation })
  })

  it('starts at its turn, as before, for a client that saw every event or says no id', async () => {
    const { before, post } = await behind()
    const seenAll = await readSse(
      await post(
        'messages',
        { model: 'mock/echo', turn: user('Three') },
        String(before.lastEventId),
      ),
    )
    expect(seenAll.events[0]?.event).toBe('turn')
    expect(seenAll.events[0]?.id).toBe(String(before.lastEventId + 1))
    const noId = await readSse(
      await post('messages', { model: 'mock/echo', turn: user('Four') }, null),
    )
    expect(noId.events[0]?.event).toBe('turn')
  })

  it('refuses a malformed Last-Event-ID, naming it, and takes nothing of the message', async () => {
    const { before, post, world } = await behind()
    const refused = await post('messages', { model: 'mock/echo', turn: user('Three') }, 'seven')
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({
      error: { message: 'Last-Event-ID must be a whole number', field: 'Last-Event-ID' },
    })
    expect((await world.shown()).conversation).toEqual(before.conversation)
  })

  it('starts a regenerate’s and an edit’s stream with the same reset for a client behind', async () => {
    const { before, post, world } = await behind()
    const regenerated = await readSse(await post('regenerate', { model: 'mock/echo' }))
    expect(regenerated.events.map((event) => event.event).slice(0, 2)).toEqual(['reset', 'turn'])
    expect(JSON.parse(regenerated.events[0]!.data)).toMatchObject({
      conversation: before.conversation,
    })
    expect(JSON.parse(regenerated.events[1]!.data)).toMatchObject({ replaces: true })

    // The regenerate was not read by "this tab" either: it is behind again.
    const now = await world.shown()
    const edited = await readSse(
      await post('edit', { model: 'mock/echo', turn: 0, content: 'One, edited' }),
    )
    expect(edited.events.map((event) => event.event).slice(0, 2)).toEqual(['reset', 'turn'])
    expect(edited.events[0]!.id).toBe(String(now.lastEventId))
    expect(JSON.parse(edited.events[0]!.data)).toMatchObject({ conversation: now.conversation })
    expect(JSON.parse(edited.events[1]!.data)).toMatchObject({ at: 0 })
  })

  it('says what the loop waits on in the reset of a tool turn that answers it', async () => {
    const lookup = scripted('lookup', [
      { toolCalls: [{ id: 'l1', name: 'lookup', input: {} }] },
      { text: 'Found it.' },
    ])
    const { post, world } = await behind([lookup])
    // Another tab's message, whose answer waits on the client's call.
    const tools = [{ name: 'lookup', parameters: { type: 'object' } }]
    await readSse(await world.send({ model: 'test/lookup', tools, turn: user('Look it up') }))
    const waiting = await world.shown()
    expect(waiting.pending).toEqual({
      approvals: [],
      calls: [{ id: 'l1', name: 'lookup', input: {} }],
      results: [],
    })
    const results = { role: 'tool', results: [{ callId: 'l1', name: 'lookup', output: 'found' }] }
    const read = await readSse(await post('messages', { model: 'test/lookup', turn: results }))
    expect(read.events.map((event) => event.event).slice(0, 2)).toEqual(['reset', 'turn'])
    expect(JSON.parse(read.events[0]!.data)).toEqual({
      conversation: waiting.conversation,
      streaming: true,
      queue: [],
      pending: waiting.pending,
    } satisfies Reset)
  })
})
