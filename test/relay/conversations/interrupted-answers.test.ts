import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { WireToolResult } from '../../../src/core/wire.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import { dataOf, readSse, readUntil, runs } from '../sse-reader.ts'
import { agentWorld, ALICE, gate, ID, user } from './agent-world.ts'

// Answers cut by a restart (DESIGN §13), in Node on SQLite in memory: `restart` starts the host
// again on its storage, as an eviction or a deploy does, and the host it replaces writes nothing
// more. test/worker/interrupted.test.ts kills workerd itself.

/** A model whose deltas go as the test lets them, one character each. */
function gated(model: string, text: string) {
  const steps = gate()
  const adapter = mock({
    provider: 'test',
    model,
    script: [{ text }],
    chunkSize: 1,
    pace: () => steps.wait(),
  })
  return { adapter, steps }
}

/** The stream from after `lastEventId`, to the end of what runs. */
const resume = (world: ReturnType<typeof agentWorld>, lastEventId: string) =>
  world.hosts.request(ID, 'stream', ALICE, { headers: { 'last-event-id': lastEventId } })

const settled = async (world: ReturnType<typeof agentWorld>) => {
  await expect.poll(async () => (await world.shown()).streaming).toBe(false)
  return world.shown()
}

describe('an answer cut by a restart', () => {
  it('runs again, once, when none of its events was stored, with interrupted before its done', async () => {
    const { adapter, steps } = gated('spell', 'abcdef')
    const world = agentWorld({ models: [adapter] })
    await world.create()
    const response = await world.send({ model: 'test/spell', turn: user('Spell it') })
    steps.open()
    const seen = await readUntil(response, (read) => read.events.length >= 2)
    world.hosts.restart(ID)
    // It runs again by itself, in the host that started on the storage.
    expect((await world.shown()).streaming).toBe(true)
    const resumed = resume(world, seen.events.at(-1)!.id!)
    steps.open(20)
    const read = await readSse(await resumed)
    expect(runs(read)).toEqual(['turn', 'interrupted', 'text', 'done'])
    expect(dataOf(read, 'interrupted')).toEqual([{ retried: true }])
    // Its ids follow every id a client could have seen before the restart.
    expect(Number(read.events[0]!.id)).toBeGreaterThan(4096)
    expect(dataOf<{ turn: AssistantTurn }>(read, 'done')[0]!.turn.text).toBe('abcdef')
    const view = await settled(world)
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
    expect(view).not.toHaveProperty('lastError')
    expect(adapter.calls).toHaveLength(2)
  })

  it('keeps what was stored of it as a stopped turn when its events were stored', async () => {
    // Its first delta fills a batch of the event log, which is written at once.
    const long = 'x'.repeat(140_000)
    const steps = gate()
    const adapter = mock({
      provider: 'test',
      model: 'long',
      script: [{ text: `${long}abc` }],
      chunkSize: 140_000,
      pace: ({ index }) => (index === 0 ? Promise.resolve() : steps.wait()),
    })
    const world = agentWorld({ models: [adapter] })
    await world.create()
    const response = await world.send({ model: 'test/long', turn: user('Write') })
    const seen = await readUntil(response, (read) => read.events.length >= 2)
    world.hosts.restart(ID)
    const read = await readSse(await resume(world, seen.events.at(-1)!.id!))
    expect(runs(read)).toEqual(['interrupted', 'done'])
    expect(dataOf(read, 'interrupted')).toEqual([{ retried: false }])
    const stopped = dataOf<{ turn: AssistantTurn }>(read, 'done')[0]!.turn
    expect(stopped).toMatchObject({ text: long, stopReason: 'aborted' })
    expect(stopped).not.toHaveProperty('items')
    const view = await world.shown()
    expect(view.streaming).toBe(false)
    expect(view.conversation.turns[1]).toEqual(stopped)
    expect(adapter.calls).toHaveLength(1)
    steps.open(5)
  })

  it('runs an answer again only once: cut again, it is kept as it is', async () => {
    const { adapter, steps } = gated('twice', 'abc')
    const world = agentWorld({ models: [adapter] })
    await world.create()
    await world.send({ model: 'test/twice', turn: user('Go') })
    world.hosts.restart(ID)
    await expect.poll(() => adapter.calls.length).toBe(2)
    world.hosts.restart(ID)
    const view = await world.shown()
    expect(view.streaming).toBe(false)
    expect(view.conversation.turns[1]).toMatchObject({ text: '', stopReason: 'aborted' })
    expect(adapter.calls).toHaveLength(2)
    steps.open(10)
  })

  it('answers a server tool that ran as interrupted, never runs it twice, and goes on', async () => {
    const world = agentWorld()
    await world.create()
    const response = await world.ask('Run slow', { serverTools: ['slow'] })
    await expect.poll(() => world.slow.started).toBe(1)
    // A tool step sets its alarm at once: a restart is found with no request.
    expect(world.hosts.storage(ID)!.alarm).not.toBeNull()
    const seen = await readUntil(response, (read) =>
      read.events.some((e) => e.event === 'tool-call'),
    )
    world.hosts.restart(ID)
    // The host that ran it is gone; what it finishes now changes nothing.
    world.slowGate.open()
    const view = await settled(world)
    // The log keeps the answer from its start: a client that resumes once it is over gets the
    // rest of it, not a reset.
    const read = await readSse(await resume(world, seen.events.at(-1)!.id!))
    expect(runs(read)).toEqual(['tool-result', 'done', 'turn', 'thinking', 'text', 'done'])
    const [result] = dataOf<WireToolResult>(read, 'tool-result')
    expect(result).toMatchObject({ name: 'slow', isError: true })
    expect(String(result!.output)).toMatch(/^Interrupted: the relay restarted while the tool ran/)
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(view.conversation.turns[2]).toMatchObject({ results: [{ output: result!.output }] })
    expect(world.slow.started).toBe(1)
  })

  it("keeps a message's loop with its turn, not in the metadata, and a restart finds it there", async () => {
    const { adapter, steps } = gated('spell', 'abc')
    const world = agentWorld({ models: [adapter] })
    await world.create()
    const storage = world.hosts.storage(ID)!
    const response = await world.send({ model: 'test/spell', turn: user('Spell it') })
    await readUntil(response, (read) => read.events.length >= 1)
    // Stored as the conversation was made (no title yet), and the loop with the user's turn.
    const meta = storage.sql.exec('SELECT json FROM meta').toArray()[0]!
    expect(JSON.parse(String(meta['json']))).toMatchObject({ streaming: false, title: null })
    const kept = storage.sql.exec('SELECT loop FROM turns WHERE loop IS NOT NULL').toArray()
    expect(kept).toHaveLength(1)
    expect(JSON.parse(String(kept[0]!['loop']))).toMatchObject({
      model: 'test/spell',
      call: { firstId: 1, answers: 0, retried: false },
    })
    world.hosts.restart(ID)
    // Found running, with the title its turn gives, and run again once.
    expect((await world.shown()).streaming).toBe(true)
    expect(world.hosts.get(ID).listing()).toMatchObject({ title: 'Spell it', streaming: true })
    await expect.poll(() => adapter.calls.length).toBe(2)
    steps.open(20)
    const done = await settled(world)
    expect(done.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
    // Once its loop ended, a restart finds nothing running.
    world.hosts.restart(ID)
    expect((await world.shown()).streaming).toBe(false)
    expect(world.hosts.get(ID).listing()).toMatchObject({ title: 'Spell it', streaming: false })
    expect(adapter.calls).toHaveLength(2)
  })

  it("keeps a loop's end with its answer, and a restart takes the metadata from there", async () => {
    const quick = mock({ provider: 'test', model: 'quick', script: [{ text: 'Four.' }] })
    const world = agentWorld({ models: [quick] })
    await world.create()
    const storage = world.hosts.storage(ID)!
    const created = JSON.parse(
      String(storage.sql.exec('SELECT json FROM meta').toArray()[0]!['json']),
    )
    world.hosts.travel(1000)
    const answer = await readSse(await world.send({ model: 'test/quick', turn: user('Add it up') }))
    const last = Number(answer.events.at(-1)!.id)
    const before = await world.shown()
    const listed = world.hosts.get(ID).listing()
    // Not written since the conversation was made.
    const stored = JSON.parse(
      String(storage.sql.exec('SELECT json FROM meta').toArray()[0]!['json']),
    )
    expect(stored).toEqual(created)
    world.hosts.restart(ID)
    const after = await world.shown()
    expect(after).toEqual(before)
    expect(after).toMatchObject({ streaming: false, lastEventId: last })
    expect(world.hosts.get(ID).listing()).toEqual(listed)
    expect(listed).toMatchObject({ title: 'Add it up', streaming: false })
    expect(listed!.updatedAt > created.updatedAt).toBe(true)
    // It numbers on after the answer's last event.
    const next = await readSse(await world.send({ model: 'test/quick', turn: user('Again') }))
    expect(Number(next.events[0]!.id)).toBe(last + 1)
  })

  it('keeps working out the title of a conversation stored before titles, after a restart', async () => {
    const quick = mock({ provider: 'test', model: 'quick', script: [{ text: 'Four.' }] })
    const world = agentWorld({ models: [quick] })
    await world.create()
    world.hosts.storage(ID)!.sql.exec("UPDATE meta SET json = json_remove(json, '$.title')")
    world.hosts.restart(ID)
    await readSse(await world.send({ model: 'test/quick', turn: user('Add it up') }))
    world.hosts.restart(ID)
    expect(world.hosts.get(ID).listing()).toMatchObject({ title: 'Add it up' })
  })

  it("finds a later message's loop kept with its turn, after one that ended", async () => {
    const { adapter, steps } = gated('spell', 'ab')
    const quick = mock({ provider: 'test', model: 'quick', script: [{ text: 'Four.' }] })
    const world = agentWorld({ models: [adapter, quick] })
    await world.create()
    await readSse(await world.send({ model: 'test/quick', turn: user('First') }))
    const response = await world.send({ model: 'test/spell', turn: user('Second') })
    const seen = await readUntil(response, (read) => read.events.length >= 1)
    // The first's start and end, and the second's start.
    const kept = world.hosts.storage(ID)!.sql.exec('SELECT loop FROM turns WHERE loop IS NOT NULL')
    expect(kept.toArray()).toHaveLength(3)
    world.hosts.restart(ID)
    expect((await world.shown()).streaming).toBe(true)
    await expect.poll(() => adapter.calls.length).toBe(2)
    // The second message's call ran again, from its own turn.
    expect(adapter.calls[1]!.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
    ])
    const resumed = resume(world, seen.events.at(-1)!.id!)
    steps.open(10)
    const read = await readSse(await resumed)
    expect(dataOf<{ turn: AssistantTurn }>(read, 'done')[0]!.turn.text).toBe('ab')
    expect((await settled(world)).conversation.turns).toHaveLength(4)
  })

  it('writes a large loop to the metadata instead, where a restart finds it as well', async () => {
    const { adapter, steps } = gated('spell', 'abc')
    const world = agentWorld({ models: [adapter] })
    await world.create()
    const storage = world.hosts.storage(ID)!
    // The client's tools are the loop's: with a long description, more than its turn keeps.
    const tools = [
      { name: 'lookup', description: 'x'.repeat(3000), parameters: { type: 'object' } },
    ]
    const response = await world.send({ model: 'test/spell', tools, turn: user('Spell it') })
    await readUntil(response, (read) => read.events.length >= 1)
    expect(storage.sql.exec('SELECT loop FROM turns WHERE loop IS NOT NULL').toArray()).toEqual([])
    const meta = JSON.parse(String(storage.sql.exec('SELECT json FROM meta').toArray()[0]!['json']))
    expect(meta).toMatchObject({
      streaming: true,
      loop: { model: 'test/spell', options: { tools } },
    })
    world.hosts.restart(ID)
    await expect.poll(() => adapter.calls.length).toBe(2)
    expect(adapter.calls[1]!.options.tools).toEqual(tools)
    steps.open(20)
    expect((await settled(world)).conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
    ])
  })

  it('ends an answer cut before loops were kept with an error, keeping nothing half', async () => {
    const { adapter, steps } = gated('old', 'abc')
    const world = agentWorld({ models: [adapter] })
    await world.create()
    await world.send({ model: 'test/old', turn: user('Before') })
    // As the relay before tool loops stored a running answer: its metadata says so, with no loop
    // (nor one kept with the turn).
    const sql = world.hosts.storage(ID)!.sql
    sql.exec(
      "UPDATE meta SET json = json_set(json_remove(json, '$.loop'), '$.streaming', json('true'))",
    )
    sql.exec('UPDATE turns SET loop = NULL')
    world.hosts.restart(ID)
    const view = await world.shown()
    expect(view.streaming).toBe(false)
    expect(view.lastError?.message).toMatch(/interrupted/)
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user'])
    expect(adapter.calls).toHaveLength(1)
    steps.open(5)
  })
})
