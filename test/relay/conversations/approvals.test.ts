import { describe, expect, it } from 'vitest'
import type { WireApproval } from '../../../src/core/wire.ts'
import { createApprovalSigner } from '../../../src/relay/conversations/approval-ids.ts'
import { dataOf, readSse, readUntil, runs } from '../sse-reader.ts'
import { agentWorld, ALICE, BOB, ID, scripted, user, type Shown } from './agent-world.ts'

// Approvals of server tools' calls (DESIGN §13), in Node on SQLite in memory: single use, bound
// to the call's exact input, decided only by the conversation's owner, and kept across restarts.

const NOTE = { serverTools: ['save_note'] }

/**
 * A conversation whose loop waits on the approval of `save_note` with `{ text: 'buy milk' }`
 * (created first unless `create` is false).
 */
async function waiting(world: ReturnType<typeof agentWorld>, create = true) {
  if (create) await world.create()
  const first = await readSse(await world.ask('save_note buy milk', NOTE))
  const [approval] = dataOf<WireApproval>(first, 'tool-approval')
  return { read: first, approval: approval! }
}

/** The conversation once its loop has stopped running (it goes on by itself after a decision). */
async function idle(world: ReturnType<typeof agentWorld>): Promise<Shown> {
  await expect.poll(async () => (await world.shown()).streaming).toBe(false)
  return world.shown()
}

const body = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message

describe('approvals of server tools', () => {
  it('asks for one, ends the stream with the step’s done, lists it, and runs the call once approved', async () => {
    const world = agentWorld()
    const { read: asked, approval } = await waiting(world)
    expect(runs(asked)).toEqual(['turn', 'thinking', 'tool-call', 'tool-approval', 'done'])
    expect(approval).toMatchObject({ name: 'save_note', input: { text: 'buy milk' } })
    expect(approval.approvalId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Date.parse(approval.expiresAt) - Date.now()).toBeGreaterThan(23 * 60 * 60 * 1000)
    const view = await world.shown()
    expect(view.streaming).toBe(false)
    expect(view.pending).toEqual({ approvals: [approval], calls: [], results: [] })
    // Waiting counts as running: a message is queued (and its queue cleared here), a regenerate
    // is told what waits.
    const meanwhile = await world.ask('Something else')
    expect(meanwhile.status).toBe(202)
    expect((await world.hosts.request(ID, 'clear-queue', ALICE)).status).toBe(204)
    const regenerate = await world.hosts.request(ID, 'regenerate', ALICE, {
      body: { model: 'mock/echo' },
    })
    expect(regenerate.status).toBe(409)
    expect(await body(regenerate)).toMatch(/an approval of save_note/)

    // A tab that follows the conversation sees the loop go on.
    const follower = await world.hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    const decided = await world.decide(approval.approvalId, { approve: true })
    expect(decided.status).toBe(202)
    expect(await decided.json()).toEqual({ approvalId: approval.approvalId, approve: true })
    // The loop goes on with no browser attached.
    const done = await idle(world)
    expect(done.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(done.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [{ callId: approval.callId, name: 'save_note', output: 'saved: buy milk' }],
    })
    expect(done.conversation.turns[3]).toMatchObject({
      text: 'The save_note tool returned "saved: buy milk".',
    })
    expect(done).not.toHaveProperty('pending')
    const followed = await readUntil(follower, (read) => read.events.at(-1)?.event === 'done')
    expect(runs(followed)).toEqual(['tool-result', 'turn', 'thinking', 'text', 'done'])
    await follower.body!.cancel()
    // Single use: the same decision again is refused, and the note was saved once.
    const replayed = await world.decide(approval.approvalId, { approve: true })
    expect(replayed.status).toBe(409)
    const results = (await world.shown()).conversation.turns.filter((t) => t.role === 'tool')
    expect(results).toHaveLength(1)
  })

  it('sends a denial to the model as an error with its reason, and a denial is final', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    const denied = await world.decide(approval.approvalId, { approve: false, reason: 'not today' })
    expect(denied.status).toBe(202)
    const view = await idle(world)
    expect(view.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        {
          callId: approval.callId,
          name: 'save_note',
          output: 'Not run: the user denied this call: not today',
          isError: true,
        },
      ],
    })
    expect(view.conversation.turns[3]).toMatchObject({
      text: 'The save_note tool returned an error: "Not run: the user denied this call: not today".',
    })
    const approve = await world.decide(approval.approvalId, { approve: true })
    expect(approve.status).toBe(409)
    expect(await body(approve)).toMatch(/decided already \(denied\)/)
    expect((await world.shown()).conversation.turns).toHaveLength(4)
  })

  it('answers 404 to a forged id, a malformed one, and another client, and approves nothing', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    const forged =
      approval.approvalId.slice(0, -4) + (approval.approvalId.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    expect((await world.decide(forged, { approve: true })).status).toBe(404)
    expect((await world.decide('not-an-approval', { approve: true })).status).toBe(404)
    // Bob cannot see Alice's conversation, nor decide its approval from his own.
    expect((await world.decide(approval.approvalId, { approve: true }, BOB)).status).toBe(404)
    const bobs = 'BBBBBBBBBBBBBBBBBBBBBB'
    await world.create(bobs, BOB)
    expect((await world.decide(approval.approvalId, { approve: true }, BOB, bobs)).status).toBe(404)
    // A bad body names its field.
    const bad = await world.decide(approval.approvalId, { approve: 'yes' })
    expect(bad.status).toBe(400)
    expect(await body(bad)).toMatch(/^approve must be a boolean/)
    // It still waits, undecided.
    expect((await world.shown()).pending?.approvals).toEqual([approval])
  })

  it('takes the first of two decisions that race, and runs the call once', async () => {
    const runsOf: unknown[] = []
    const world = agentWorld({
      tools: {
        save_note: {
          parameters: {
            type: 'object',
            properties: { text: { type: 'string' } },
            required: ['text'],
          },
          needsApproval: true,
          execute: (input) => {
            runsOf.push(input)
            return 'kept'
          },
        },
      },
    })
    const { approval } = await waiting(world)
    const decisions = [{ approve: true }, { approve: false, reason: 'no' }, { approve: true }]
    const statuses = await Promise.all(
      decisions.map((decision) => world.decide(approval.approvalId, decision)),
    ).then((answers) => answers.map((a) => a.status))
    expect(statuses.toSorted()).toEqual([202, 409, 409])
    await idle(world)
    // Whichever was taken first stands (which one is the order their checks end in): the call ran
    // once if it was approved, not at all if it was denied.
    const taken = decisions[statuses.indexOf(202)]!
    expect(runsOf).toEqual(taken.approve ? [{ text: 'buy milk' }] : [])
  })

  it('approves only the exact input it was issued for', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    // The stored call changed under it (as no client can do): the id no longer approves it.
    const storage = world.hosts.storage(ID)!
    storage.sql.exec("UPDATE run SET json = replace(json, 'buy milk', 'sell the house')")
    world.hosts.restart(ID)
    expect((await world.decide(approval.approvalId, { approve: true })).status).toBe(404)
    const view = await world.shown()
    expect(view.pending?.approvals[0]?.input).toEqual({ text: 'sell the house' })
    expect(view.conversation.turns).toHaveLength(2)
  })

  it('lets nothing a client sends answer or approve a server tool’s call', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    const sent = await world.send({
      model: 'mock/echo',
      ...NOTE,
      turn: {
        role: 'tool',
        results: [{ callId: approval.callId, name: 'save_note', output: 'saved: buy milk' }],
      },
    })
    expect(sent.status).toBe(400)
    expect(((await sent.json()) as { error: { field: string } }).error.field).toBe(
      'turn.results[0].callId',
    )
    expect((await world.shown()).pending?.approvals).toEqual([approval])
  })

  it('answers a call whose approval expired as not run, and goes on: on its alarm, or on a late decision', async () => {
    const world = agentWorld({ settings: { approvalMs: 60_000 } })
    const { approval } = await waiting(world)
    // The alarm is set for when it expires.
    expect(world.hosts.storage(ID)!.alarm).toBe(Date.parse(approval.expiresAt))
    world.hosts.travel(61_000)
    await world.hosts.get(ID).alarm()
    const view = await idle(world)
    expect(view.conversation.turns[2]).toMatchObject({
      results: [
        { output: `Not run: its approval expired at ${approval.expiresAt}.`, isError: true },
      ],
    })
    expect((await world.decide(approval.approvalId, { approve: true })).status).toBe(410)

    // A decision that comes after the time, before the alarm, is told so, and the loop goes on.
    const late = agentWorld({ settings: { approvalMs: 60_000 } })
    const second = await waiting(late)
    late.hosts.travel(61_000)
    expect((await late.decide(second.approval.approvalId, { approve: true })).status).toBe(410)
    expect((await idle(late)).conversation.turns).toHaveLength(4)
  })

  it('keeps an approval across a restart of its host', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    world.hosts.restart(ID)
    expect((await world.shown()).pending?.approvals).toEqual([approval])
    expect((await world.decide(approval.approvalId, { approve: true })).status).toBe(202)
    expect((await idle(world)).conversation.turns).toHaveLength(4)
  })

  it('answers a waiting approval as stopped when the loop is stopped, and refuses it after', async () => {
    const world = agentWorld()
    const { approval } = await waiting(world)
    const follower = await world.hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    expect((await world.hosts.request(ID, 'stop', ALICE)).status).toBe(204)
    const view = await world.shown()
    expect(view.conversation.turns[2]).toMatchObject({
      results: [{ output: 'Not run: the loop was stopped before this call was answered.' }],
    })
    const refused = await world.decide(approval.approvalId, { approve: true })
    expect(refused.status).toBe(409)
    expect(await body(refused)).toMatch(/answered as stopped/)
    // A tab that follows is given the conversation as it now is: no answer follows the tool turn.
    type Reset = { conversation: { turns: { role: string }[] }; streaming: boolean }
    const told = await readUntil(follower, (read) => dataOf(read, 'reset').length > 0)
    await follower.body!.cancel()
    const [reset] = dataOf<Reset>(told, 'reset')
    expect(reset!.streaming).toBe(false)
    expect(reset!.conversation).toEqual(view.conversation)
    expect(reset!.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ])
    // The conversation goes on.
    expect((await world.ask('Next')).status).toBe(200)
  })

  it('waits on approvals after its client’s results, and goes on once they are decided', async () => {
    const both = scripted('both', [
      {
        toolCalls: [
          { id: 'n1', name: 'save_note', input: { text: 'milk' } },
          { id: 'l1', name: 'lookup', input: {} },
        ],
      },
      { text: 'All answered.' },
    ])
    const world = agentWorld({ models: [both] })
    await world.create()
    const first = await readSse(
      await world.send({
        model: 'test/both',
        ...NOTE,
        tools: [{ name: 'lookup', parameters: { type: 'object' } }],
        turn: user('Both'),
      }),
    )
    const [approval] = dataOf<WireApproval>(first, 'tool-approval')
    const results = await world.send({
      model: 'test/both',
      turn: { role: 'tool', results: [{ callId: 'l1', name: 'lookup', output: 'found' }] },
    })
    expect(results.status).toBe(202)
    // The step's results so far: the client's, for every tab that loads or resumes meanwhile.
    const lookedUp = { callId: 'l1', name: 'lookup', output: 'found', isError: false }
    const pending = { approvals: [approval], calls: [], results: [lookedUp] }
    expect(await results.json()).toEqual({ pending })
    expect((await world.shown()).pending).toEqual(pending)
    expect((await world.decide(approval!.approvalId, { approve: true })).status).toBe(202)
    const view = await idle(world)
    expect(view.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        { callId: 'n1', name: 'save_note', output: 'saved: milk' },
        { callId: 'l1', name: 'lookup', output: 'found' },
      ],
    })
    expect(view.conversation.turns[3]).toMatchObject({ text: 'All answered.' })
  })

  it('gives a resume from before what the log keeps what waits, as GET lists it, in its reset', async () => {
    const world = agentWorld()
    await world.create()
    const early = await readSse(await world.ask('Hello'))
    // Two answers later, the log keeps the last one's events only: it waits on an approval.
    await readSse(await world.ask('Hello again'))
    const { approval } = await waiting(world, false)
    const view = await world.shown()
    expect(view.pending).toEqual({ approvals: [approval], calls: [], results: [] })
    const resumed = await readSse(
      await world.hosts.request(ID, 'stream', ALICE, {
        headers: { 'last-event-id': early.events.at(-1)!.id! },
      }),
    )
    expect(resumed.events.map((event) => event.event)).toEqual(['reset'])
    expect(resumed.events[0]!.id).toBe(String(view.lastEventId))
    expect(JSON.parse(resumed.events[0]!.data)).toEqual({
      conversation: view.conversation,
      streaming: false,
      queue: [],
      pending: view.pending,
    })
    // A socket follower that joins from there is told the same.
    const socket = await world.hosts.follow(ID, ALICE, `&lastEventId=${early.events.at(-1)!.id!}`)
    expect('text' in socket && socket.text).toBe(resumed.raw)
  })

  it('signs with the relay’s keys when it has them', async () => {
    const key = 'k'.repeat(32)
    const world = agentWorld({ settings: { approvalKeys: [key] } })
    const { approval } = await waiting(world)
    const subject = {
      conversationId: ID,
      step: 1,
      callId: approval.callId,
      name: 'save_note',
      input: approval.input,
    }
    expect(await createApprovalSigner([key]).verify(approval.approvalId, subject)).toBe(true)
    expect(await createApprovalSigner(['o'.repeat(32)]).verify(approval.approvalId, subject)).toBe(
      false,
    )
  })
})
