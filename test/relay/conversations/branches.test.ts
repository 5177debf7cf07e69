import { describe, expect, it } from 'vitest'
import type { Turn } from '../../../src/core/conversation.ts'
import type { ShownTurn, WireBranch, WireConversationRead } from '../../../src/core/wire.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import { dataOf, parseSse, payloads, readRest, readSse, readUntil, runs } from '../sse-reader.ts'
import { agentWorld, ALICE, gate, ID, scripted, user } from './agent-world.ts'

// A conversation's turns as a tree (DESIGN §14), in Node on SQLite in memory: a regenerate or an
// edit adds a version, a switch makes another active, and only the active path reaches the model.

/** `test/numbered` answers `Answer 0`, `Answer 1`, ... in the order it is called. */
function numbered() {
  return scripted('numbered', (index) => ({ text: `Answer ${index}` }))
}

/**
 * `test/gated` streams `abcdef` a letter at a time, as the test lets it: `letters(i).open(n)` lets
 * `n` more letters of its call `i` go.
 */
function gated() {
  const gates: ReturnType<typeof gate>[] = []
  const letters = (call: number) => (gates[call] ??= gate())
  const model = mock({
    provider: 'test',
    model: 'gated',
    script: [{ text: 'abcdef' }],
    chunkSize: 1,
    pace: ({ call }) => letters(call.index).wait(),
  })
  return { letters, model }
}

const broken = mock({
  provider: 'test',
  model: 'broken',
  script: [{ text: 'half', fail: { kind: 'server', afterEvents: 1 } }],
})

function world() {
  const model = numbered()
  const slow = gated()
  const made = agentWorld({ models: [model, slow.model, broken] })
  const { hosts } = made
  const post = (op: string, body: unknown) => hosts.request(ID, op, ALICE, { body })
  const read = async () => {
    const response = await hosts.request(ID, 'get', ALICE)
    expect(response.status).toBe(200)
    return (await response.json()) as WireConversationRead
  }
  const texts = async () =>
    (await read()).conversation.turns.map((turn) =>
      turn.role === 'user' ? turn.content : turn.role === 'assistant' ? turn.text : 'tool',
    )
  const branches = async () => (await read()).conversation.turns.map((turn) => turn.branch)
  const error = async (response: Response) =>
    ((await response.json()) as { error: { field?: string; message: string } }).error
  return { ...made, model, slow, post, read, texts, branches, error }
}

const asked = (content: string, more: Record<string, unknown> = {}) => ({
  model: 'test/numbered',
  turn: user(content),
  ...more,
})

describe('branches of a conversation', () => {
  it('keeps each regenerated answer as a version, pages back to the first, and sends only its path', async () => {
    const { create, post, read, texts, model, hosts, error } = world()
    await create()
    await readSse(await post('messages', asked('Question')))
    const dones: ShownTurn[] = []
    for (let i = 0; i < 2; i++) {
      const again = await readSse(await post('regenerate', { model: 'test/numbered' }))
      expect(dataOf(again, 'turn')[0]).toEqual({ turn: user('Question'), replaces: true })
      dones.push(dataOf<{ turn: ShownTurn }>(again, 'done')[0]!.turn)
    }
    expect(dones.map((turn) => turn.branch)).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 3 },
    ])
    expect(await texts()).toEqual(['Question', 'Answer 2'])
    expect((await read()).conversation.turns[1]).toEqual(dones[1])
    expect((await read()).conversation.turns[0]).not.toHaveProperty('branch')

    // Another tab that follows learns of the switch.
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    const switched = await post('branch', { turn: 1, index: 0 })
    expect(switched.status).toBe(200)
    const body = (await switched.json()) as WireConversationRead
    expect(body.conversation.turns[1]).toMatchObject({
      text: 'Answer 0',
      branch: { index: 0, count: 3 },
    })
    expect(body).toEqual(await read())
    const seen = await readUntil(follower, (got) => got.events.some((e) => e.event === 'reset'))
    const reset = dataOf<{ conversation: { turns: Turn[] }; streaming: boolean }>(seen, 'reset')[0]!
    expect(reset).toEqual({ conversation: body.conversation, streaming: false })
    await follower.body!.cancel()

    // The next message goes on from the first answer: only its items are replayed.
    await readSse(await post('messages', asked('And then?')))
    const request = JSON.stringify(model.calls.at(-1)!.request)
    expect(request).toContain('Answer 0')
    expect(request).not.toContain('Answer 1')
    expect(request).not.toContain('Answer 2')
    expect(
      hosts
        .get(ID)
        .storedTurns()
        .map((turn) => turn.role),
    ).toEqual(['user', 'assistant', 'user', 'assistant'])

    // A switch names a turn of the active path with versions, and one of them.
    const faults: [unknown, string][] = [
      [{ turn: 0, index: 1 }, 'turn'],
      [{ turn: 1, index: 3 }, 'index'],
      [{ turn: 9, index: 0 }, 'turn'],
      [{ turn: '1', index: 0 }, 'turn'],
      [{ turn: 1, index: 0, more: true }, 'more'],
    ]
    for (const [sent, field] of faults) {
      const refused = await post('branch', sent)
      expect(refused.status, JSON.stringify(sent)).toBe(400)
      expect((await error(refused)).field).toBe(field)
    }
  })

  it('edits the first question: the model gets only the edited path, and the old one stays a branch away', async () => {
    const { create, post, texts, branches, model, hosts, error } = world()
    await create()
    await readSse(await post('messages', asked('First')))
    await readSse(await post('messages', asked('Second')))
    const edited = await readSse(
      await post('edit', { turn: 0, content: 'First, edited', model: 'test/numbered' }),
    )
    expect(runs(edited)).toEqual(['turn', 'text', 'done'])
    expect(dataOf(edited, 'turn')[0]).toEqual({
      turn: { ...user('First, edited'), branch: { index: 1, count: 2 } },
      at: 0,
    })
    expect(model.calls.at(-1)!.conversation.turns).toEqual([user('First, edited')])
    expect(await texts()).toEqual(['First, edited', 'Answer 2'])
    expect(await branches()).toEqual([{ index: 1, count: 2 }, undefined])
    const list = async () => {
      const listed = await hosts.request(`client:${ALICE}`, 'list', ALICE)
      return ((await listed.json()) as { conversations: { title: string }[] }).conversations[0]!
    }
    // The list's title is the first question of the path shown.
    expect((await list()).title).toBe('First, edited')
    // Back to the first version: the path under it, as it was last active.
    expect((await post('branch', { turn: 0, index: 0 })).status).toBe(200)
    expect(await texts()).toEqual(['First', 'Answer 0', 'Second', 'Answer 1'])
    expect((await list()).title).toBe('First')

    // An edit names a user turn of the active path, and sends what a message sends.
    const faults: [unknown, string][] = [
      [{ turn: 1, content: 'x', model: 'test/numbered' }, 'turn'],
      [{ turn: 4, content: 'x', model: 'test/numbered' }, 'turn'],
      [{ turn: 0, model: 'test/numbered' }, 'content'],
      [{ turn: 0, content: 3, model: 'test/numbered' }, 'content'],
      [{ turn: 0, content: 'x' }, 'model'],
    ]
    for (const [sent, field] of faults) {
      const refused = await post('edit', sent)
      expect(refused.status, JSON.stringify(sent)).toBe(400)
      expect((await error(refused)).field).toBe(field)
    }
  })

  it('leaves the active path as it was when a regenerate or an edit is stopped or fails', async () => {
    const { create, post, texts, branches, slow, hosts } = world()
    await create()
    await readSse(await post('messages', asked('Question')))
    const stopAfter = async (response: Response, call: number, letters: number) => {
      slow.letters(call).open(letters)
      const seen = await readUntil(response, (got) => dataOf(got, 'text').length >= letters)
      const lastId = seen.events.at(-1)!.id!
      const stop = await hosts.request(ID, 'stop', ALICE, { headers: { 'last-event-id': lastId } })
      expect(stop.status).toBe(204)
      return payloads(parseSse(seen.raw + (await readRest(response))))
    }

    // A regenerate stopped with text: its `done` is the answer that stays, now one of two.
    const regenerating = await post('regenerate', { model: 'test/gated' })
    const regenerated = await stopAfter(regenerating, 0, 2)
    expect(regenerated.at(-1)).toEqual({
      event: 'done',
      data: { turn: expect.objectContaining({ text: 'Answer 0', branch: { index: 0, count: 2 } }) },
    })
    expect(await texts()).toEqual(['Question', 'Answer 0'])
    expect(await branches()).toEqual([undefined, { index: 0, count: 2 }])
    // ...and the stopped one is there, a branch away.
    expect((await post('branch', { turn: 1, index: 1 })).status).toBe(200)
    expect(await texts()).toEqual(['Question', 'ab'])
    expect((await post('branch', { turn: 1, index: 0 })).status).toBe(200)

    // An edit that fails leaves nothing of itself: every tab gets the path back in a `reset`.
    const failed = payloads(
      await readSse(await post('edit', { turn: 0, content: 'Other', model: 'test/broken' })),
    )
    expect(failed.map((p) => p.event)).toEqual(['turn', 'text', 'error', 'reset'])
    const shown = await texts()
    expect(shown).toEqual(['Question', 'Answer 0'])
    expect(failed.at(-1)!.data).toMatchObject({ conversation: { turns: [user('Question'), {}] } })
    expect(await branches()).toEqual([undefined, { index: 0, count: 2 }])

    // One stopped with text is kept a branch away; the path stays, and every tab is told.
    const editing = await post('edit', { turn: 0, content: 'Edited', model: 'test/gated' })
    const stopped = await stopAfter(editing, 1, 3)
    expect(stopped.map((p) => p.event).slice(-2)).toEqual(['done', 'reset'])
    expect(stopped.at(-2)!.data).toMatchObject({ turn: { text: 'abc', stopReason: 'aborted' } })
    expect(await texts()).toEqual(['Question', 'Answer 0'])
    expect(await branches()).toEqual([
      { index: 0, count: 2 },
      { index: 0, count: 2 },
    ])
    expect((await post('branch', { turn: 0, index: 1 })).status).toBe(200)
    expect(await texts()).toEqual(['Edited', 'abc'])
    expect((await hosts.request(ID, 'get', ALICE)).status).toBe(200)
  })

  it.each([
    [
      'a regenerate',
      'regenerate',
      { model: 'test/gated' },
      { turn: user('Three'), replaces: true },
    ],
    [
      'an edit',
      'edit',
      { model: 'test/gated', turn: 2, content: 'Two, edited' },
      { turn: { ...user('Two, edited'), branch: { index: 1, count: 2 } }, at: 2 },
    ],
  ])(
    'resumes %s from before what the log keeps: the conversation as it was, then its turn and answer',
    async (_what, op, body, turn) => {
      const { create, post, read, slow, hosts } = world()
      await create()
      const first = await readSse(await post('messages', asked('One')))
      await readSse(await post('messages', asked('Two')))
      await readSse(await post('messages', asked('Three')))
      // In flight, its `turn` sent: the log keeps the events from the last answer's on.
      const answering = await post(op, body)
      slow.letters(0).open(2)
      const seen = await readUntil(answering, (got) => dataOf(got, 'text').length >= 2)
      // As `GET` shows it meanwhile: nothing replaced yet.
      const before = (await read()).conversation
      const turnId = Number(seen.events[0]!.id)
      const from = first.events.at(-1)!.id!
      expect(Number(from)).toBeLessThan(hosts.get(ID).stats().firstKeptEventId - 1)
      const resuming = await hosts.request(ID, 'stream', ALICE, {
        headers: { 'last-event-id': from },
      })
      slow.letters(0).open(10)
      const resumed = await readSse(resuming)
      const answered = parseSse(seen.raw + (await readRest(answering)))
      // The conversation before its `turn` (nothing of it replaced yet), standing for the events
      // up to that `turn`, which follows: a client places the answer as the `turn` says.
      const [reset, ...after] = resumed.events
      expect(reset).toMatchObject({ event: 'reset', id: String(turnId - 1) })
      expect(JSON.parse(reset!.data)).toEqual({ conversation: before, streaming: true, queue: [] })
      expect(dataOf(answered, 'turn')).toEqual([turn])
      expect(after).toEqual(answered.events)
    },
  )

  it("regenerates every step of an agent's answer after the last user turn", async () => {
    const steps = scripted('steps', (index) =>
      index % 2 === 0
        ? { toolCalls: [{ id: `c${index}`, name: 'clock', input: {} }] }
        : { text: `Done ${index}` },
    )
    const { create, send, shown, hosts } = agentWorld({ models: [steps] })
    await create()
    const body = { model: 'test/steps', serverTools: ['clock'] }
    await readSse(await send({ ...body, turn: user('What time is it?') }))
    const roles = async () => (await shown()).conversation.turns.map((turn) => turn.role)
    expect(await roles()).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const again = await readSse(await hosts.request(ID, 'regenerate', ALICE, { body }))
    expect(dataOf(again, 'turn')[0]).toEqual({ turn: user('What time is it?'), replaces: true })
    expect(steps.calls[2]!.conversation.turns).toEqual([user('What time is it?')])
    const turns = (await shown()).conversation.turns as ShownTurn[]
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(turns[1]!.branch).toEqual({ index: 1, count: 2 })
    expect(turns[3]).toMatchObject({ text: 'Done 3' })
    const back = await hosts.request(ID, 'branch', ALICE, { body: { turn: 1, index: 0 } })
    const old = ((await back.json()) as WireConversationRead).conversation.turns
    expect(old.at(-1)).toMatchObject({ text: 'Done 1' })
    expect(old[1]!.branch).toEqual({ index: 0, count: 2 } satisfies WireBranch)
  })

  it('drops the oldest versions when the conversation is full, never a turn of the active path', async () => {
    const model = numbered()
    const { create, hosts } = agentWorld({ models: [model], settings: { bytes: 1200 } })
    await create()
    const post = (op: string, body: unknown) => hosts.request(ID, op, ALICE, { body })
    const brief = { model: 'test/numbered', maxTokens: 10 }
    await readSse(await post('messages', { ...asked('Question'), maxTokens: 10 }))
    // A version of the question too, off the active path once the first is chosen again.
    await readSse(await post('edit', { ...brief, turn: 0, content: 'Other question' }))
    expect((await post('branch', { turn: 0, index: 0 })).status).toBe(200)
    const follower = await hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    const dones: ShownTurn[] = []
    for (let i = 0; i < 12; i++) {
      const again = await post('regenerate', brief)
      expect(again.status).toBe(200)
      dones.push(dataOf<{ turn: ShownTurn }>(await readSse(again), 'done')[0]!.turn)
    }
    const stats = hosts.get(ID).stats()
    const shown = (await (await hosts.request(ID, 'get', ALICE)).json()) as WireConversationRead
    const [question, answer] = shown.conversation.turns as ShownTurn[]
    expect(answer).toEqual(dones.at(-1))
    expect(answer).toMatchObject({ text: 'Answer 13' })
    // Fewer versions than were made, the newest active, and the store within its bound.
    expect(answer!.branch!.count).toBeLessThan(13)
    expect(answer!.branch!.index).toBe(answer!.branch!.count - 1)
    expect(stats.turns).toBe(answer!.branch!.count + 1)
    // The oldest went first: the edit's version, then the first answers.
    expect(question).not.toHaveProperty('branch')
    const first = await post('branch', { turn: 1, index: 0 })
    const oldest = ((await first.json()) as WireConversationRead).conversation.turns[1]
    expect(oldest).toMatchObject({ text: `Answer ${14 - answer!.branch!.count}` })
    // A version of another turn than the answer's went: every tab was sent the conversation.
    const seen = await readUntil(follower, (got) => got.events.some((e) => e.event === 'reset'))
    await follower.body!.cancel()
    const [reset] = dataOf<{ conversation: { turns: ShownTurn[] } }>(seen, 'reset')
    expect(reset!.conversation.turns[0]).not.toHaveProperty('branch')
  })
})
